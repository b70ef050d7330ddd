"""The channel room's plain data: a configured channel, a parsed inbound message, a session key.

Everything an adapter hands the hub is one frozen ``Inbound``; nothing the
adapter parsed is trusted: ids are strings the gate compares exactly, text is
untrusted content. A DM and a group are different ``ChatKind``s, and the
pairing subject includes the kind, so no DM approval can ever cover a group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from ..core.errors import KernelError

ChatKind = Literal["dm", "group"]
KINDS = ("telegram", "webchat", "slack", "discord", "whatsapp")
# How long one message may be on each channel (characters); longer replies are split.
LIMITS = {"telegram": 4096, "webchat": 16000, "slack": 4000, "discord": 2000, "whatsapp": 4096}
# Where a reply can be streamed by editing the message it started as, and the least time between two edits
# of one message (seconds): Telegram allows about one edit a second per chat, Slack's chat.update is a
# Tier 3 method (about 50 a minute), Discord allows 5 edits per 5 s per channel. WhatsApp cannot edit.
EDIT_EVERY_S: dict[str, float | None] = {"telegram": 1.0, "webchat": 0.1, "slack": 1.2, "discord": 1.0,
                                         "whatsapp": None}
# Who reaches an agent: "pairing" (the default: an unknown sender gets a code, the owner approves) or
# "open" (anyone who can write to the channel, no pairing: a named policy the user chooses deliberately;
# there is no wildcard pairing). Either way the messages are untrusted and a sender never answers a lease.
ACCESS = ("pairing", "open")
OPEN_WARNING = ("is OPEN: anyone who can write to it reaches an agent, without a pairing code or your approval. "
                "Their messages stay untrusted and they can never answer a lease request, but they spend the "
                "channel's budget and use the leases its policy grants.")
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
DEFAULT_PAIRING_TTL_S = 3600.0


class ChannelError(KernelError):
    """A channel cannot be configured, found or paired as asked (``reason`` says why)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ChannelPolicy:
    scope: str
    duration_s: float


@dataclass(frozen=True)
class ChannelConfig:
    """One configured channel: its adapter, where it talks to, and what its agents get."""

    name: str
    kind: str
    base_url: str = ""          # the API's base URL (a local fake in tests); "" for the real service
    listen: str = ""            # WebChat / the WhatsApp webhook: host:port to serve on ("127.0.0.1:0")
    provider: str = ""
    model: str = ""
    budget: int = 100_000
    workspace: str = ""
    policy: tuple[ChannelPolicy, ...] = ()
    pairing_ttl_s: float = DEFAULT_PAIRING_TTL_S
    options: Mapping[str, str] = field(default_factory=dict)  # per-kind, non-secret (phone id, app id)
    access: str = "pairing"     # ACCESS: "open" lets anyone in without pairing (chosen deliberately)

    @property
    def open(self) -> bool:
        return self.access == "open"

    def check(self) -> None:
        if not _NAME.match(self.name):
            raise ChannelError(f"a channel name is 1-32 lowercase letters, digits, - or _ (got {self.name!r})")
        if self.kind not in KINDS:
            raise ChannelError(f"unknown channel kind {self.kind!r}: one of {', '.join(KINDS)}")
        if self.budget <= 0:
            raise ChannelError("a channel's budget must be a positive number of tokens")
        if self.access not in ACCESS:
            raise ChannelError(f"a channel's access is {' or '.join(ACCESS)} (got {str(self.access)[:40]!r})")
        if not 60 <= self.pairing_ttl_s <= 7 * 86400:
            raise ChannelError("a pairing code lives between one minute and seven days")
        if self.listen and not self.listen.startswith(("127.0.0.1:", "[::1]:", "localhost:")) \
                and self.kind == "webchat":
            raise ChannelError("WebChat listens on loopback only (127.0.0.1:PORT)")
        for item in self.policy:
            if item.scope in ("", "*") or item.duration_s <= 0:
                raise ChannelError(f"a policy item needs a scope and a positive duration (got {item.scope!r})")

    @property
    def token_name(self) -> str:
        """The key store's name for this channel's token (never in channels.json)."""
        return f"channel:{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "base_url": self.base_url, "listen": self.listen,
                "provider": self.provider, "model": self.model, "budget": self.budget,
                "workspace": self.workspace, "policy": [[p.scope, p.duration_s] for p in self.policy],
                "pairing_ttl_s": self.pairing_ttl_s, "options": dict(self.options),
                "access": self.access}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChannelConfig:
        try:
            policy = tuple(ChannelPolicy(str(s), float(d)) for s, d in data.get("policy", []))
            options = {str(k): str(v) for k, v in dict(data.get("options", {})).items()}
            return cls(name=str(data["name"]), kind=str(data["kind"]), base_url=str(data.get("base_url", "")),
                       listen=str(data.get("listen", "")), provider=str(data.get("provider", "")),
                       model=str(data.get("model", "")), budget=int(data.get("budget", 100_000)),
                       workspace=str(data.get("workspace", "")), policy=policy,
                       pairing_ttl_s=float(data.get("pairing_ttl_s", DEFAULT_PAIRING_TTL_S)), options=options,
                       access=str(data.get("access", "pairing")))
        except (KeyError, TypeError, ValueError) as exc:
            raise ChannelError(f"a channel entry in channels.json is malformed ({exc})") from None


@dataclass(frozen=True)
class Inbound:
    """One message as an adapter parsed it, before anything else happens."""

    channel: str                # the configured channel's name
    chat: str
    chat_kind: ChatKind
    sender: str
    message_id: str
    text: str = ""
    sender_name: str = ""
    sender_is_bot: bool = False
    media: tuple[str, ...] = ()  # the channel's ids of attached files (downloaded only after the gate)

    @property
    def subject(self) -> Subject:
        return Subject(self.channel, self.chat_kind, self.chat, self.sender)


@dataclass(frozen=True)
class Subject:
    """Who a pairing covers: exactly one sender in exactly one chat of one kind on one channel."""

    channel: str
    chat_kind: ChatKind
    chat: str
    sender: str

    def words(self) -> str:
        where = "direct messages" if self.chat_kind == "dm" else f"group {self.chat}"
        return f"{self.sender} on {self.channel} ({where})"


@dataclass(frozen=True)
class ChannelView:
    """A configured channel as the desk lists it (never its token)."""

    config: ChannelConfig
    running: bool
    problem: str = ""          # why it is not running, in words
    address: str = ""          # WebChat: the page's URL (without its token)


@dataclass(frozen=True)
class PairingView:
    """A pending code or a pairing in force."""

    channel: str
    chat_kind: str
    chat: str
    sender: str
    sender_name: str = ""
    code: str = ""             # "" for a pairing in force
    expires: float = 0.0
