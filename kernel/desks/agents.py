"""The agents desk: the process table (spawn, send, pause, resume, kill, wait) and the agents out of it.

It owns the table of live ``AgentProcess``es: everything else (the leases
desk, automation runs through ``RunHost``, the kernel's shutdown) reaches an
agent through it. Durable agents: the table is rebuilt from the ledger at
start (``restore``), archived agents go to History and come back whole.
"""

from __future__ import annotations

import asyncio
import builtins
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ledger import USER, AgentArchive, AgentBudget, AgentKill, UntrustedSeen

from ..accounting.budget import Budget
from ..agents.ids import record_spawn
from ..agents.context_step import FOCUS_MAX, run_compaction
from ..agents.loop import run_loop
from ..agents.process import AgentProcess
from ..agents.rebuild import AgentRecord, conversation_of, summarise
from ..agents.records import RESUME, USER_TURN, record_user_turn
from ..agents.restore import history_item, other_models, process_from, served_by
from ..agents.route_step import reopen_breakers
from ..agents.turn_context import ContextPiece, NoContext, TurnContext, admit_context, with_context
from ..api import HistoryItem, ReplySoFar, Spend
from .attach import Attachments
from ..core.errors import InvalidState, UnknownAgent
from ..core.events import AgentArchived, AgentInfo, AgentKilled, AgentSpawned, UsageUpdated, UserMessage
from ..core.loop import KernelLoop
from ..core.messages import ImagePart, Message, TextPart
from ..core.states import AgentState
from ..routes.build import route_for
from ..tools.fs.stale import sweep_temp_files
from ..tools.outward import interrupted_words
from ..trust.taint import taint_from
from ..workspace.root import Workspace

if TYPE_CHECKING:
    from ..accounting.spend import SpendToday
    from ..agents.services import Services
    from ..workspace.watch import OutsideWatchers


