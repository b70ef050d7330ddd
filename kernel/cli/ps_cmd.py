"""``agentdesk ps [--all] [--json]``: the agents of the running kernel, one line each."""

from __future__ import annotations

import argparse
import json
import sys

from ._home_ledger import say_error
from ._service import NO_KERNEL, channel

EXIT_OK, EXIT_ERROR = 0, 1


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ps", help="list the running kernel's agents",
                       description="List the agents of the kernel that serves this home.")
    p.add_argument("--all", action="store_true", help="also list killed agents")
    p.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace) -> int:
    from ..service.protocol import ServiceError
    from ..words import short_number

    ch = channel("ps")
    if ch is None:
        say_error("ps", NO_KERNEL)
        return EXIT_ERROR
    try:
        agents = ch.call("agents")
    except ServiceError as exc:
        say_error("ps", exc)
        return EXIT_ERROR
    finally:
        ch.close()
    shown = [a for a in agents if args.all or not a.state.final]
    if args.json:
        for a in shown:
            print(json.dumps({"id": a.id, "name": a.name, "state": str(a.state), "reason": a.reason,
                              "provider": a.provider, "model": a.model, "budget": a.budget,
                              "input_tokens": a.input_tokens, "output_tokens": a.output_tokens,
                              "started_at": a.started_at, "workspace": a.workspace}))
        return EXIT_OK
    if not shown:
        print("no agents", file=sys.stderr)
        return EXIT_OK
    print(f"{'ID':<10} {'NAME':<20} {'STATE':<8} {'TOKENS':>13}  MODEL")
    for a in shown:
        tokens = f"{short_number(a.used)}/{short_number(a.budget)}"
        print(f"{a.id:<10} {a.name[:20]:<20} {str(a.state):<8} {tokens:>13}  {a.provider}/{a.model}"
              + (f"  ({a.reason})" if a.reason else ""))
    return EXIT_OK
