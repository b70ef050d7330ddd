"""``agentdesk automation add|list|show|run|pause|resume|rm``: automations from the terminal.

The kernel checks every definition; a refusal is its one sentence on stderr
and exit status 2. ``run`` runs the automation once now and exits 0 when it
succeeded (or had nothing to do), 4 otherwise (``blocked``: every action it
tried was refused).

When this home's kernel is running, every action goes through it over the
socket (``automations.<method>``): its scheduler hears of an added, paused or
removed automation at once (a file written behind it would wait for its next
wake, hours away), and a run is its run, an agent in ``agentdesk ps`` that
``agentdesk kill`` stops; the command prints the agent and waits for the
run's record. With no kernel running, a kernel is built in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, AsyncIterator

from ..core.errors import ConfigError, KernelError
from ..config.settings import SettingsStore, home
from . import EXIT_USAGE, one_line
from .grants import parse_grants, parse_duration

EXIT_FAILED = 4
OK_OUTCOMES = ("succeeded", "nothing-to-do")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("automation", help="scheduled agent runs: add, list, show, run, pause, resume, rm",
                       description="Scheduled, unattended agent runs, at least an hour apart.")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = acts.add_parser("add", help="define an automation")
    add.add_argument("name")
    add.add_argument("--objective", required=True, help="what each run should do")
    add.add_argument("--schedule", required=True, help="a 5-field cron expression ('0 7 * * 1-5') or 'every 2h'")
    add.add_argument("--timezone", default="UTC", help="IANA timezone of the cron expression (default UTC)")
    add.add_argument("--allow", action="append", default=[], metavar="SCOPE[=DURATION]",
                     help="a lease each run gets, e.g. fs.write=30m (repeat for more)")
    add.add_argument("--budget", type=int, default=100_000, help="tokens per run (default 100000)")
    add.add_argument("--time-limit", default="30m", help="longest a run may take (30s, 5m, 1h…; default 30m)")
    add.add_argument("--workspace", help="the workspace (default: Settings)")
    add.add_argument("--provider", help="provider (default: Settings)")
    add.add_argument("--model", help="model (default: Settings for the provider)")
    add.add_argument("--fallback", action="append", default=[], metavar="PROVIDER:MODEL",
                     help="a model that answers a run when the first cannot; repeat for more, tried in order")
    add.add_argument("--fallback-any-vendor", action="store_true",
                     help="let a fallback be at another vendor than --provider (runs' conversations go there)")
    add.add_argument("--expires", help="stop after this date (YYYY-MM-DD)")
    add.add_argument("--retry-interrupted", action="store_true",
                     help="run a slot again if the kernel stopped in the middle of it (default: never twice)")
    lst = acts.add_parser("list", help="list automations")
    lst.add_argument("--json", action="store_true", help="one JSON object per line")
    show = acts.add_parser("show", help="one automation, its changes and its runs")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="one JSON object")
    for name, text in (("run", "run once now and wait for the outcome"), ("pause", "stop scheduling runs"),
                       ("resume", "schedule runs again"), ("rm", "delete (its history stays on record)")):
        acts.add_parser(name, help=text).add_argument("id")


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(args))
    except (ConfigError, KernelError, ValueError) as exc:
        print(f"agentdesk automation: {one_line(getattr(exc, 'reason', exc))}", file=sys.stderr)
        return EXIT_USAGE


@asynccontextmanager
async def home_kernel(approver: Any = None, with_mail: bool = False,
                      channel_token: Any = None) -> AsyncIterator[Any]:
    """A kernel on the home's ledger and settings (providers loaded only if a run needs one); ``with_mail``:
    with the home's mail accounts (to check an outward call again)."""
    from ledger import Ledger

    from ..leases.approver import DenyAll
    from ..compose import build_kernel
    from ..providers.lazy import LazyProviders

    store = SettingsStore(home())
    settings = store.load()
    providers = LazyProviders(store, lambda: settings, out_of_process=False)
    ledger = Ledger(store.ledger_path)
    mail = None
    if with_mail:
        from ..mail.wiring import mail_for_home

        mail = mail_for_home(store)
    kernel = build_kernel(ledger=ledger, settings=settings, providers=providers, approver=approver or DenyAll(),
                    snapshot_dir=store.root / "snapshots", mail=mail, channel_token=channel_token)
    try:
        yield kernel
    finally:
        await kernel.aclose()
        await providers.aclose()
        ledger.close()


async def _run(args: argparse.Namespace) -> int:
    from ..service.client import RemoteKernel, kernel_running

    root = home()
    if kernel_running(root):
        remote = await RemoteKernel.for_home(root, client="agentdesk automation").start()
        try:
            return await _act(remote, args, remote=True)
        finally:
            await remote.aclose()
    async with home_kernel() as kernel:
        return await _act(kernel, args, remote=False)


def _view(desk: Any, automation_id: str) -> Any:
    """The automation's view as the list shows it (UnknownAutomation when there is none)."""
    from ..automations.service import UnknownAutomation

    found = next((v for v in desk.list() if v.automation.id == automation_id), None)
    if found is None:
        raise UnknownAutomation(automation_id)
    return found


