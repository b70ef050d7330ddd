"""``agentdesk kill ID``: kill one agent of the running kernel (final, recorded)."""

from __future__ import annotations

import argparse

from ._home_ledger import say_error
from ._service import NO_KERNEL, channel

EXIT_OK, EXIT_ERROR = 0, 1


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kill", help="kill an agent of the running kernel",
                       description="Kill an agent: its work stops, its leases are revoked, the kill is recorded.")
    p.add_argument("id", help="the agent's id (see 'agentdesk ps')")


def run(args: argparse.Namespace) -> int:
    from ..core.errors import KernelError

    ch = channel("kill")
    if ch is None:
        say_error("kill", NO_KERNEL)
        return EXIT_ERROR
    try:
        info = ch.call("agents.kill", {"agent_id": args.id, "reason": "killed by the user (agentdesk kill)"})
    except KernelError as exc:
        say_error("kill", exc)
        return EXIT_ERROR
    finally:
        ch.close()
    print(f"{info.id} {info.name}: {info.state}")
    return EXIT_OK
