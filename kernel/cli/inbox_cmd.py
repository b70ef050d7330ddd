"""``agentdesk inbox``: what automation runs were refused, and notices; add a scope to a policy or dismiss.

Adding asks for a confirmation on the terminal (or ``--yes``), since future
runs of that automation will then get the scope without asking anyone. The
Inbox also lists outward calls (a mail, an event) whose outcome is unknown,
with the message as asked: ``sent N`` / ``not-sent N`` records the user's
word on call N (never retrying it), ``recheck N`` looks on the server again.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ledger import LedgerError

from ..core.errors import ConfigError, KernelError
from . import EXIT_USAGE, one_line
from .grants import parse_duration

OUTWARD_ACTIONS = ("sent", "not-sent", "recheck")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("inbox", help="refused requests and notices of automations; unknown outward calls",
                       description="List the Inbox; 'add ITEM' adds a refused scope to its automation's policy "
                                   "(after a confirmation), 'dismiss ITEM' closes an item. For an outward call "
                                   "(#N) whose outcome is unknown: 'sent N' or 'not-sent N' records what you "
                                   "found (it is never retried), 'recheck N' looks on the server again.")
    p.add_argument("action", nargs="?", choices=("add", "dismiss", *OUTWARD_ACTIONS))
    p.add_argument("item", nargs="?", type=int)
    p.add_argument("--for", dest="duration", default="30m", help="lease duration for 'add' (default 30m)")
    p.add_argument("--yes", action="store_true", help="do not ask for a confirmation")
    p.add_argument("--json", action="store_true", help="one JSON object per line (kind: item or outward)")


def run(args: argparse.Namespace) -> int:
    if args.action and args.item is None:
        print(f"agentdesk inbox: {args.action} needs the item's number", file=sys.stderr)
        return EXIT_USAGE
    try:
        return asyncio.run(_run(args))
    except (ConfigError, KernelError, LedgerError, ValueError) as exc:  # UnknownSeq: "no ledger entry #999"
        print(f"agentdesk inbox: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


async def _run(args: argparse.Namespace) -> int:
    from ..automations import local_time
    from .automation_cmd import home_kernel

    async with home_kernel(with_mail=args.action == "recheck") as kernel:
        desk = kernel.automations
        if args.action is None:
            items, unknown = desk.inbox(), kernel.outward.unknown()
            if args.json:
                _print_json(items, unknown)
                return 0
            if not items and not unknown:
                print("The Inbox is empty.")
            for item in items:
                print(f"{item.id}  {local_time(item.ts, 'UTC')}  {item.automation}  {item.detail}")
            _print_unknown(unknown, local_time)
            return 0
        if args.action in OUTWARD_ACTIONS:
            return await _outward(kernel, args.action, args.item)
        if args.action == "dismiss":
            desk.dismiss(args.item)
            print("dismissed")
            return 0
        seconds = parse_duration(args.duration)
        item = next((i for i in desk.inbox() if i.id == args.item), None)
        if item is None:
            raise KernelError(f"no open Inbox item {args.item}")
        name = desk.get(item.automation).name
        if item.kind == "confirm":  # refused at once: the kernel says why no policy lets it through (exit 2)
            desk.add_to_policy(args.item, seconds)
        question = f"Let every future run of {name!r} use {item.scope} for {args.duration} without asking? [y/N] "
        if not args.yes:
            if not sys.stdin.isatty():
                print("agentdesk inbox: confirm with --yes (no terminal to ask on)", file=sys.stderr)
                return EXIT_USAGE
            print(question, end="", file=sys.stderr, flush=True)
            if sys.stdin.readline().strip().lower() not in ("y", "yes"):
                print("not added", file=sys.stderr)
                return 1
        desk.add_to_policy(args.item, seconds)
        print(f"added {item.scope} to {name}")
        return 0


def _print_unknown(unknown: list[Any], local_time: Any) -> None:
    """Each outward call whose outcome is unknown, with the message or event as it was asked for."""
    if not unknown:
        return
    print("Outward calls that may or may not have gone out (sent N / not-sent N / recheck N):")
    for u in unknown:
        print(f"#{u.intent_seq}  {local_time(u.ts, 'UTC')}  {u.actor}  {u.tool}  {u.detail}")
        for line in u.shown.splitlines():
            print(f"    {line}")


def _print_json(items: list[Any], unknown: list[Any]) -> None:
    import json
    from dataclasses import asdict

    for item in items:
        print(json.dumps({"kind": "item", **asdict(item)}))
    for u in unknown:
        print(json.dumps({"kind": "outward", **asdict(u)}))


async def _outward(kernel: Any, action: str, seq: int) -> int:
    if action == "recheck":
        status = await kernel.outward.recheck(seq)
        print(f"#{seq}: found on the server, recorded as sent" if status == "done" else
              f"#{seq}: still not found on the server; it stays in the Inbox and is not retried")
        return 0
    kernel.outward.settle(seq, action == "sent")
    print(f"#{seq}: recorded as {'sent' if action == 'sent' else 'not sent'} (nothing is retried)")
    return 0