async def _act(kernel: Any, args: argparse.Namespace, remote: bool) -> int:
    from ..automations import Automation, PolicyItem, in_words, local_time

    desk = kernel.automations
    if args.action == "add":
        limit = parse_duration(args.time_limit)
        policy = tuple(PolicyItem(s, d) for s, d in parse_grants(args.allow, kernel.settings.default_lease_s))
        expires = datetime.fromisoformat(args.expires).timestamp() if args.expires else None
        a = desk.add(Automation(id="", name=args.name, objective=args.objective, schedule=args.schedule,
                                timezone=args.timezone, policy=policy, budget=args.budget, time_limit_s=limit,
                                workspace=str(Path(args.workspace).resolve()) if args.workspace else "",
                                provider=args.provider or "",
                                model=args.model or "", expires=expires,
                                retry_interrupted=args.retry_interrupted, fallbacks=tuple(args.fallback),
                                any_vendor=args.fallback_any_vendor))
        v = _view(desk, a.id)
        nxt = "" if v.next_run is None else f"; next run {local_time(v.next_run, a.timezone)} " \
                                            f"({in_words(v.next_run - kernel.now())})"
        print(f"added {a.id}: {a.name} — {v.words}{nxt}")
        return 0
    if args.action == "list":
        for v in desk.list():
            if args.json:
                print(json.dumps(_view_json(v)))
                continue
            nxt = f"HELD: {v.held}" if v.held else "paused" if v.next_run is None else \
                f"next {local_time(v.next_run, v.automation.timezone)} ({in_words(v.next_run - kernel.now())})"
            last = v.last.outcome if v.last else "never run"
            print(f"{v.automation.id}  {v.automation.name}  {v.words}  {nxt}  last: {last}")
        return 0
    if args.action == "show":
        return _show(kernel, args.id, args.json)
    if args.action == "run":
        if remote:
            record = await _run_in_kernel(kernel, args.id)
        else:
            task = desk.start_run(args.id)
            record = await task if task is not None else None
        if record is None:
            print("agentdesk automation: another run already took that slot", file=sys.stderr)
            return EXIT_FAILED
        print(f"{record.outcome}{': ' + record.detail if record.detail else ''}")
        if record.summary:
            print(record.summary)
        return 0 if record.outcome in OK_OUTCOMES else EXIT_FAILED
    getattr(desk, {"pause": "pause", "resume": "resume", "rm": "delete"}[args.action])(args.id)
    print({"pause": "paused", "resume": "resumed", "rm": "deleted (its history stays on record)"}[args.action])
    return 0


async def _run_in_kernel(kernel: Any, automation_id: str) -> Any:
    """Run once now in the running kernel: say which agent runs it (``agentdesk kill`` stops it), then wait for
    the run's record (None: another run already took that slot)."""
    from ..core.events import AgentSpawned, AutomationsChanged

    desk = kernel.automations
    name = desk.get(automation_id).name
    before = {(r.slot, r.attempt) for r in desk.runs(automation_id, 50)}
    changed = asyncio.Event()
    started = kernel.now()

    def heard(event: Any) -> None:
        if isinstance(event, AutomationsChanged) and event.automation == automation_id:
            changed.set()
        elif isinstance(event, AgentSpawned) and event.agent.name.startswith(f"{name} · ") and event.agent.unattended:
            print(f"running as agent {event.agent.id} (agentdesk kill {event.agent.id} stops it)", file=sys.stderr,
                  flush=True)

    unsubscribe = kernel.subscribe(heard)
    unlisten = kernel.on_connection(lambda up: None if up else changed.set())
    try:
        if not desk.run_now(automation_id):
            return None
        while True:
            changed.clear()
            if not kernel.connected:
                raise KernelError("the kernel went away during the run; agentdesk automation show "
                                  f"{automation_id} says how it ended once the kernel is back")
            new = [r for r in desk.runs(automation_id, 10) if (r.slot, r.attempt) not in before
                   and r.slot >= started - 1]
            if new:
                return new[0]
            await changed.wait()
    finally:
        unsubscribe()
        unlisten()


def _view_json(v: Any) -> dict[str, Any]:
    from ..automations.schedule import utc_iso

    return {**v.automation.to_json(), "words": v.words,
            "next_run": None if v.next_run is None else utc_iso(v.next_run),
            "last_outcome": v.last.outcome if v.last else None, "held": v.held or None}


def _show(kernel: Any, automation_id: str, as_json: bool) -> int:
    from ..automations import local_time
    from ..automations.schedule import utc_iso

    desk = kernel.automations
    v = _view(desk, automation_id)
    runs = desk.runs(automation_id, 20)
    if as_json:
        out = _view_json(v)
        out["runs"] = [{"slot": utc_iso(r.slot), "attempt": r.attempt, "ended": utc_iso(r.ts), "agent": r.agent,
                        "outcome": r.outcome, "detail": r.detail, "files": list(r.files)} for r in runs]
        out["history"] = [{"ts": utc_iso(ts), "action": act, "by": by} for ts, act, by in desk.history(automation_id)]
        print(json.dumps(out))
        return 0
    a = v.automation
    print(f"{a.name} ({a.id}) — {v.words}{'' if a.enabled else ' — paused'}")
    if v.held:
        print(f"HELD: it does not run until you look at it and resume it: {v.held}")
    print(f"objective: {a.objective}")
    print("policy: " + (", ".join(f"{p.scope} for {int(p.duration_s // 60)} min" for p in a.policy) or "none"))
    print(f"budget per run: {a.budget:,} tokens; time limit: {int(a.time_limit_s // 60)} min")
    for r in runs:
        print(f"  {local_time(r.slot, a.timezone)}  #{r.attempt}  {r.outcome}  {r.detail}")
    return 0
