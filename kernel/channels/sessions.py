"""Sessions: each (channel, account, chat, sender) talks to one agent, one message at a time.

Only an ``Admit`` from the gate gets here. Then, in order: the typing
indicator, the session's agent (spawned on first use with the channel's
provider, model, budget and workspace, its policy's leases granted by
``channel:<name>``), media downloads (a photo becomes an ``ImagePart``: fitted
once, untrusted, origin "channel"; anything else a one-line note), the
``channel.message`` entry, and the message itself, wrapped in provenance
markers and admitted as untrusted (the agent is tainted before the model
reads it). The reply streams back through ``Streamer``. A killed agent is
replaced by a fresh one at the session's next message.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ledger import ChannelMessage

from ..agents.provenance import admit_untrusted
from ..core.errors import ImageRefused, KernelError
from ..core.events import Event, TextDelta
from ..core.messages import ImagePart, TextPart
from ..core.states import AgentState
from ..trust.markers import wrap
from .model import EDIT_EVERY_S, LIMITS, ChannelConfig, Inbound
from .stream import Streamer

if TYPE_CHECKING:
    from .adapters.base import Adapter
    from .approver import ChannelApprover
    from .host import ChannelHost

MAX_MEDIA = 4
ENDED = (AgentState.KILLED, AgentState.FAILED)


@dataclass
class Session:
    agent: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    chat_kind: str = "dm"


def actor(config: ChannelConfig) -> str:
    return f"channel:{config.name}"


class Sessions:
    def __init__(self, host: ChannelHost, approver: ChannelApprover) -> None:
        self._host = host
        self._approver = approver
        self._sessions: dict[tuple[str, str, str, str], Session] = {}

    def agent_of(self, channel: str, account: str, chat: str, sender: str) -> str | None:
        found = self._sessions.get((channel, account, chat, sender))
        return None if found is None else found.agent

    def where(self, agent_id: str) -> tuple[str, str, str] | None:
        """The (channel, chat, chat kind) ``agent_id`` answers, or None when it is no channel's agent."""
        for (channel, _account, chat, _sender), session in self._sessions.items():
            if session.agent == agent_id:
                return channel, chat, session.chat_kind
        return None

    async def handle(self, config: ChannelConfig, adapter: Adapter, inbound: Inbound) -> list[str]:
        """Answer one admitted message; the reply's pieces as sent."""
        session = self._sessions.setdefault((inbound.channel, adapter.account, inbound.chat, inbound.sender),
                                            Session(chat_kind=inbound.chat_kind))
        async with session.lock:
            await adapter.typing(inbound.chat)
            agent_id = self._agent(config, session, inbound)
            who = inbound.sender_name or inbound.sender
            taken = [await self._media(adapter, agent_id, m, f"{config.kind} photo from {who}")
                     for m in inbound.media[:MAX_MEDIA]]
            notes = [t for t in taken if isinstance(t, str)]
            pictures = tuple(t for t in taken if isinstance(t, ImagePart))
            entry = self._host.record(ChannelMessage(
                actor=actor(config), channel=inbound.channel, account=adapter.account, chat=inbound.chat,
                chat_kind=inbound.chat_kind, sender=inbound.sender, message_id=inbound.message_id, agent=agent_id,
                text=inbound.text, media=len(inbound.media)))
            content = "\n".join([inbound.text, *notes]).strip() or \
                ("(a picture)" if pictures else "(an empty message)")
            source = f"{config.kind} {inbound.chat_kind} from {inbound.sender}"
            process = self._host.process(agent_id)
            admit_untrusted(process, "channel", source, content, entry.seq)
            text = (f"A message from {who} on {config.name} ({config.kind}, "
                    f"{'direct message' if inbound.chat_kind == 'dm' else 'group ' + inbound.chat}). "
                    "Your reply goes back to that chat.\n" + wrap(content, source, process.nonce))
            streamer = Streamer(adapter, inbound.chat, LIMITS[config.kind], EDIT_EVERY_S[config.kind],
                                self._host.clock.now)

            def on(event: Event) -> None:
                if isinstance(event, TextDelta) and event.agent_id == agent_id:
                    streamer.delta(event.text)

            unsubscribe = self._host.subscribe(on)
            before = len(process.conversation)
            try:
                self._host.send(agent_id, text, pictures)
                info = await self._host.wait(agent_id)
            finally:
                unsubscribe()
            return await streamer.finish(_final_text(process.conversation[before:]) or _stopped(info.state, info.reason))

    def _agent(self, config: ChannelConfig, session: Session, inbound: Inbound) -> str:
        if session.agent is not None:
            try:
                if self._host.process(session.agent).state not in ENDED:
                    return session.agent
            except KernelError:  # archived or gone from the table: a fresh agent
                pass
        who = inbound.sender_name or inbound.sender
        info = self._host.spawn(f"{config.name} · {who}"[:80], provider=config.provider or None,
                                model=config.model or None, budget=config.budget,
                                workspace=config.workspace or None)
        self._approver.agents[info.id] = config.name
        for item in config.policy:
            self._host.grant_lease(info.id, item.scope, item.duration_s, by=actor(config))
        session.agent = info.id
        return info.id

    async def _media(self, adapter: Adapter, agent_id: str, media_id: str, label: str) -> ImagePart | str:
        """An attachment as a picture the agent is shown (fitted, untrusted, origin "channel"), or a note
        saying why not (it could not be fetched, or it is not a picture: a PDF, a voice message)."""
        try:
            data = await adapter.download(media_id)
        except Exception as exc:  # noqa: BLE001 - a file that cannot be fetched is said, not fatal
            return f"[an attachment could not be downloaded: {type(exc).__name__}]"
        try:
            return await self._host.ingest_image(agent_id, data, label)
        except ImageRefused as exc:
            return f"[an attachment of {len(data):,} bytes that is not a picture the agent can see: {exc.message}]"


def _final_text(conversation: tuple[object, ...]) -> str:
    for message in reversed(conversation):
        if getattr(message, "role", "") == "assistant":
            text = "".join(p.text for p in getattr(message, "parts", ()) if isinstance(p, TextPart))
            if text.strip():
                return text.strip()
    return ""


def _stopped(state: AgentState, reason: str) -> str:
    return f"(the agent stopped without a reply: {state}{': ' + reason if reason else ''})"
