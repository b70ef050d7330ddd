"""The client's plain stubs: one per method the kernel service serves (generated: do not edit).

Written by ``python -m kernel.service.stubgen`` from ``kernel.api`` (the facade and its desks) and
``kernel.service.methods``; what caches or converts is written by hand in ``client.py``.
"""

from __future__ import annotations

import builtins
from typing import cast, Protocol, Sequence, TYPE_CHECKING

from ..api import LedgerFilter

if TYPE_CHECKING:
    from ..api import (AgentInfo, Automation, AutomationView, ChainBroken, ChainIntact, ChannelConfig,
        ChannelView, Checking, Decision, ElicitQuestion, Entry, HistoryItem, ImagePart, InboxItem, Integrity,
        Lease, LeaseRequest, Mapping, McpAttached, McpPrompt, McpPromptUsed, McpReload, McpResource,
        McpServerStatus, Message, OverlayStatus, PairingView, ReplySoFar, RunRecord, SkillCatalog, Thumbnail,
        ToolInfo, UndoReport, UnknownIntent)


class Link(Protocol):
    """How a stub reaches the kernel: a blocking call, or one awaited on the events connection."""

    def call(self, method: str, params: dict[str, object]) -> object: ...
    async def acall(self, method: str, params: dict[str, object]) -> object: ...


class RemoteAgentDesk:
    """``kernel.api.AgentDesk`` over the socket: each method is ``agents.<method>``."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None, unattended: bool = False, fallbacks: tuple[str, ...] | None = None, any_vendor: bool = False) -> AgentInfo:
        return cast("AgentInfo", self._link.call("agents.spawn",
            {"name": name, "provider": provider, "model": model, "budget": budget, "workspace": workspace, "unattended": unattended, "fallbacks": fallbacks, "any_vendor": any_vendor}))

    def list(self) -> builtins.list[AgentInfo]:
        return cast("builtins.list[AgentInfo]", self._link.call("agents.list", {}))

    def get(self, agent_id: str) -> AgentInfo:
        return cast("AgentInfo", self._link.call("agents.get", {"agent_id": agent_id}))

    def conversation(self, agent_id: str) -> tuple[Message, ...]:
        return cast("tuple[Message, ...]", self._link.call("agents.conversation", {"agent_id": agent_id}))

    def reply_so_far(self, agent_id: str) -> ReplySoFar:
        return cast("ReplySoFar", self._link.call("agents.reply_so_far", {"agent_id": agent_id}))

    def send(self, agent_id: str, text: str, images: tuple[ImagePart, ...] | None = None) -> None:
        self._link.call("agents.send", {"agent_id": agent_id, "text": text, "images": images})

    async def attach_image(self, agent_id: str, data_b64: str, origin: str = "paste", label: str = "") -> ImagePart:
        return cast("ImagePart", await self._link.acall("agents.attach_image",
            {"agent_id": agent_id, "data_b64": data_b64, "origin": origin, "label": label}))

    def pause(self, agent_id: str) -> None:
        self._link.call("agents.pause", {"agent_id": agent_id})

    def resume(self, agent_id: str) -> None:
        self._link.call("agents.resume", {"agent_id": agent_id})

    def compact(self, agent_id: str, focus: str = "") -> None:
        self._link.call("agents.compact", {"agent_id": agent_id, "focus": focus})

    def raise_budget(self, agent_id: str, budget: int) -> AgentInfo:
        return cast("AgentInfo", self._link.call("agents.raise_budget", {"agent_id": agent_id, "budget": budget}))

    def kill(self, agent_id: str, by: str = "user", reason: str = "killed by the user") -> AgentInfo:
        return cast("AgentInfo", self._link.call("agents.kill", {"agent_id": agent_id, "by": by, "reason": reason}))

    async def wait(self, agent_id: str) -> AgentInfo:
        return cast("AgentInfo", await self._link.acall("agents.wait", {"agent_id": agent_id}))

    def archive(self, agent_id: str) -> AgentInfo:
        return cast("AgentInfo", self._link.call("agents.archive", {"agent_id": agent_id}))

    def history(self, query: str = "") -> builtins.list[HistoryItem]:
        return cast("builtins.list[HistoryItem]", self._link.call("agents.history", {"query": query}))

    def revive(self, agent_id: str) -> AgentInfo:
        return cast("AgentInfo", self._link.call("agents.revive", {"agent_id": agent_id}))


class RemoteLeaseDesk:
    """``kernel.api.LeaseDesk`` over the socket: each method is ``leases.<method>``."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def list(self, agent_id: str | None = None) -> builtins.list[Lease]:
        return cast("builtins.list[Lease]", self._link.call("leases.list", {"agent_id": agent_id}))

    def grant(self, agent_id: str, scope: str, duration_s: float) -> Lease:
        return cast("Lease", self._link.call("leases.grant",
            {"agent_id": agent_id, "scope": scope, "duration_s": duration_s}))

    def revoke(self, lease_id: int) -> Lease | None:
        return cast("Lease | None", self._link.call("leases.revoke", {"lease_id": lease_id}))

    def pending(self) -> builtins.list[LeaseRequest]:
        return cast("builtins.list[LeaseRequest]", self._link.call("leases.pending", {}))

    def resolve(self, request_id: int, decision: Decision) -> bool:
        return cast("bool", self._link.call("leases.resolve", {"request_id": request_id, "decision": decision}))


