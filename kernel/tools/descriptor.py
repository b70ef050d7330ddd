"""What a tool is: one frozen descriptor with its schema, class, scope and runner.

Adding a tool is adding a descriptor and its ``run`` coroutine, nothing else:
the executor (``kernel.agents.run_tool``) validates the input against
``input_schema``, checks the lease for ``scope``, records the call, applies
``timeout_s`` and cancellation, and records the outcome for every tool alike.
A tool changes files only through ``ToolContext.write`` (or records what a
command changed through the ledger), so every change is in the ledger before
it lands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Literal, Mapping

from ledger.limits import MAX_BLOB_BYTES

from ..core.messages import ImagePart, ToolSpec
from ..core.risk import Risk
from ..trust.markers import wrap
from ..trust.schema_marks import marked_schema

if TYPE_CHECKING:
    from ledger import FileChange, Ledger
    from ledger.blobs import Opened
    from ledger.files import Place

    from ..core.clock import Clock
    from ..images.store import ImageStore
    from ..workspace.root import Workspace

ToolClass = Literal["read", "write", "execute"]


@dataclass(frozen=True)
class ToolOutput:
    """A tool's success: ``content`` is what the model reads; ``data`` is recorded in the ledger.
    ``source`` set means this output is untrusted content from there (e.g. "web_fetch https://…"),
    even from a tool whose descriptor says trusted (a skill someone else wrote)."""

    content: str
    data: Any = None
    source: str | None = None
    images: tuple[ImagePart, ...] = ()  # pictures the model is shown with ``content`` (fitted, in the blob store)


@dataclass(frozen=True)
class CallPreview:
    """What a call would do, for the lease dialog: a one-line summary, the path, a diff."""

    summary: str
    path: str | None = None
    diff: str | None = None


@dataclass(frozen=True)
class ToolLimits:
    read_max_bytes: int = 256 * 1024      # fs_read returns at most this much, then says it cut
    list_max_entries: int = 1000
    search_max_matches: int = 200
    search_max_file_bytes: int = 2 * 1024 * 1024
    blob_max_bytes: int = MAX_BLOB_BYTES  # larger old contents cannot be kept, so are not replaced
    edit_max_bytes: int = 16 * 1024 * 1024  # fs_edit holds a file in memory about five times over


@dataclass
class ToolContext:
    """What a running tool may use. ``cause`` is the seq of this call's ``tool`` entry."""

    agent_id: str
    workspace: "Workspace"
    ledger: "Ledger"
    cause: int
    clock: "Clock"
    limits: ToolLimits = field(default_factory=ToolLimits)
    call_id: str = ""   # the model's id for this call (outward calls key their idempotency on it)
    turn: int = 0       # the agent's turn number in this kernel (a repeated call in one turn acts once)
    images: "ImageStore | None" = None  # where pictures a tool returns are fitted and kept

    def write(self, path: Path, content: "bytes | Opened | None",
              current: "tuple[bytes | Opened | None, int | None] | None" = None,
              place: "Place | None" = None) -> "FileChange":
        """Record, then land, a change to ``path`` (already resolved inside the workspace);
        ``current`` is the (bytes, mode) the tool just read there, so the ledger need not read it again;
        ``place`` is the file in its folder opened by the walk, which the change lands through."""
        return self.ledger.write_file(actor=self.agent_id, path=path, content=content, cause=self.cause,
                                      max_blob=self.limits.blob_max_bytes, resolved=True, current=current,
                                      place=place)


Runner = Callable[[ToolContext, Mapping[str, Any]], Awaitable[ToolOutput]]
Previewer = Callable[["Workspace", Mapping[str, Any]], CallPreview]


@dataclass(frozen=True)
class ToolDescriptor:
    name: str                      # on the wire: letters, digits, underscores
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    tool_class: ToolClass
    scope: str                     # dotted: fs.read, fs.write, shell.exec
    run: Runner
    risk: Risk = field(kw_only=True)  # the class of the plain call; ``risk_of`` may raise it per call
    trusted: bool = field(kw_only=True)  # False: the output is untrusted content (network, mail, MCP, skills)
    timeout_s: float = 30.0
    preview: Previewer | None = None
    scope_of: Callable[[Mapping[str, Any]], str] | None = None  # when a call may need more (network)
    notes_of: Callable[[Mapping[str, Any]], tuple[str, ...]] | None = None  # warnings for the lease dialog
    risk_of: Callable[[Mapping[str, Any]], Risk] | None = None  # when a call may be riskier (network)
    # Every call is a one-off confirmation, whatever the policies and leases say (only ``deny`` refuses it
    # without asking): automation_create. ``detail_of`` (asking agent's id, input) puts the whole act in words
    # into that confirmation, or raises ToolFailure to refuse the call before anyone is asked.
    always_confirm: bool = False
    detail_of: Callable[[str, Mapping[str, Any]], tuple[str, ...]] | None = None
    # ``always_confirm`` decided per call: True for a call that must be confirmed one at a time (shell_exec
    # when the command would run without the sandbox).
    confirm_of: Callable[[Mapping[str, Any]], bool] | None = None
    # A result the tool can give before anyone is asked: (agent id, turn, input) → the result of an identical
    # outward call earlier in this turn (a ToolOutput), or ToolFailure raised for a call no confirmation could
    # make work (an unknown account); None: go on to the permission step as usual (kernel/agents/replay_step).
    answer_before_asking: Callable[[str, int, Mapping[str, Any]], "ToolOutput | None"] | None = None
    # Who wrote ``description`` when a third party did (an MCP server: "MCP server s, tool t"): the model
    # reads it between its agent's provenance markers (``spec_for``), never as the kernel's own words.
    described_by: str | None = field(default=None, kw_only=True)

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.input_schema)

    def spec_for(self, nonce: str) -> ToolSpec:
        """What the model of the agent with marker ``nonce`` is told: a third party's description, and the words
        of its input schema, wrapped (``trust.schema_marks``)."""
        if self.described_by is None:
            return self.spec()
        return ToolSpec(self.name, wrap(self.description, self.described_by, nonce),
                        marked_schema(self.input_schema, f"{self.described_by}, input schema", nonce))

    def scope_for(self, tool_input: Mapping[str, Any]) -> str:
        """The scope this particular call needs."""
        return self.scope if self.scope_of is None else self.scope_of(tool_input)

    def risk_for(self, tool_input: Mapping[str, Any]) -> Risk:
        """The risk class of this particular call."""
        return self.risk if self.risk_of is None else self.risk_of(tool_input)

    def confirms(self, tool_input: Mapping[str, Any]) -> bool:
        """Whether this particular call is a one-off confirmation whatever the leases and policies say."""
        return self.always_confirm or (self.confirm_of is not None and bool(self.confirm_of(tool_input)))

    def notes_for(self, tool_input: Mapping[str, Any]) -> tuple[str, ...]:
        """What the lease dialog should warn about for this call (e.g. "runs without a sandbox")."""
        return () if self.notes_of is None else tuple(self.notes_of(tool_input))
