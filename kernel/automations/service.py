"""The automations desk the kernel owns: define, change, pause, run now, the Inbox, and the scheduler.

Every change is checked here, by the kernel, so the desktop and the CLI only
show the sentence a ``ScheduleRefused`` carries. Definitions, claims, runs
and Inbox items are append-only rows (``store``); the runs' agents, leases,
tool calls and denials are ordinary ledger entries.
"""

from __future__ import annotations

import builtins

import asyncio
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..core.errors import KernelError
from ..core.events import AutomationsChanged, Event
from .gate import CONFIRM, REQUEST, UnattendedGate
from .model import Automation, PolicyItem, check_definition
from .runner import Slot
from .schedule import ScheduleRefused
from .scheduler import Scheduler
from .store import AutomationStore, InboxItem, RunRecord

from ..core.checking import Checking
from .chain import ChainBroken

if TYPE_CHECKING:
    from .chain import ChainIntact
    from .host import AutomationHost


def confirm_refusal(name: str, scope: str) -> str:
    """Why a scope refused at once (``gate.CONFIRM``) cannot be added to the policy of automation ``name``."""
    return (f"Adding {scope} to the policy of “{name}” would not help: the call was refused at once, not for want "
            f"of a lease. Calls needing {scope} are confirmed one call at a time (an outward action, a policy of "
            "confirm, or a run that had read untrusted content), nobody is there to confirm during a run, and no "
            f"lease stands in for that confirmation. To let runs make such calls, set the policy for {scope} to ask "
            "in Settings → Permissions (a later refusal for want of a lease can then be added here), or dismiss this "
            "item.")


class UnknownAutomation(KernelError):
    def __init__(self, automation: str) -> None:
        super().__init__(f"no automation {automation!r}")
        self.automation = automation


@dataclass(frozen=True)
class AutomationView:
    """An automation as the list shows it: the definition, in words, with its next and last runs."""

    automation: Automation
    words: str
    next_run: float | None
    last: RunRecord | None
    held: str = ""  # why it does not run until the user looks (its records failed verification), or ""


