"""``agentdesk inbox``: what automation runs were refused, and notices; add a scope to a policy or dismiss.

Adding asks for a confirmation on the terminal (or ``--yes``), since future
runs of that automation will then get the scope without asking anyone.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ..errors import ConfigError, KernelError
from . import EXIT_USAGE, one_line
from .grants import parse_duration


def add_parser(sub: Any) -> None:
    p = sub.add_parser("inbox", help="refused requests and notices of automations",
                       description="List the Inbox; 'add ITEM' adds a refused scope to its automation's policy "
                                   "(after a confirmation), 'dismiss ITEM' closes an item.")
    p.add_argument("action", nargs="?", choices=("add", "dismiss"))
    p.add_argument("item", nargs="?", type=int)
    p.add_argument("--for", dest="duration", default="30m", help="lease duration for 'add' (default 30m)")
    p.add_argument("--yes", action="store_true", help="do not ask for a confirmation")


def run(args: argparse.Namespace) -> int:
    if args.action and args.item is None:
        print(f"agentdesk inbox: {args.action} needs the item's number", file=sys.stderr)
        return EXIT_USAGE
    try:
        return asyncio.run(_run(args))
    except (ConfigError, KernelError, ValueError) as exc:
        print(f"agentdesk inbox: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


async def _run(args: argparse.Namespace) -> int:
    from ..automations import local_time
    from .automation_cmd import home_kernel

    async with home_kernel() as kernel:
        desk = kernel.automations
        if args.action is None:
            items = desk.inbox()
            if not items:
                print("The Inbox is empty.")
            for item in items:
                print(f"{item.id}  {local_time(item.ts, 'UTC')}  {item.automation}  {item.detail}")
            return 0
        if args.action == "dismiss":
            desk.dismiss(args.item)
            print("dismissed")
            return 0
        seconds = parse_duration(args.duration)
        item = next((i for i in desk.inbox() if i.id == args.item), None)
        if item is None:
            raise KernelError(f"no open Inbox item {args.item}")
        name = desk.get(item.automation).name
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
