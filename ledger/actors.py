"""The actors that are not agents: who did something when no agent did.

An entry's ``actor`` is an agent's id, or one of these three (the ledger
view filters on them, undo refuses to reverse ``OUTSIDE``). They are plain
strings because they are stored as they are and sit beside agent ids in the
same column; this module is their one home, for the kernel and the desktop.
"""

from __future__ import annotations

from typing import Final

USER: Final = "user"  # a person: lease grants and denials, kills, undo
KERNEL: Final = "kernel"  # the runtime itself: expiries, shutdown
OUTSIDE: Final = "outside"  # other programs, seen changing files in a workspace
POLICY: Final = "policy"  # a per-scope policy the user set: leases it granted, calls it refused

NOT_AGENTS: Final = (USER, KERNEL, OUTSIDE, POLICY)