class Automations:
    def __init__(self, host: "AutomationHost", store: AutomationStore, gate: UnattendedGate,
                 publish: Callable[[Event], None], integrity: "ChainIntact | ChainBroken | Checking") -> None:
        """``integrity``: what the check of the store's hash chain at start found (automations/chain_start),
        or ``Checking`` while it runs (the kernel service checks after it serves) until ``checked``."""
        self.host = host
        self._integrity = integrity
        self._publish = publish
        self._store = store
        self.gate = gate
        self.scheduler = Scheduler(self, store)
        self._task: asyncio.Task[None] | None = None
        # automation id → why it does not run until the user looks at it (resumes or saves it again): the
        # records failed verification at start (every automation then: the check names only the first
        # broken place), or the row of its definition fails its own link when a run is due
        self._held: dict[str, str] = {}
        self.checked(integrity)

    def checked(self, integrity: "ChainIntact | ChainBroken | Checking") -> None:
        """The check of the chain at start answered: a broken chain holds every automation until the user looks."""
        self._integrity = integrity
        if isinstance(integrity, ChainBroken):
            why = (f"the automation records failed verification at start ({integrity.table} row {integrity.row}: "
                   f"{integrity.reason})")
            self._held = {a.id: why for a in self._store.automations()}

    # ---- the scheduler --------------------------------------------------------------

    def start(self) -> builtins.list[RunRecord]:
        """Mark runs a dead kernel left as interrupted, then run the scheduler on this loop."""
        interrupted = self.scheduler.recover()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.scheduler.run_forever(), name="automations")
        return interrupted

    async def stop(self) -> None:
        """Stop starting runs (runs under way end when the kernel stops their agents: ``drain``)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task})

    async def drain(self) -> None:
        """Wait for the runs under way to record how they ended."""
        running = list(self.scheduler.running.values())
        if running:
            await asyncio.wait(running)

    def integrity(self) -> "ChainIntact | ChainBroken | Checking":
        """What the check at start found of the automation records' own chain: intact (its rows), or the
        first broken table and row. The full check is ``agentdesk ledger verify``."""
        return self._integrity

    def held(self, automation_id: str) -> str | None:
        """Why ``automation_id`` must not run until the user looks, or None. A definition whose row fails its
        chain link now (rewritten behind the kernel's back) is held from here on, with a notice in the Inbox."""
        if automation_id in self._held:
            return self._held[automation_id]
        problem = self._store.definition_problem(automation_id)
        if problem is None:
            return None
        self._held[automation_id] = f"its definition failed verification: {problem}"
        self.notice(automation_id, f"Automation {automation_id} does not run: its definition was changed outside "
                                   f"Agentdesk ({problem}). Look at it (agentdesk automation show {automation_id}), "
                                   "then resume or save it to let it run again.")
        return self._held[automation_id]

    def _looked(self, automation_id: str, by: str) -> None:
        """The user resumed or saved the automation after it was held: they have looked at it."""
        if by == "user":
            self._held.pop(automation_id, None)

    # ---- definitions ------------------------------------------------------------------

    def check(self, automation: Automation) -> None:
        """Raise ``ScheduleRefused`` with the sentence to show when the kernel would refuse it."""
        check_definition(automation, self.host.clock.now())

    def add(self, automation: Automation, by: str = "user") -> Automation:
        a = automation.with_(id=automation.id or uuid.uuid4().hex[:8], created_at=self.host.clock.now())
        if any(x.id == a.id for x in self._store.automations(deleted=True)):
            raise ScheduleRefused(f"There is already an automation with the id {a.id}.")
        self.check(a)
        self._store.record(self.host.clock.now(), a, "create", by)
        self._publish(AutomationsChanged(a.id))
        self.scheduler.poke()
        return a

    def update(self, automation: Automation, by: str = "user") -> Automation:
        old = self.get(automation.id)
        a = automation.with_(created_at=old.created_at)
        self.check(a)
        self._store.record(self.host.clock.now(), a, "update", by)
        self._looked(a.id, by)
        self._publish(AutomationsChanged(a.id))
        self.scheduler.poke()
        return a

    def pause(self, automation_id: str, by: str = "user") -> Automation:
        a = self.get(automation_id).with_(enabled=False)
        self._store.record(self.host.clock.now(), a, "pause", by)
        self._publish(AutomationsChanged(a.id))
        return a

    def resume(self, automation_id: str, by: str = "user") -> Automation:
        a = self.get(automation_id).with_(enabled=True)
        self._store.record(self.host.clock.now(), a, "resume", by)
        self._looked(a.id, by)
        self._publish(AutomationsChanged(a.id))
        self.scheduler.poke()
        return a

    def delete(self, automation_id: str, by: str = "user") -> None:
        """Stop scheduling it; its definition, runs and history stay on record."""
        self._store.record(self.host.clock.now(), self.get(automation_id), "delete", by)
        self._publish(AutomationsChanged(automation_id))

    def get(self, automation_id: str) -> Automation:
        for a in self._store.automations():
            if a.id == automation_id:
                return a
        raise UnknownAutomation(automation_id)

    def list(self) -> builtins.list[AutomationView]:
        return [self.view(a) for a in self._store.automations()]

    def view(self, a: Automation) -> AutomationView:
        now = self.host.clock.now()
        nxt = a.when.next_fire(now, a.created_at) if a.enabled else None
        if nxt is not None and a.expires is not None and nxt >= a.expires:
            nxt = None
        runs = self._store.runs(a.id, limit=1)
        held = self._held.get(a.id, "")
        return AutomationView(a, a.when.words(), None if held else nxt, runs[0] if runs else None, held)

    def runs(self, automation_id: str, limit: int = 100) -> builtins.list[RunRecord]:
        return self._store.runs(automation_id, limit)

    def history(self, automation_id: str) -> builtins.list[tuple[float, str, str]]:
        """(time, action, who) of every change to the definition."""
        return self._store.history(automation_id)

    def run_now(self, automation_id: str) -> bool:
        """Run once now, outside the schedule (a manual slot): True when the run was claimed and started,
        False when another run already took that slot."""
        return self.start_run(automation_id) is not None

    def start_run(self, automation_id: str) -> asyncio.Task[RunRecord | None] | None:
        """``run_now``, with the run to await (in process: ``agentdesk automation run``, tests); None when
        another run already took the slot."""
        a = self.get(automation_id)
        if isinstance(self._integrity, Checking):  # Run now waits for its records to check out (the scheduler
            # itself starts only after the check: kernel/service/start_checks.py)
            raise ScheduleRefused(f"{a.name} cannot run yet: the automation records are still being checked (the "
                                  "kernel started a moment ago). Try again in a moment.")
        if (why := self.held(a.id)) is not None:
            raise ScheduleRefused(f"{a.name} does not run until you look at it: {why}. Check it "
                                  f"(agentdesk automation show {a.id}), then resume or save it.")
        return self.scheduler.start(a, Slot(a.id, self.host.clock.now(), 0, manual=True))

    # ---- what runs report -------------------------------------------------------------

    def ran(self, a: Automation, run: RunRecord) -> None:
        """After each run: pause the automation after too many failed slots in a row."""
        self._publish(AutomationsChanged(a.id))
        if run.outcome != "failed":
            return
        limit = self.host.settings.automation_pause_after
        newest: dict[float, RunRecord] = {}
        for r in self._store.runs(a.id, limit=limit * 8):
            newest.setdefault(r.slot, r)
        in_a_row = 0
        for r in sorted(newest.values(), key=lambda r: r.slot, reverse=True):
            if r.outcome != "failed":
                break
            in_a_row += 1
        if in_a_row >= limit and self.get(a.id).enabled:
            self.pause(a.id, by="kernel")
            self.notice(a.id, f"{a.name} paused itself after {in_a_row} failed runs in a row (last: {run.detail}).")

    # ---- the inbox --------------------------------------------------------------------

    def notice(self, automation_id: str, detail: str) -> int:
        item = self._store.inbox_add(self.host.clock.now(), automation_id, "notice", "", detail)
        self._publish(AutomationsChanged(automation_id))
        return item

    def refused(self, automation_id: str, scope: str, detail: str, kind: str = REQUEST) -> None:
        """A run's call was refused: an Inbox item (``kind``: ``gate.REQUEST`` or ``gate.CONFIRM``)."""
        self._store.inbox_add(self.host.clock.now(), automation_id, kind, scope, detail)
        self._publish(AutomationsChanged(automation_id))

    def inbox(self, *, open_only: bool = True) -> builtins.list[InboxItem]:
        return self._store.inbox(open_only=open_only)

    def _item(self, item_id: int) -> InboxItem:
        for item in self._store.inbox(open_only=True):
            if item.id == item_id:
                return item
        raise KernelError(f"no open Inbox item {item_id}")

    def add_to_policy(self, item_id: int, duration_s: float) -> Automation:
        """The user confirmed: future runs of the item's automation get its scope for ``duration_s``."""
        item = self._item(item_id)
        a = self.get(item.automation)
        if item.kind == CONFIRM:
            raise ScheduleRefused(confirm_refusal(a.name, item.scope))
        if item.kind != REQUEST:
            raise KernelError("only a refused request can be added to a policy")
        if not any(p.scope == item.scope for p in a.policy):
            a = self.update(a.with_(policy=a.policy + (PolicyItem(item.scope, duration_s),)))
        self._store.inbox_close(self.host.clock.now(), item, "added")
        self._publish(AutomationsChanged(item.automation))
        return a

    def dismiss(self, item_id: int) -> None:
        item = self._item(item_id)
        self._store.inbox_close(self.host.clock.now(), item, "dismissed")
        self._publish(AutomationsChanged(item.automation))
