"""Typed, frozen ledger entries.

Each kind of entry is one frozen dataclass with a ``KIND`` (its topic in the
store) and a ``VERSION`` (the shape of its stored fields; ``from_row`` upcasts
older rows and refuses newer ones, see ``upcast``). Fields that queries
filter or join on live in their own indexed columns; the rest of an entry is
a JSON body. ``seq`` and ``ts`` are assigned by the ledger when the entry is
appended; an entry built by a caller leaves them at their defaults.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, ClassVar, Mapping

from .errors import NewerVersion, UnknownKind

# Columns of the entries table that hold entry fields directly; every other
# field of an entry travels in the JSON ``body`` column.
COLUMN_FIELDS = ("tool", "scope", "path", "cause", "lease", "before", "after", "reverts")


@dataclass(frozen=True, kw_only=True)
class Entry:
    """Fields every entry has."""

    KIND: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1

    actor: str
    seq: int = 0
    ts: float = 0.0
    redacted: int = 0  # how many secrets were taken out of this entry's text before it was written


    @property
    def kind(self) -> str:
        return self.KIND

    def to_json(self) -> dict[str, Any]:
        """The entry as one flat JSON object: seq, ts (ISO 8601 UTC), actor, kind, then its own fields."""
        out: dict[str, Any] = {"seq": self.seq, "ts": iso_utc(self.ts), "actor": self.actor, "kind": self.KIND}
        for f in dataclasses.fields(self):
            if f.name not in ("seq", "ts", "actor") and not (f.name in _SAID_WHEN_SET and not getattr(self, f.name)):
                out[f.name] = _jsonable(getattr(self, f.name))
        return out


@dataclass(frozen=True, kw_only=True)
class ToolCall(Entry):
    """An agent called a tool under a lease (``lease`` is the grant's seq)."""

    KIND: ClassVar[str] = "tool"
    tool: str
    scope: str
    input: Mapping[str, Any] = field(default_factory=dict)
    lease: int | None = None
    confirmed: int | None = None  # a one-off confirmation (its ``confirm`` entry) instead of a lease
    call: str | None = None  # the model's id for this call (pairs it with its request's tool call)


@dataclass(frozen=True, kw_only=True)
class FileChange(Entry):
    """One file changed: ``before``/``after`` are sha256 blob names, None when absent.

    ``cause`` is the tool call (or undo) that made the change; ``reverts`` is
    set on the reversals an undo makes and names the change they reverse.
    ``mode`` is the file's permission bits before the change, when it existed.
    ``stored`` is False when the contents were too large to keep (hash only).
    ``was_link``/``is_link``: the path was (is, after the change) a symbolic
    link; that side's contents are then the link's target text, never what it
    points to.
    """

    KIND: ClassVar[str] = "fs.write"
    path: str
    before: str | None
    after: str | None
    cause: int | None = None
    reverts: int | None = None
    mode: int | None = None
    stored: bool = True
    was_link: bool = False
    is_link: bool = False


@dataclass(frozen=True, kw_only=True)
class ToolResult(Entry):
    """A tool call succeeded; ``cause`` is the call's seq."""

    KIND: ClassVar[str] = "result"
    cause: int
    output: Any = None
    duration_ms: float | None = None
    call: str | None = None     # the model's id for the call
    content: str | None = None  # what the model read (``output`` is the tool's data)
    images: tuple[Mapping[str, Any], ...] = ()  # the pictures it read too: {sha256 (a blob), media_type, ...}


@dataclass(frozen=True, kw_only=True)
class ToolError(Entry):
    """A tool call failed (bad input, unknown tool, timeout, crash); ``cause`` may be None
    when the call never got as far as being recorded."""

    KIND: ClassVar[str] = "error"
    cause: int | None
    tool: str | None = None
    message: str = ""
    input: Mapping[str, Any] | None = None
    duration_ms: float | None = None
    call: str | None = None  # the model's id for the call; ``message`` is what it read


@dataclass(frozen=True, kw_only=True)
class Denied(Entry):
    """The user refused a lease request."""

    KIND: ClassVar[str] = "denied"
    tool: str
    scope: str
    subject: str
    input: Mapping[str, Any] | None = None
    reason: str = ""  # why, when it was not simply the user's no (a policy, an unattended tainted agent)


@dataclass(frozen=True, kw_only=True)
class Expired(Entry):
    """A lease request went unanswered until it expired, or a lease ran out (``lease`` set)."""

    KIND: ClassVar[str] = "expired"
    scope: str
    subject: str
    tool: str | None = None
    lease: int | None = None


@dataclass(frozen=True, kw_only=True)
class LeaseGrant(Entry):
    """A lease: its id is this entry's seq. ``until`` is a unix time."""

    KIND: ClassVar[str] = "lease.grant"
    subject: str
    scope: str
    until: float
    duration_s: float


@dataclass(frozen=True, kw_only=True)
class LeaseRevoke(Entry):
    """A lease ended before its time (kill, user action)."""

    KIND: ClassVar[str] = "lease.revoke"
    lease: int
    subject: str
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class AgentSpawn(Entry):
    """An agent process was born; ``actor`` is its id."""

    KIND: ClassVar[str] = "agent.spawn"
    name: str
    provider: str = ""
    model: str = ""
    budget: int = 0
    workspace: str = ""
    # its route (model routes): ``provider:model`` fallbacks in order, other vendors allowed, price ceiling
    fallbacks: tuple[str, ...] = ()
    any_vendor: bool = False
    price_ceiling: float = 1.0


@dataclass(frozen=True, kw_only=True)
class AgentKill(Entry):
    """An agent was killed; ``subject`` is its id, ``actor`` who killed it."""

    KIND: ClassVar[str] = "agent.kill"
    subject: str
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class Snapshot(Entry):
    """A command's changes were captured (``cause`` is the call): by snapshots of the workspace
    (``files`` is how many it held), or from an overlay's upper layer (``overlay``; the workspace
    was not read, ``files`` is 0)."""

    KIND: ClassVar[str] = "snapshot"
    root: str
    cause: int | None = None
    files: int = 0
    changed: int = 0
    overlay: bool = False


@dataclass(frozen=True, kw_only=True)
class Undo(Entry):
    """An undo: it reversed ``reversed`` (seqs of file changes after ``after_seq``)."""

    KIND: ClassVar[str] = "undo"
    after_seq: int
    only_actor: str | None = None
    reversed: tuple[int, ...] = ()
    conflicts: tuple[str, ...] = ()


# ---- trust: untrusted content seen, one-off confirmations, hooks run ----


@dataclass(frozen=True, kw_only=True)
class UntrustedSeen(Entry):
    """An agent was given untrusted content (``actor`` is the agent, ``cause`` the result entry): where it
    came from and the sha256 of exactly what the model read. The agent's taint is rebuilt from these."""

    KIND: ClassVar[str] = "untrusted"
    cause: int | None
    tool: str
    source: str
    sha256: str
    size: int = 0


@dataclass(frozen=True, kw_only=True)
class Confirmed(Entry):
    """A person allowed one call, once (no lease covers it: a tainted agent's R3 call, a ``confirm`` policy)."""

    KIND: ClassVar[str] = "confirm"
    subject: str
    tool: str
    scope: str
    reason: str = ""
    input: Mapping[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class HookRun(Entry):
    """A user-configured hook ran around a call (``cause``): ``when`` is before or after; ``outcome`` is
    ok, veto, failed or timeout; ``message`` what it said on stderr (or why it failed)."""

    KIND: ClassVar[str] = "hook"
    cause: int | None
    tool: str
    hook: str
    when: str
    outcome: str
    exit_code: int | None = None
    message: str = ""
    duration_ms: float | None = None


@dataclass(frozen=True, kw_only=True)
class ContextUsed(Entry):
    """Text from outside the conversation joined an agent's context: ``what`` is ``instructions``
    (AGENTS.md or CLAUDE.md) or ``skill``; ``sha256`` names the exact version used."""

    KIND: ClassVar[str] = "context"
    subject: str
    what: str
    path: str
    sha256: str
    name: str = ""


@dataclass(frozen=True, kw_only=True)
class UserTurn(Entry):
    """A user turn in an agent's conversation (``actor`` is the agent); kind ``message``."""

    KIND: ClassVar[str] = "message"
    text: str
    images: tuple[Mapping[str, Any], ...] = ()  # pictures sent with it: {sha256 (a blob), media_type, ...}


@dataclass(frozen=True, kw_only=True)
class ModelRequest(Entry):
    """One provider request of an agent (``actor``) and the reply it got.

    ``reason``: user-turn · tool-results · resume · automation. ``status``: ok · error ·
    cancelled; only an ``ok`` reply entered the conversation (``text`` and ``tool_calls``, each
    ``{id, name, input, meta}``). Times are unix seconds and milliseconds; tokens as reported.

    Who answered (model routes): ``provider``/``model`` is where this request was sent;
    ``requested_provider``/``requested_model`` what the agent asked for (its route's primary, or
    the utility route's model); ``served_provider``/``served_model`` who answered, as the SDK's
    reply named it (None when no reply came); ``attempt`` counts the candidates of the route tried
    for this reply (1: the first), ``route_reason`` why this one ("fallback after anthropic
    overloaded ×3"; "" on the primary), and ``route`` is ``agent`` or ``utility`` (housekeeping).
    Rows written before these fields read as their defaults.
    """

    KIND: ClassVar[str] = "request"
    reason: str
    provider: str
    model: str
    status: str
    request_id: str | None = None
    start: float = 0.0
    duration_ms: float = 0.0
    first_token_ms: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    stop_reason: str | None = None
    text: str = ""
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    error: str = ""
    requested_provider: str = ""
    requested_model: str = ""
    served_provider: str | None = None
    served_model: str | None = None
    attempt: int = 1
    route_reason: str = ""
    route: str = "agent"
    # how the request was laid out (issue 24): the state block appended to its newest turn ("" if none),
    # its cache hints (the conversation's cache key, the system prompt's TTL, the messages with a breakpoint)
    state: str = ""
    max_tokens: int = 0
    cache_key: str = ""
    cache_ttl: str = ""
    cache_breaks: tuple[int, ...] = ()


@dataclass(frozen=True, kw_only=True)
class AgentBudget(Entry):
    """An agent's budget was set to ``budget`` tokens (``subject`` is the agent)."""

    KIND: ClassVar[str] = "agent.budget"
    subject: str
    budget: int


@dataclass(frozen=True, kw_only=True)
class AgentArchive(Entry):
    """An agent was archived (out of the process table; ``archived`` False: continued again)."""

    KIND: ClassVar[str] = "agent.archive"
    subject: str
    archived: bool = True


@dataclass(frozen=True, kw_only=True)
class Intent(Entry):
    """An outward call is about to act (send a mail, create an event): ``key`` is its idempotency key,
    ``cause`` the tool call; recorded before acting so a crash leaves a trace to verify."""

    KIND: ClassVar[str] = "intent"
    tool: str
    key: str
    call_id: str = ""
    target: str = ""     # what a check can find it by: the Message-ID or the event UID
    cause: int | None = None


@dataclass(frozen=True, kw_only=True)
class Outcome(Entry):
    """How an intent ended (``cause`` is the intent): ``done`` (it happened), ``failed`` (it surely did
    not), or ``unknown`` (it may have: never retried automatically, shown to the user)."""

    KIND: ClassVar[str] = "outcome"
    status: str
    detail: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    cause: int | None = None


@dataclass(frozen=True, kw_only=True)
class RouteBreaker(Entry):
    """A model's circuit breaker changed ``state`` (open · half_open · closed; model routes): ``reason``
    in words, ``until`` when an open one may be probed (unix seconds)."""

    KIND: ClassVar[str] = "route.breaker"
    provider: str
    model: str
    state: str
    reason: str = ""
    until: float | None = None


@dataclass(frozen=True, kw_only=True)
class SystemPrompt(Entry):
    """The system prompt and tools an agent (``actor``) is sent from now on: recorded once per
    conversation and again only when they change in kind (a skill enabled, AGENTS.md edited)."""

    KIND: ClassVar[str] = "prompt"
    text: str
    tools: tuple[Mapping[str, Any], ...] = ()  # each {name, description, input_schema}, in the order sent
    basis: str = ""  # a digest of what it was built from that may change in kind (AGENTS.md, the skills)


@dataclass(frozen=True, kw_only=True)
class Compaction(Entry):
    """An agent's (``actor``) context was made smaller: ``mode`` ``clear`` (tool results recorded at seq ≤
    ``last`` replaced by placeholders naming their entries) or ``summary`` (entries ``first``..``last``
    summarized: ``summary``, redacted like every entry). ``trigger``: auto · manual · overflow; ``focus``: what
    the user asked the summary to keep (recorded, never replayed as a turn). Nothing is deleted."""

    KIND: ClassVar[str] = "compaction"
    mode: str
    trigger: str
    first: int = 0
    last: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    summary: str = ""
    focus: str = ""
    entries: int = 0  # how many entries it covers (what the Ask window's divider says)
    untrusted: bool = False  # what it summarized held untrusted content: the summary is untrusted too
    cut: int = 0      # summary: how many messages of the conversation the compacted context replaced
    context: str = ""  # summary: the compacted context the model reads (summary, frontier, the user's words)

# ---- channels (issue 27): inbound chat messages and the pairing gate ----


@dataclass(frozen=True, kw_only=True)
class ChannelMessage(Entry):
    """A message from a paired sender on a chat channel, recorded once (``actor`` is ``channel:<name>``);
    ``agent`` is the session's agent it went to. Untrusted: it is what a stranger's phone typed."""

    KIND: ClassVar[str] = "channel.message"
    channel: str
    account: str = ""
    chat: str
    chat_kind: str
    sender: str
    message_id: str
    agent: str = ""
    text: str = ""
    media: int = 0


@dataclass(frozen=True, kw_only=True)
class PairingRequest(Entry):
    """An unknown sender was given a pairing code (and nothing else)."""

    KIND: ClassVar[str] = "pairing.request"
    channel: str
    chat: str
    chat_kind: str
    sender: str
    code: str
    expires: float
    sender_name: str = ""


@dataclass(frozen=True, kw_only=True)
class PairingGrant(Entry):
    """The owner approved a pairing code: this sender, in this chat of this kind, reaches an agent."""

    KIND: ClassVar[str] = "pairing.grant"
    channel: str
    chat: str
    chat_kind: str
    sender: str
    code: str = ""


@dataclass(frozen=True, kw_only=True)
class PairingRevoke(Entry):
    """A pairing ended (``agentdesk channel revoke``): the sender meets the gate again."""

    KIND: ClassVar[str] = "pairing.revoke"
    channel: str
    chat: str
    chat_kind: str
    sender: str
    reason: str = ""



@dataclass(frozen=True, kw_only=True)
class McpElicit(Entry):
    """An MCP server's question for the user (elicitation) and what became of it (issue 29): ``action`` accept,
    decline or cancel; ``actor`` who said so (the user, or the kernel when nobody could be asked, with
    ``reason``); ``answer`` the values the server was sent (redacted like every entry; a secret-looking
    field's value is never written)."""

    KIND: ClassVar[str] = "mcp.elicit"
    subject: str          # the agent whose call the server asked during ("" when it could not be told)
    server: str
    message: str = ""
    action: str
    reason: str = ""
    url: str | None = None
    answer: Mapping[str, Any] = field(default_factory=dict)


ENTRY_TYPES: dict[str, type[Entry]] = {
    cls.KIND: cls
    for cls in (ToolCall, FileChange, ToolResult, ToolError, Denied, Expired, LeaseGrant,
                LeaseRevoke, AgentSpawn, AgentKill, Snapshot, Undo, UserTurn, ModelRequest, AgentBudget,
                AgentArchive)
}
ENTRY_TYPES.update({cls.KIND: cls for cls in (UntrustedSeen, Confirmed, HookRun)})
ENTRY_TYPES[ContextUsed.KIND] = ContextUsed
ENTRY_TYPES.update({cls.KIND: cls for cls in (Intent, Outcome)})  # outward calls, exactly once (issue 16)
ENTRY_TYPES[RouteBreaker.KIND] = RouteBreaker  # model routes (issue 25)
ENTRY_TYPES[SystemPrompt.KIND] = SystemPrompt  # the context engine (issue 24)
ENTRY_TYPES[Compaction.KIND] = Compaction
ENTRY_TYPES.update({cls.KIND: cls for cls in (ChannelMessage, PairingRequest, PairingGrant, PairingRevoke)})
ENTRY_TYPES[McpElicit.KIND] = McpElicit  # MCP elicitation (issue 29)
KINDS = tuple(ENTRY_TYPES)


def iso_utc(ts: float) -> str:
    """A unix time as ISO 8601 in UTC with milliseconds."""
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _encode_default(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


# One encoder for every body: json.dumps with non-default options builds a new one per call.
# ASCII-only JSON: model input may hold lone surrogates ("\ud800"), which are valid JSON
# escapes but cannot be encoded as UTF-8 text for SQLite.
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, default=_encode_default).encode


# Fields stored and shown only when set: ``redacted`` (secrets taken out), ``images`` (pictures on a turn).
_SAID_WHEN_SET = ("redacted", "images")


@lru_cache(maxsize=None)
def _layout(cls: type[Entry]) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
    """A class's column fields, body fields and all field names (computed once per class)."""
    names = [f.name for f in dataclasses.fields(cls) if f.name not in ("seq", "ts", "actor")]
    return (tuple(n for n in names if n in COLUMN_FIELDS), tuple(n for n in names if n not in COLUMN_FIELDS),
            frozenset(names) | {"seq", "ts", "actor"})


def to_row(entry: Entry) -> tuple[dict[str, Any], str]:
    """Split an entry into its indexed column values and its JSON body."""
    column_names, body_names, _ = _layout(type(entry))  # type: ignore[arg-type]  # mypy: classes aren't Hashable
    columns = {name: getattr(entry, name) for name in column_names}
    body = {name: getattr(entry, name) for name in body_names}
    for name in _SAID_WHEN_SET:  # said only when set, so other entries keep their shape
        if name in body and not body[name]:
            del body[name]
    return columns, _encode(body)


def body_fields(cls: type[Entry]) -> tuple[str, ...]:
    """The fields of a kind that travel in the JSON body (not in indexed columns)."""
    return _layout(cls)[1]  # type: ignore[arg-type]  # mypy: classes aren't Hashable


def stamped(entry: Entry, seq: int, ts: float) -> Entry:
    """A copy of ``entry`` with its seq and ts set (dataclasses.replace without re-validating)."""
    out = object.__new__(type(entry))
    out.__dict__.update(entry.__dict__)
    out.__dict__["seq"] = seq
    out.__dict__["ts"] = ts
    return out


def from_row(row: Mapping[str, Any]) -> Entry:
    """Rebuild a typed entry from a stored row (columns plus JSON body), upcast to its class's version.

    A row of a newer version than its class is refused (NewerVersion), as an
    unknown kind is (UnknownKind): reading it as this version could drop or
    misread fields.
    """
    cls = ENTRY_TYPES.get(row["kind"])
    if cls is None:  # a kind written by a newer Agentdesk
        raise UnknownKind(row["seq"], row["kind"])
    column_names, _, names = _layout(cls)  # type: ignore[arg-type]  # mypy: classes aren't Hashable
    values: dict[str, Any] = {"seq": row["seq"], "ts": row["ts"], "actor": row["actor"]}
    body = json.loads(row["body"]) if row["body"] else {}
    version = row["version"]
    if version != cls.VERSION:
        body = upcast(cls, row["seq"], version, {**{name: row[name] for name in column_names}, **body})
    else:
        for name in column_names:
            values[name] = row[name]
    for name, value in body.items():
        if name in names:
            values[name] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def upcast(cls: type[Entry], seq: int, version: int, state: dict[str, Any]) -> dict[str, Any]:
    """``state`` (an entry's stored fields, columns and body, as version ``version`` wrote them)
    brought to ``cls.VERSION`` by the class's upcasters, one version at a time.

    As in eventsourcing, a class whose stored shape changes raises its
    ``VERSION`` and gains a static method ``upcast_v<n>_v<n+1>(state)`` that
    rewrites the fields of version n in place (rename, add a default, drop).
    Old rows are never rewritten: the ledger is append-only and hash-chained.
    """
    if version > cls.VERSION:
        raise NewerVersion(seq, cls.KIND, version, cls.VERSION)
    for n in range(version, cls.VERSION):
        getattr(cls, f"upcast_v{n}_v{n + 1}")(state)
    return state