class RemoteLedgerDesk:
    """``kernel.api.LedgerDesk`` over the socket: each method is ``ledger.<method>``."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def page(self, filters: LedgerFilter = LedgerFilter(), *, before: int | None = None, after: int | None = None,
             limit: int = 200) -> builtins.list[Entry]:
        return cast("builtins.list[Entry]", self._link.call("ledger.page",
            {"filters": filters, "before": before, "after": after, "limit": limit}))

    def integrity(self) -> Integrity | Checking:
        return cast("Integrity | Checking", self._link.call("ledger.integrity", {}))

    def count(self) -> int:
        return cast("int", self._link.call("ledger.count", {}))

    def last_seq(self) -> int:
        return cast("int", self._link.call("ledger.last_seq", {}))

    def caused_by(self, seq: int) -> builtins.list[Entry]:
        return cast("builtins.list[Entry]", self._link.call("ledger.caused_by", {"seq": seq}))

    def undone_by(self, seqs: Sequence[int]) -> dict[int, int]:
        return cast("dict[int, int]", self._link.call("ledger.undone_by", {"seqs": seqs}))

    def diff(self, seq: int) -> str:
        return cast("str", self._link.call("ledger.diff", {"seq": seq}))

    async def picture(self, sha256: str) -> str | None:
        return cast("str | None", await self._link.acall("ledger.picture", {"sha256": sha256}))

    async def thumbnail(self, sha256: str, edge: int = 256) -> Thumbnail | None:
        return cast("Thumbnail | None", await self._link.acall("ledger.thumbnail", {"sha256": sha256, "edge": edge}))

    def undo(self, after_seq: int, *, only_actor: str | None = None, dry_run: bool = False) -> UndoReport:
        return cast("UndoReport", self._link.call("ledger.undo",
            {"after_seq": after_seq, "only_actor": only_actor, "dry_run": dry_run}))


class RemoteExtensionDesk:
    """``kernel.api.ExtensionDesk`` over the socket: each method is ``extensions.<method>``."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def mcp_status(self) -> builtins.list[McpServerStatus]:
        return cast("builtins.list[McpServerStatus]", self._link.call("extensions.mcp_status", {}))

    async def mcp_reload(self) -> McpReload:
        return cast("McpReload", await self._link.acall("extensions.mcp_reload", {}))

    def questions(self) -> builtins.list[ElicitQuestion]:
        return cast("builtins.list[ElicitQuestion]", self._link.call("extensions.questions", {}))

    def answer_question(self, question_id: int, action: str, content: Mapping[str,
                        str | int | float | bool | builtins.list[str] | None] | None = None) -> bool:
        return cast("bool", self._link.call("extensions.answer_question",
            {"question_id": question_id, "action": action, "content": content}))

    async def mcp_resources(self) -> builtins.list[McpResource]:
        return cast("builtins.list[McpResource]", await self._link.acall("extensions.mcp_resources", {}))

    async def mcp_attach(self, agent_id: str, server: str, uri: str) -> McpAttached:
        return cast("McpAttached", await self._link.acall("extensions.mcp_attach",
            {"agent_id": agent_id, "server": server, "uri": uri}))

    async def mcp_prompts(self) -> builtins.list[McpPrompt]:
        return cast("builtins.list[McpPrompt]", await self._link.acall("extensions.mcp_prompts", {}))

    async def mcp_complete(self, server: str, prompt: str, argument: str, value: str, context: dict[str,
                           str] | None = None) -> builtins.list[str]:
        return cast("builtins.list[str]", await self._link.acall("extensions.mcp_complete",
            {"server": server, "prompt": prompt, "argument": argument, "value": value, "context": context}))

    async def mcp_use_prompt(self, agent_id: str, command: str) -> McpPromptUsed:
        return cast("McpPromptUsed", await self._link.acall("extensions.mcp_use_prompt",
            {"agent_id": agent_id, "command": command}))

    async def skills(self, workspace: str | None = None) -> SkillCatalog:
        return cast("SkillCatalog", await self._link.acall("extensions.skills", {"workspace": workspace}))

    async def set_skill_enabled(self, folder: str, sha256: str, enabled: bool, mine: bool = False,
                                workspace: str | None = None) -> SkillCatalog:
        return cast("SkillCatalog", await self._link.acall("extensions.set_skill_enabled",
            {"folder": folder, "sha256": sha256, "enabled": enabled, "mine": mine, "workspace": workspace}))


