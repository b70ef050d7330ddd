"""Trust: where content came from and what that costs an agent.

``markers`` wraps untrusted tool output in provenance markers the model is
told about; ``taint`` is what an agent has seen (rebuilt from the ledger by
``taint_from``); ``suspicion`` finds the arguments of a risky call that came
from that content; ``policy`` is the per-scope autonomy the user set; and
``hooks`` runs the user's programs around a call; ``content_taint`` follows
tainted content through the files it was written to.
"""
