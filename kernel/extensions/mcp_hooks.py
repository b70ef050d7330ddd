"""What a connection needs from the rest of the kernel, handed in (never reached for).

One frozen value per hub: where OAuth tokens live and how a new secret is held for redaction,
who opens a sign-in URL (nobody, in the background kernel: then a server that needs sign-in says
so), who answers a server's question for the user, and where a server's log lines go. The
conformance adapter and ``agentdesk mcp login`` build their own with a browser; the kernel's
has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from .mcp_elicit import Elicitor
from .mcp_oauth import Browser, Vault
from .mcp_roots import RootsOf
from .mcp_sampling import Sampler

if TYPE_CHECKING:
    from ..core.events import Event


@dataclass(frozen=True)
class McpHooks:
    vault: Vault | None = None                          # the key store: OAuth tokens (``mcp:oauth:<server>``)
    hold: Callable[[str, str], object] | None = None    # (secret, label): kept off the record from now on
    browser: Browser | None = None                      # interactive sign-in; None: "needs sign-in"
    elicit: Elicitor | None = None                      # None: every question is declined
    client_metadata_url: str | None = None              # our client ID metadata document, when we have one
    publish: "Callable[[Event], None] | None" = None     # kernel events (a call's progress: ``ToolProgress``)
    sample: Sampler | None = None                       # a server's model request; None: not advertised
    roots: RootsOf | None = None                        # an agent's workspace, its roots; None: not advertised