class RemoteOutwardDesk:
    """``kernel.api.OutwardDesk`` over the socket: each method is ``outward.<method>``."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def unknown(self) -> builtins.list[UnknownIntent]:
        return cast("builtins.list[UnknownIntent]", self._link.call("outward.unknown", {}))

    def settle(self, intent_seq: int, sent: bool) -> None:
        self._link.call("outward.settle", {"intent_seq": intent_seq, "sent": sent})

    async def recheck(self, intent_seq: int) -> str:
        return cast("str", await self._link.acall("outward.recheck", {"intent_seq": intent_seq}))


class RemoteAutomationDesk:
    """``kernel.api.AutomationDesk`` over the socket: each method is ``automations.<method>``."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def check(self, automation: Automation) -> None:
        self._link.call("automations.check", {"automation": automation})

    def add(self, automation: Automation, by: str = "user") -> Automation:
        return cast("Automation", self._link.call("automations.add", {"automation": automation, "by": by}))

    def update(self, automation: Automation, by: str = "user") -> Automation:
        return cast("Automation", self._link.call("automations.update", {"automation": automation, "by": by}))

    def pause(self, automation_id: str, by: str = "user") -> Automation:
        return cast("Automation", self._link.call("automations.pause", {"automation_id": automation_id, "by": by}))

    def resume(self, automation_id: str, by: str = "user") -> Automation:
        return cast("Automation", self._link.call("automations.resume", {"automation_id": automation_id, "by": by}))

    def delete(self, automation_id: str, by: str = "user") -> None:
        self._link.call("automations.delete", {"automation_id": automation_id, "by": by})

    def get(self, automation_id: str) -> Automation:
        return cast("Automation", self._link.call("automations.get", {"automation_id": automation_id}))

    def list(self) -> builtins.list[AutomationView]:
        return cast("builtins.list[AutomationView]", self._link.call("automations.list", {}))

    def runs(self, automation_id: str, limit: int = 100) -> builtins.list[RunRecord]:
        return cast("builtins.list[RunRecord]", self._link.call("automations.runs",
            {"automation_id": automation_id, "limit": limit}))

    def history(self, automation_id: str) -> builtins.list[tuple[float, str, str]]:
        return cast("builtins.list[tuple[float, str, str]]", self._link.call("automations.history",
            {"automation_id": automation_id}))

    def run_now(self, automation_id: str) -> bool:
        return cast("bool", self._link.call("automations.run_now", {"automation_id": automation_id}))

    def inbox(self, *, open_only: bool = True) -> builtins.list[InboxItem]:
        return cast("builtins.list[InboxItem]", self._link.call("automations.inbox", {"open_only": open_only}))

    def add_to_policy(self, item_id: int, duration_s: float) -> Automation:
        return cast("Automation", self._link.call("automations.add_to_policy",
            {"item_id": item_id, "duration_s": duration_s}))

    def dismiss(self, item_id: int) -> None:
        self._link.call("automations.dismiss", {"item_id": item_id})

    def integrity(self) -> ChainIntact | ChainBroken | Checking:
        return cast("ChainIntact | ChainBroken | Checking", self._link.call("automations.integrity", {}))


