"""The channel hub: configured adapters, and the pipeline every inbound message goes through.

parse (the adapter) → claim (exactly once) → gate (pairing, loop guard) →
only then the session's side effects. ``deliver`` claims synchronously, so
the adapter acknowledges right after, and schedules the rest. Each adapter
starts only when its channel is configured and its token is in the key store;
the token is held by the ledger's redactor before the adapter sees it. The
hub also serves the channels desk (``kernel.api.ChannelDesk``): list, add,
remove, test, pending codes, approve, revoke.
"""

from __future__ import annotations

import builtins

import asyncio
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Coroutine

from ledger import USER

from ..core.errors import ToolFailure
from ..tools.outward import NotDone

from .adapters import make_adapter
from .gate import Admit, Drop, Reply, judge
from .inbound import InboundClaims
from .loop_guard import LoopGuard
from .model import ChannelConfig, ChannelError, ChannelView, Inbound, PairingView, Subject
from .pairing import PairingBook
from .send_file import NAME as SEND_FILE, send_file_tool
from .sessions import Sessions

if TYPE_CHECKING:
    from ledger import Ledger

    from ..redaction import SecretRegistry
    from ..tools.registry import ToolRegistry
    from ..workspace.root import Workspace
    from .adapters.base import Adapter
    from .approver import ChannelApprover
    from .host import ChannelHost
    from .store import ChannelStore


@dataclass
class Figures:
    """What the hub did, counted (tests and the benchmark read them)."""

    claimed: int = 0
    redelivered: int = 0
    admitted: int = 0
    pairing_replies: int = 0
    dropped: dict[str, int] = field(default_factory=dict)


