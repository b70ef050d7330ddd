"""``agentdesk channel add|list|rm|test|pending|approve|deny|revoke``: chat channels and their pairing gate.

``add`` reads the channel's token (a Telegram bot token; for Slack the app
token and the bot token; for WhatsApp the access token, the app secret and
the verify token, separated by spaces) from the
terminal without echo, or one line of stdin when piped, never from an
argument (it would sit in the shell history), and keeps it in the key store.
When this home's kernel runs, every action goes through it over the socket
(``channels.<method>``), so an added channel starts at once and an approval
answers the waiting sender; with none running, a kernel is built in this
process for the record (an approval then pairs the sender, whose next
message is answered once the kernel runs). ``add --open`` makes a channel
open to anyone (no pairing): a named policy, never a default, said in a
warning when chosen and in ``list`` after. Exit status: 0 done, 1 refused
or not found, 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError, KernelError
from ..config.secrets import SecretStore
from ..config.settings import SettingsStore, home
from . import EXIT_USAGE, one_line
from .grants import parse_duration, parse_grants

KINDS = ("telegram", "slack", "discord", "whatsapp", "webchat")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("channel", help="chat channels (Telegram, Slack, Discord, WhatsApp, WebChat): add, list, rm, test, approve, revoke",
                       description="Reach your agents from chat apps. Strangers get a pairing code, nothing else.")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = acts.add_parser("add", help="add or replace a channel (the token is read from the terminal)")
    add.add_argument("name")
    add.add_argument("--kind", required=True, choices=KINDS)
    add.add_argument("--base-url", default="", help="the service's API base URL (default: the real one)")
    add.add_argument("--listen", default="", help="WebChat: 127.0.0.1:PORT to serve the page on; WhatsApp: "
                     "HOST:PORT of the webhook your tunnel forwards to")
    add.add_argument("--phone-id", default="", help="WhatsApp: the Cloud API phone number id")
    add.add_argument("--allow", action="append", default=[], metavar="SCOPE[=DURATION]",
                     help="a lease each of the channel's agents gets, e.g. fs.read=1h (repeat for more)")
    add.add_argument("--budget", type=int, default=100_000, help="tokens per agent (default 100000)")
    add.add_argument("--workspace", help="the agents' workspace (default: Settings)")
    add.add_argument("--provider", help="provider (default: Settings)")
    add.add_argument("--model", help="model (default: Settings for the provider)")
    add.add_argument("--pairing-ttl", default="1h", help="how long a pairing code lives (default 1h)")
    add.add_argument("--open", action="store_true",
                     help="DANGER: no pairing at all; anyone who can write to the channel reaches an agent")
    acts.add_parser("list", help="list channels (never their tokens)")
    for name, text in (("rm", "remove a channel, its token and its pairings"), ("test", "check its token")):
        acts.add_parser(name, help=text).add_argument("name")
    acts.add_parser("pending", help="pairing codes waiting for approval, and the pairings in force")
    approve = acts.add_parser("approve", help="pair the sender who was given CODE")
    approve.add_argument("code")
    deny = acts.add_parser("deny", help="refuse the sender who was given CODE (no new code until it expires)")
    deny.add_argument("code")
    revoke = acts.add_parser("revoke", help="end a pairing (see `agentdesk channel pending`)")
    revoke.add_argument("channel")
    revoke.add_argument("sender")
    revoke.add_argument("--chat", help="the chat (default: the sender's direct messages)")
    revoke.add_argument("--group", action="store_true", help="the pairing is in a group chat (give --chat)")


def run(args: argparse.Namespace, stdin: Any = None, stdout: Any = None, stderr: Any = None) -> int:
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    try:
        return asyncio.run(_run(args, stdin, stdout, stderr))
    except (ConfigError, KernelError, ValueError) as exc:
        print(f"agentdesk channel: {one_line(getattr(exc, 'reason', exc))}", file=stderr)
        return 1 if isinstance(exc, KernelError) and not isinstance(exc, ConfigError) else EXIT_USAGE


async def _run(args: argparse.Namespace, stdin: Any, stdout: Any, stderr: Any) -> int:
    from ..service.client import RemoteKernel, kernel_running
    from .automation_cmd import home_kernel

    root = home()
    secrets = SecretStore(SettingsStore(root))
    if args.action == "add" and args.kind != "webchat":
        token = _token(stdin, args.name)
        if not token:
            raise ValueError("no token given")
        secrets.set(f"channel:{args.name}", token)
    if kernel_running(root):
        remote = await RemoteKernel.for_home(root, client="agentdesk channel").start()
        try:
            return await _act(remote, args, stdout, secrets, stderr)
        finally:
            await remote.aclose()
    async with home_kernel(channel_token=secrets.get) as kernel:
        return await _act(kernel, args, stdout, secrets, stderr)


def _token(stdin: Any, name: str) -> str:
    if stdin.isatty():
        return getpass.getpass(f"token for channel {name}: ").strip()
    return str(stdin.readline()).strip()


async def _act(kernel: Any, args: argparse.Namespace, out: Any, secrets: SecretStore, err: Any = None) -> int:
    from ..channels.model import OPEN_WARNING, ChannelConfig, ChannelPolicy

    err = err or sys.stderr
    desk = kernel.channels
    if args.action == "add":
        policy = tuple(ChannelPolicy(s, d) for s, d in parse_grants(args.allow, kernel.settings.default_lease_s))
        view = await desk.add(ChannelConfig(
            name=args.name, kind=args.kind, base_url=args.base_url, listen=args.listen,
            provider=args.provider or "", model=args.model or "", budget=args.budget,
            workspace=str(Path(args.workspace).resolve()) if args.workspace else "", policy=policy,
            pairing_ttl_s=parse_duration(args.pairing_ttl),
            options={"phone_id": args.phone_id} if args.phone_id else {}, access="open" if args.open else "pairing"))
        if view.config.open:
            print(f"warning: channel {args.name} {OPEN_WARNING}", file=err)
        print(f"added {args.name} ({args.kind}); " + ("running" if view.running else f"not running: {view.problem}")
              + (f"; page at {view.address}" if view.address else ""), file=out)
        return 0
    if args.action == "list":
        for v in desk.list():
            state = "running" if v.running else f"stopped ({v.problem or 'starts with the kernel'})"
            state += "\tOPEN to anyone (no pairing)" if v.config.open else ""
            print(f"{v.config.name}\t{v.config.kind}\t{state}\ttoken in {secrets.where}"
                  + (f"\t{v.address}" if v.address else ""), file=out)
        return 0
    if args.action == "rm":
        removed = await desk.remove(args.name)
        secrets.delete(f"channel:{args.name}")
        print(f"removed {args.name}" if removed else f"no channel named {args.name!r}", file=out)
        return 0 if removed else 1
    if args.action == "test":
        print(await desk.test(args.name), file=out)
        return 0
    if args.action == "pending":
        for p in desk.pending():
            until = datetime.fromtimestamp(p.expires).strftime("%H:%M")
            print(f"{p.code}\t{p.channel}\t{p.chat_kind}\t{p.sender}\t{p.sender_name}\tuntil {until}", file=out)
        for p in desk.paired():
            print(f"paired\t{p.channel}\t{p.chat_kind}\t{p.sender}\tchat {p.chat}", file=out)
        return 0
    if args.action == "deny":
        p = desk.deny(args.code)
        print(f"denied {p.sender_name or p.sender} on {p.channel}", file=out)
        return 0
    if args.action == "approve":
        p = desk.approve(args.code)
        print(f"paired {p.sender_name or p.sender} on {p.channel} ({'direct messages' if p.chat_kind == 'dm' else 'group ' + p.chat})",
              file=out)
        return 0
    if args.action == "revoke":
        if args.group and not args.chat:
            raise ValueError("a group pairing needs --chat")
        done = desk.revoke(args.channel, "group" if args.group else "dm", args.chat or args.sender, args.sender)
        print("revoked" if done else "no such pairing", file=out)
        return 0 if done else 1
    return EXIT_USAGE