class RemoteChannelDesk:
    """``kernel.api.ChannelDesk`` over the socket: each method is ``channels.<method>``."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def list(self) -> builtins.list[ChannelView]:
        return cast("builtins.list[ChannelView]", self._link.call("channels.list", {}))

    async def add(self, config: ChannelConfig) -> ChannelView:
        return cast("ChannelView", await self._link.acall("channels.add", {"config": config}))

    async def remove(self, name: str) -> bool:
        return cast("bool", await self._link.acall("channels.remove", {"name": name}))

    async def test(self, name: str) -> str:
        return cast("str", await self._link.acall("channels.test", {"name": name}))

    def pending(self) -> builtins.list[PairingView]:
        return cast("builtins.list[PairingView]", self._link.call("channels.pending", {}))

    def paired(self) -> builtins.list[PairingView]:
        return cast("builtins.list[PairingView]", self._link.call("channels.paired", {}))

    def approve(self, code: str) -> PairingView:
        return cast("PairingView", self._link.call("channels.approve", {"code": code}))

    def deny(self, code: str) -> PairingView:
        return cast("PairingView", self._link.call("channels.deny", {"code": code}))

    def revoke(self, channel: str, chat_kind: str, chat: str, sender: str) -> bool:
        return cast("bool", self._link.call("channels.revoke",
            {"channel": channel, "chat_kind": chat_kind, "chat": chat, "sender": sender}))


class RemoteFacadeStubs:
    """The facade's own methods and its desks over the socket (``RemoteKernel`` adds the rest)."""

    _link: Link

    @property
    def agents(self) -> RemoteAgentDesk:
        return RemoteAgentDesk(self._link)

    @property
    def leases(self) -> RemoteLeaseDesk:
        return RemoteLeaseDesk(self._link)

    @property
    def ledger(self) -> RemoteLedgerDesk:
        return RemoteLedgerDesk(self._link)

    @property
    def extensions(self) -> RemoteExtensionDesk:
        return RemoteExtensionDesk(self._link)

    @property
    def outward(self) -> RemoteOutwardDesk:
        return RemoteOutwardDesk(self._link)

    @property
    def automations(self) -> RemoteAutomationDesk:
        return RemoteAutomationDesk(self._link)

    @property
    def channels(self) -> RemoteChannelDesk:
        return RemoteChannelDesk(self._link)

    def provider_problem(self, provider: str) -> str | None:
        return cast("str | None", self._link.call("provider_problem", {"provider": provider}))

    def hold_secret(self, value: str, label: str = "secret") -> bool:
        return cast("bool", self._link.call("hold_secret", {"value": value, "label": label}))

    def tools(self) -> list[ToolInfo]:
        return cast("list[ToolInfo]", self._link.call("tools", {}))

    async def sandbox_mode(self, workspace: str | None = None) -> OverlayStatus:
        return cast("OverlayStatus", await self._link.acall("sandbox_mode", {"workspace": workspace}))