class ChannelHub:
    def __init__(self, host: ChannelHost, ledger: Ledger, store: ChannelStore, approver: ChannelApprover,
                 token: Callable[[str], str | None], secrets: SecretRegistry,
                 tools: ToolRegistry | None = None) -> None:
        self._host = host
        self._tools = tools
        self._store = store
        self._token = token
        self._secrets = secrets
        self.claims = InboundClaims(ledger.path)
        self.book = PairingBook(ledger, host.clock.now)
        self.guard = LoopGuard(host.clock.now)
        self.sessions = Sessions(host, approver)
        self.figures = Figures()
        self.adapters: dict[str, Adapter] = {}
        self._problems: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- lifecycle -------------------------------------------------------------------

    async def start(self) -> builtins.list[str]:
        """Start every configured channel; a sentence for each that could not."""
        problems = []
        try:
            configs = self._store.list()
        except ChannelError as exc:
            return [exc.reason]
        for config in configs:
            problem = await self._start(config)
            if problem:
                problems.append(f"channel {config.name}: {problem}")
        return problems

    async def _start(self, config: ChannelConfig) -> str:
        await self._stop(config.name)
        token = self._token(config.token_name) or ""
        if config.kind != "webchat" and not token:
            self._problems[config.name] = "no token in the key store (agentdesk channel add)"
            return self._problems[config.name]
        for part in {token, *token.split()} - {""}:  # Slack's is two tokens: each is held
            self._secrets.add(part, config.token_name)
        try:
            adapter = make_adapter(config, token)
            await adapter.start(lambda inbound: self.deliver(config.name, inbound))
        except Exception as exc:  # noqa: BLE001 - one channel that cannot start leaves the others running
            self._problems[config.name] = f"could not start: {type(exc).__name__}: {exc}"
            return self._problems[config.name]
        self._problems.pop(config.name, None)
        self.adapters[config.name] = adapter
        if self._tools is not None and SEND_FILE not in self._tools:  # offered once a channel runs
            self._tools.add(send_file_tool(lambda: self))
        return ""

    async def _stop(self, name: str) -> None:
        adapter = self.adapters.pop(name, None)
        if adapter is not None:
            await adapter.stop()

    async def stop_adapters(self) -> None:
        """No more messages come in (the work already taken in goes on)."""
        for name in list(self.adapters):
            await self._stop(name)

    async def stop(self) -> None:
        await self.stop_adapters()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        self.claims.close()

    async def drain(self) -> None:
        """Wait until every message taken in so far has been dealt with (tests, shutdown)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    # ---- the pipeline ----------------------------------------------------------------

    def deliver(self, channel: str, inbound: Inbound) -> bool:
        """Claim ``inbound`` (False: a redelivery, dropped) and schedule the rest; returns at once."""
        if inbound.channel != channel:  # an adapter speaks for its own channel only
            inbound = replace(inbound, channel=channel)
        if not self.claims.claim(channel, inbound.chat, inbound.message_id, self._host.clock.now()):
            self.figures.redelivered += 1
            return False
        self.figures.claimed += 1
        self._spawn(self._work(inbound))
        return True

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _work(self, inbound: Inbound) -> None:
        adapter = self.adapters.get(inbound.channel)
        try:
            config = self._store.get(inbound.channel)
        except ChannelError:
            return
        if adapter is None:
            return
        verdict = judge(inbound, self.book, self.guard, config.pairing_ttl_s,
                        adapter.own_ids | {adapter.account} - {""}, open_to_anyone=config.open)
        if isinstance(verdict, Drop):
            self.figures.dropped[verdict.why] = self.figures.dropped.get(verdict.why, 0) + 1
        elif isinstance(verdict, Reply):
            self.figures.pairing_replies += 1
            await adapter.send(inbound.chat, verdict.text)
        else:
            assert isinstance(verdict, Admit)
            await self._admitted(config, adapter, inbound)

    async def _admitted(self, config: ChannelConfig, adapter: Adapter, inbound: Inbound) -> None:
        self.figures.admitted += 1
        try:
            await self.sessions.handle(config, adapter, inbound)
        except Exception as exc:  # noqa: BLE001 - one message that fails is said in the chat, the hub goes on
            await adapter.send(inbound.chat, f"(this message could not be handled: {type(exc).__name__})")

    # ---- what channel_send_file asks (send_file.py) ----------------------------------

    def where(self, agent_id: str) -> str | None:
        """The chat ``agent_id`` answers, in words, or None when it is no channel's agent."""
        found = self.sessions.where(agent_id)
        if found is None:
            return None
        channel, chat, kind = found
        return f"{'the direct messages' if kind == 'dm' else 'the group'} {chat} on channel {channel}"

    def file_limit(self, agent_id: str) -> tuple[str, int]:
        """The service of the chat ``agent_id`` answers, by name, and the largest file its adapter declares it
        takes from a bot, in bytes (0: none, or the channel is not running)."""
        found = self.sessions.where(agent_id)
        adapter = self.adapters.get(found[0]) if found is not None else None
        return (adapter.service, adapter.max_file_bytes) if adapter is not None else ("", 0)

    def workspace_of(self, agent_id: str) -> Workspace:
        return self._host.process(agent_id).root

    async def send_file(self, agent_id: str, name: str, data: bytes, caption: str) -> str:
        """Send ``data`` as a file named ``name`` to the chat ``agent_id`` answers; the message's id."""
        found = self.sessions.where(agent_id)
        adapter = self.adapters.get(found[0]) if found is not None else None
        if found is None or adapter is None:
            raise NotDone("the chat you answer is not reachable now (its channel is not running)")
        try:
            return await adapter.send_file(found[1], name, data, caption)
        except ChannelError as exc:  # the adapter knows nothing reached the chat (refused, or stopped before)
            raise NotDone(exc.reason) from None
        except Exception as exc:  # noqa: BLE001 - it may have reached the chat: unknown, said without the
            # library's text (which can quote a URL or a server's reply)
            raise ToolFailure(f"{adapter.service} gave no clear answer ({type(exc).__name__})") from None

    # ---- the desk --------------------------------------------------------------------

    def list(self) -> builtins.list[ChannelView]:
        return [ChannelView(c, c.name in self.adapters, self._problems.get(c.name, ""),
                            getattr(self.adapters.get(c.name), "address", ""))
                for c in self._store.list()]

    async def add(self, config: ChannelConfig) -> ChannelView:
        """Save ``config`` (its token must already be in the key store) and (re)start its adapter."""
        config.check()
        self._store.put(config)
        await self._start(config)
        return next(v for v in self.list() if v.config.name == config.name)

    async def remove(self, name: str) -> bool:
        await self._stop(name)
        self._problems.pop(name, None)
        self.book.forget_channel(name)
        return self._store.remove(name)

    async def test(self, name: str) -> str:
        """Who the channel's token is on its service, in words (ChannelError when it does not work)."""
        adapter = self.adapters.get(name)
        if adapter is None:
            config = self._store.get(name)
            raise ChannelError(self._problems.get(name) or f"channel {config.name} is not running")
        return await adapter.check()

    def pending(self) -> builtins.list[PairingView]:
        return [PairingView(p.subject.channel, p.subject.chat_kind, p.subject.chat, p.subject.sender,
                            p.sender_name, p.code, p.expires) for p in self.book.pending()]

    def paired(self) -> builtins.list[PairingView]:
        return [PairingView(s.channel, s.chat_kind, s.chat, s.sender) for s in self.book.subjects()]

    def approve(self, code: str) -> PairingView:
        """Pair the sender of ``code``; the message that asked is answered now."""
        pending = self.book.approve(code, by=USER)
        s = pending.subject
        first = pending.first
        if first is not None and s.channel in self.adapters:
            adapter = self.adapters[s.channel]
            config = self._store.get(s.channel)
            self._spawn(self._admitted(config, adapter, first))
        return PairingView(s.channel, s.chat_kind, s.chat, s.sender, pending.sender_name, pending.code,
                           pending.expires)

    def deny(self, code: str) -> PairingView:
        """Refuse the sender of ``code``: the code is gone (recorded), and the sender hears nothing more until it
        would have expired."""
        pending = self.book.deny(code, by=USER)
        s = pending.subject
        return PairingView(s.channel, s.chat_kind, s.chat, s.sender, pending.sender_name, pending.code,
                           pending.expires)

    def revoke(self, channel: str, chat_kind: str, chat: str, sender: str) -> bool:
        if chat_kind not in ("dm", "group"):
            raise ChannelError("chat_kind is dm or group")
        return self.book.revoke(Subject(channel, chat_kind, chat, sender), by=USER)  # type: ignore[arg-type]
