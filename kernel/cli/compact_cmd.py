"""``agentdesk compact ID [--focus TEXT]``: summarize an agent's earlier conversation now (kernel/context).

The running kernel makes the summary request (recorded) and a ``compaction``
entry; the last exchanges stay as they were. ``--focus`` says what the
summary must keep; it is recorded on the entry and never becomes a user turn.
"""

from __future__ import annotations

import argparse

from ._home_ledger import say_error
from ._service import NO_KERNEL

EXIT_OK, EXIT_ERROR = 0, 1
SUMMARY_WAIT_S = 600.0  # a summary is one model request: the provider's own timeout bounds it


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compact", help="summarize an agent's earlier conversation now",
                       description="Summarize the earlier part of an agent's conversation (its last exchanges stay "
                                   "as they were), on the record.")
    p.add_argument("id", help="the agent's id (see 'agentdesk ps')")
    p.add_argument("--focus", default="", help="what the summary must keep (recorded, never sent as your message)")


def run(args: argparse.Namespace) -> int:
    from ..api import Compaction, LedgerFilter
    from ..config.home import home, socket_path
    from ..core.errors import KernelError
    from ..service.channel import SyncChannel
    from ..service.protocol import NotRunning

    ch = SyncChannel(socket_path(home()), "agentdesk compact", timeout=SUMMARY_WAIT_S)
    try:
        ch.connect()
    except NotRunning:
        say_error("compact", NO_KERNEL)
        return EXIT_ERROR
    try:
        ch.call("agents.compact", {"agent_id": args.id, "focus": args.focus})
        info = ch.call("agents.wait", {"agent_id": args.id})
        found = ch.call("ledger.page", {"filters": LedgerFilter(actor=args.id, kind="compaction"), "limit": 1})
    except KernelError as exc:
        say_error("compact", exc)
        return EXIT_ERROR
    finally:
        ch.close()
    if info.reason:
        print(f"{info.id} {info.name}: {info.reason}")
        return EXIT_OK if "nothing to summarize" in info.reason else EXIT_ERROR
    entry = found[0] if found and isinstance(found[0], Compaction) else None
    if entry is None:
        print(f"{info.id} {info.name}: {info.state}")
        return EXIT_OK
    print(f"{info.id} {info.name}: earlier conversation summarized: {entry.entries} entries, "
          f"{entry.tokens_before:,} → {entry.tokens_after:,} tokens (ledger #{entry.seq})")
    return EXIT_OK
