"""``agentdesk ps [--all] [--json]``: the agents of the running kernel, one line each."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ._home_ledger import say_error
from ._service import NO_KERNEL, channel

if TYPE_CHECKING:
    from ..core.events import AgentInfo

EXIT_OK, EXIT_ERROR = 0, 1


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ps", help="list the running kernel's agents",
                       description="List the agents of the kernel that serves this home.")
    p.add_argument("--all", action="store_true", help="also list killed agents")
    p.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace) -> int:
    from ..service.protocol import ServiceError
    from ..core.words import short_number

    ch = channel("ps")
    if ch is None:
        say_error("ps", NO_KERNEL)
        return EXIT_ERROR
    try:
        agents = ch.call("agents.list")
        history = ch.call("agents.history") if args.all else []  # archived agents, and those killed before
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
                              "started_at": a.started_at, "workspace": a.workspace, "tainted": a.tainted,
                              "cost": a.cost, "degraded": _degraded(a)}))
        for h in history:
            print(json.dumps({"id": h.id, "name": h.name, "state": "archived" if h.archived else "killed",
                              "provider": h.provider, "model": h.model, "first_prompt": h.first_prompt,
                              "input_tokens": h.input_tokens, "output_tokens": h.output_tokens,
                              "started_at": h.started_at, "cost": h.cost, "served": list(h.served)}))
        return EXIT_OK
    if not shown and not history:
        print("no agents", file=sys.stderr)
        return EXIT_OK
    print(f"{'ID':<10} {'NAME':<20} {'STATE':<8} {'TOKENS':>13}  MODEL")
    for a in shown:
        tokens = f"{short_number(a.used)}/{short_number(a.budget)}"
        print(f"{a.id:<10} {a.name[:20]:<20} {str(a.state):<8} {tokens:>13}  {a.provider}/{a.model}"
              + (f"  ({a.reason})" if a.reason else "") + (f"  [tainted: {a.tainted}]" if a.tainted else "")
              + (f"  [degraded: {_degraded(a)}]" if _degraded(a) else ""))
    shown_ids = {a.id for a in shown}
    for h in history:
        if h.id not in shown_ids:
            tokens = short_number(h.input_tokens + h.output_tokens)
            print(f"{h.id:<10} {h.name[:20]:<20} {'archived' if h.archived else 'killed':<8} {tokens:>13}  "
                  f"{h.provider}/{h.model}  {h.first_prompt[:40]!r}"
                  + (f"  [answered by {', '.join(h.served)}]" if h.served else ""))
    return EXIT_OK


def _degraded(agent: AgentInfo) -> str:
    """Why it answers on a fallback model, as the process table says it ("": on its own model, or finished)."""
    return agent.degraded if agent.degraded and not agent.state.final else ""