class Agents:
    """``kernel.api.AgentDesk`` in process."""

    def __init__(self, services: Services, loop: KernelLoop, spend: SpendToday,
                 watchers: OutsideWatchers | None = None) -> None:
        """``watchers`` records edits by other programs in every workspace an agent works in (the desktop's
        and the service's kernels); ``spend`` counts today's provider requests."""
        self._services = services
        self._loop = loop
        self._spend = spend
        self._watchers = watchers
        self.table: dict[str, AgentProcess] = {}
        self._swept: set[str] = set()
        self._attachments = Attachments(services.images)
        self.turn_context: TurnContext = NoContext()  # the extensions' (set by the composition root)

    # ---- the process table ------------------------------------------------------

    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None, unattended: bool = False,
              fallbacks: tuple[str, ...] | None = None, any_vendor: bool = False) -> AgentInfo:
        """A new agent; ``unattended`` (an automation run) means nobody confirms anything: an outward call
        that needs a person is refused at once. ``fallbacks`` (``provider:model``, in order; None: Settings'
        default for its provider) answer when its model cannot; ``any_vendor`` lets them be at other vendors."""
        s = self._services
        provider = provider or s.settings.provider
        model = model or s.settings.model_for(provider)
        budget = budget or s.settings.default_budget
        route = route_for(provider, model, tuple(fallbacks) if fallbacks is not None else s.settings.fallbacks_for(provider),
                          any_vendor=any_vendor or (fallbacks is None and s.settings.fallback_any_vendor),
                          price_ceiling=s.settings.fallback_price_ceiling, explicit=fallbacks is not None)
        if budget <= 0:
            raise ValueError("a budget must be a positive number of tokens")
        ledger_folder = () if s.ledger.path in ("", ":memory:") else (Path(s.ledger.path).parent,)
        # the default workspace is made on first use (once it is known to be allowed)
        root = Workspace.at(workspace or s.settings.workspace, holding=ledger_folder, create=workspace is None).root
        entry = record_spawn(s.ledger, name=name, provider=provider, model=model, budget=budget, workspace=str(root),
                             route=route)
        agent = AgentProcess(entry.actor, entry.name, provider, model, str(root), entry.ts, s, Budget(budget),
                             unattended=unattended, route=route)
        self.table[agent.id] = agent
        s.bus.publish(AgentSpawned(agent.info()))
        self.ensure_expiry_watch()
        if str(root) not in self._swept:  # temporary files a killed write left
            self._swept.add(str(root))
            sweep_temp_files(root)
        if self._watchers is not None:
            self._watchers.watch(root, self._loop.running())
        return agent.info()

    def list(self) -> builtins.list[AgentInfo]:
        return [a.info() for a in self.table.values()]

    def get(self, agent_id: str) -> AgentInfo:
        return self.process(agent_id).info()

    def process(self, agent_id: str) -> AgentProcess:
        """The agent process itself (kernel components only; clients get ``get``)."""
        try:
            return self.table[agent_id]
        except KeyError:
            raise UnknownAgent(agent_id) from None

    def conversation(self, agent_id: str) -> tuple[Message, ...]:
        """The conversation as the model sees it; an agent out of the table (History) is read from the record."""
        if agent_id in self.table:
            return self.table[agent_id].conversation
        return conversation_of(self._services.ledger, self._record(agent_id).spawn)

    def compact(self, agent_id: str, focus: str = "") -> None:
        """Summarize the conversation now (its last exchanges kept; ``focus``: what the summary must keep,
        recorded, never a turn); ``await wait(agent_id)`` for it. An error leaves the conversation as it was."""
        agent = self.process(agent_id)
        if agent.killed:
            raise InvalidState(agent.id, agent.state, "compact")
        if agent.busy:
            raise InvalidState(agent.id, agent.state, "compact while it is working (stop or wait first)")
        self.ensure_expiry_watch()
        before = (agent.state, agent.reason)
        agent.set_state(AgentState.RUNNING, "compacting the conversation")
        agent.task = self._loop.running().create_task(run_compaction(agent, focus[:FOCUS_MAX], before),
                                                      name=f"compact {agent.id}")
        agent.task.add_done_callback(_swallow_cancel)

    def reply_so_far(self, agent_id: str) -> ReplySoFar:
        """The conversation, the reply streaming now and the offset of the next text delta, at one moment."""
        if agent_id not in self.table:
            return ReplySoFar(self.conversation(agent_id), "", 0)
        agent = self.table[agent_id]
        return ReplySoFar(agent.conversation, "".join(agent.streaming), agent.streamed)

    async def attach_image(self, agent_id: str, data_b64: str, origin: str = "paste", label: str = "") -> ImagePart:
        """A picture (base64) fitted and kept for ``agent_id``'s next message (``send(..., images=)``)."""
        self.process(agent_id)
        return await self._attachments.attach(agent_id, data_b64, origin, label)

    def admit_picture(self, agent_id: str, part: ImagePart) -> None:
        """A picture the kernel took in for ``agent_id`` (a channel's photo): ``send`` then takes it."""
        self._attachments.admit(agent_id, part)

    def send(self, agent_id: str, text: str, images: tuple[ImagePart, ...] | None = None) -> None:
        """Add a user message (with pictures attached by ``attach_image``) and start the loop, which runs until
        idle, paused, failed or killed (``await wait(agent_id)`` for that: a task cannot cross the socket)."""
        agent = self.process(agent_id)
        if agent.killed:
            raise InvalidState(agent.id, agent.state, "send")
        if agent.busy:
            raise InvalidState(agent.id, agent.state, "send while it is working (stop or wait first)")
        pictures = self._attachments.check(agent_id, tuple(images or ()))
        if not text.strip() and not pictures and not self.turn_context.waiting(agent_id):
            raise ValueError("the message is empty")
        text, pieces = self._with_context(agent, text)
        pictures += tuple(image for piece in pieces for image in piece.images)
        turn = record_user_turn(agent, text, pictures)
        admit_context(agent, pieces, turn.seq)  # attached MCP resources, a chosen prompt: untrusted
        agent.append(Message("user", ((TextPart(text),) if text else ()) + pictures))
        agent.request_reason = USER_TURN
        self._services.bus.publish(UserMessage(agent.id, text))
        self._start(agent)

    def _with_context(self, agent: AgentProcess, text: str) -> tuple[str, tuple[ContextPiece, ...]]:
        """The user's text with what the extensions keep for this turn (agents/turn_context.py)."""
        pieces = self.turn_context.take(agent.id)
        return (with_context(text, pieces, agent.nonce) if pieces else text), pieces

    def pause(self, agent_id: str) -> None:
        """Pause at the next step (before the next model request)."""
        agent = self.process(agent_id)
        if agent.killed:
            raise InvalidState(agent.id, agent.state, "pause")
        if agent.busy:
            agent.pause_requested = True
            for told in self._services.on_pause:  # its MCP calls in flight end now (the server is told)
                told(agent.id)
        elif agent.state is not AgentState.PAUSED:
            agent.set_state(AgentState.PAUSED, "paused by the user")

    def resume(self, agent_id: str) -> None:
        """Continue a paused or interrupted agent (its state says whether there was anything to continue:
        running or idle); ``await wait(agent_id)`` waits for the work."""
        agent = self.process(agent_id)
        if not agent.state.resumable:
            raise InvalidState(agent.id, agent.state, "resume")
        agent.pause_requested = False
        if agent.needs_reply:
            agent.request_reason = RESUME
            self._start(agent)
            return
        agent.set_state(AgentState.IDLE)

    def raise_budget(self, agent_id: str, budget: int) -> AgentInfo:
        agent = self.process(agent_id)
        agent.budget = agent.budget.raised_to(budget)
        self._services.record(AgentBudget(actor=USER, subject=agent.id, budget=budget))
        self._services.bus.publish(UsageUpdated(agent.info()))
        return agent.info()

    def kill(self, agent_id: str, by: str = USER, reason: str = "killed by the user") -> AgentInfo:
        """Cancel the agent's work, revoke its leases, record the kill. Final."""
        agent = self.process(agent_id)
        if agent.killed:
            return agent.info()
        agent.set_state(AgentState.KILLED, reason)
        if agent.task is not None and not agent.task.done():
            agent.task.cancel()
        s = self._services
        s.leases.revoke_all(agent.id, "the agent was killed", by=by)
        s.record(AgentKill(actor=by, subject=agent.id, reason=reason))
        s.bus.publish(AgentKilled(agent.info(), by))
        return agent.info()

    async def wait(self, agent_id: str) -> AgentInfo:
        """Wait until the agent's current work is over; returns its state then."""
        agent = self.process(agent_id)
        if agent.task is not None:
            await asyncio.wait({agent.task})
        return agent.info()

    def _start(self, agent: AgentProcess) -> asyncio.Task[None]:
        self.ensure_expiry_watch()
        agent.set_state(AgentState.RUNNING)
        agent.task = self._loop.running().create_task(run_loop(agent), name=f"agent {agent.id}")
        agent.task.add_done_callback(_swallow_cancel)
        return agent.task

    def ensure_expiry_watch(self) -> None:
        loop = self._loop.capture()
        if loop is not None:
            self._services.leases.start_expiry_watch(loop)

    # ---- durable agents ------------------------------------------------------

    def restore(self) -> None:
        """Bring back every agent on the record that was not killed or archived (see agents.restore)."""
        s = self._services
        s.inflight.record_cut(s.ledger)  # requests a killed kernel left in flight: their tokens count
        reopen_breakers(s)  # model routes: a model that was down a minute ago is not hammered again
        restored = summarise(s.ledger, s.clock.now())
        for rec in restored.agents.values():
            if not (rec.killed or rec.archived):
                self._adopt(rec)
        s.leases.adopt([lease for lease in restored.leases if lease.subject in self.table])
        untrusted = s.ledger.page(kind=UntrustedSeen.KIND, limit=10**9)
        for agent_id, taint in taint_from(reversed(untrusted)).items():  # taint only grows, restarts included
            if agent_id in self.table:
                self.table[agent_id].taint = taint

    def _adopt(self, rec: AgentRecord) -> AgentProcess:
        if rec.dangling:  # calls that may have run: answered as interrupted, never run again; an outward
            # call's answer says how it ended, as recorded (sent, not sent, or unknown: in the Inbox)
            ledger = self._services.ledger
            ledger.append_many([replace(e, message=interrupted_words(ledger, e.cause) or e.message)
                                for e in rec.dangling])
        agent = process_from(rec, self._services)
        self.table[agent.id] = agent
        return agent

    def _record(self, agent_id: str, tails: bool = False) -> AgentRecord:
        rec = summarise(self._services.ledger, self._services.clock.now(), tails=tails).agents.get(agent_id)
        if rec is None:
            raise UnknownAgent(agent_id)
        return rec

    def archive(self, agent_id: str) -> AgentInfo:
        """Move a finished agent out of the process table into History (recorded; never deleted)."""
        agent = self.process(agent_id)
        if agent.busy or agent.state.busy:
            raise InvalidState(agent.id, agent.state, "archive while it is working (stop or wait first)")
        # out of the table nobody sees its leases to revoke them, and continuing must ask afresh
        self._services.leases.revoke_all(agent.id, "the agent was archived")
        self._services.record(AgentArchive(actor=USER, subject=agent.id))
        del self.table[agent.id]
        self._services.bus.publish(AgentArchived(agent.info()))
        return agent.info()

    def history(self, query: str = "") -> builtins.list[HistoryItem]:
        """Agents out of the process table (archived or killed), newest first; ``query`` searches
        their id, name, first prompt and model."""
        s = self._services
        restored = summarise(s.ledger, s.clock.now(), tails=False)
        answered = served_by(s)  # model routes: who answered each, when not its own model
        items = [history_item(rec, s, other_models(rec.spawn, answered.get(rec.id, set())))
                 for rec in restored.agents.values() if rec.id not in self.table and (rec.archived or rec.killed)]
        return sorted((i for i in items if i.matches(query)), key=lambda i: i.last_at, reverse=True)

    def revive(self, agent_id: str) -> AgentInfo:
        """Continue an archived agent: back in the process table with its whole conversation."""
        if agent_id in self.table:
            return self.table[agent_id].info()
        rec = self._record(agent_id)
        if rec.killed:
            raise InvalidState(agent_id, AgentState.KILLED, "continue")
        self._services.record(AgentArchive(actor=USER, subject=agent_id, archived=False))
        agent = self._adopt(self._record(agent_id, tails=True))
        # taint only grows: what it read before it was archived is on the record, as at a restart
        untrusted = self._services.ledger.page(kind=UntrustedSeen.KIND, actor=agent_id, limit=10**9)
        agent.taint = taint_from(reversed(untrusted)).get(agent_id)
        self._services.bus.publish(AgentSpawned(agent.info()))
        return agent.info()

    def spend_today(self) -> Spend:
        """Tokens and money of today's provider requests (every agent of this home)."""
        return self._spend.today()


def _swallow_cancel(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved so asyncio does not warn; run_loop already marked the agent failed
