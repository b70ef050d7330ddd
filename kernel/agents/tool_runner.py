"""The executor: every tool call goes through the same five steps.

1. unknown tool or input that fails its schema → an error result the model
   sees, recorded (so is a result the tool gives before asking: an identical
   outward call earlier in the turn, ``replay_step``); 2. the permission
   step (``gate``: policy, taint, then a live lease or a request; waiting) → refused: an error result, recorded;
   3. record the call (``tool`` entry, with the lease or the one-off
   confirmation) and run the user's before-hooks (a veto is an error result);
   4. run it with this agent as actor and the call as cause, under the tool's
   timeout, cancellable; 5. record the result or the error, run the
   after-hooks, and wrap an untrusted result in provenance markers (recorded,
   and the agent tainted: ``provenance``). An error that quotes content from
   outside (the failure's ``source``: an HTTP error page, an MCP tool's error)
   is wrapped, recorded and taints the same way; a local refusal is not.

Consecutive read-class calls run concurrently; results keep the model's order.
Whatever a result says is clean text, and an error quotes at most
``untrusted.ERROR_MAX_CHARS`` characters (a 10 MB bad path used to come back
whole, in every later request).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ledger import Entry, FileChange, ToolCall, ToolError, ToolResult

from ..core.errors import ToolFailure
from ..core.events import ToolCallFinished, ToolCallStarted
from ..core.messages import ImagePart, ToolResultPart, image_json
from ..providers.base import ToolCallReady
from ..redaction.cuts import finder_of
from ..tools.descriptor import ToolContext, ToolDescriptor
from ..tools.schema import validate_input
from ..core.states import AgentState, Outcome
from ..core.json_safe import clean_text
from ..trust.untrusted import capped, quoted
from . import hook_step, replay_step
from .call_report import CallReport
from .gate import call_risk, permit
from .permission import Once, Refusal
from .process import AgentProcess
from .provenance import admit_untrusted, input_source, untrusted_images, untrusted_source
from .rebuild import INTERRUPTED
from ..trust.markers import wrap


async def run_tool_calls(agent: AgentProcess, calls: Sequence[ToolCallReady]) -> tuple[ToolResultPart, ...]:
    """Run a turn's calls: read-class neighbours together, everything else one at a time, in order."""
    results: list[ToolResultPart] = []
    batch: list[ToolCallReady] = []

    async def flush() -> None:
        if batch:
            results.extend(await asyncio.gather(*(run_tool(agent, c) for c in batch)))
            batch.clear()

    for call in calls:
        tool = agent.services.tools.get(call.name)
        if tool is not None and tool.tool_class == "read" and call.input is not None:
            batch.append(call)
            continue
        await flush()
        results.append(await run_tool(agent, call))
    await flush()
    return tuple(results)


async def run_tool(agent: AgentProcess, call: ToolCallReady) -> ToolResultPart:
    """Run one call, already admitted (``agents.admit``, done as the turn arrives)."""
    s = agent.services
    tool = s.tools.get(call.name)
    tool_input: Mapping[str, Any] = call.input if call.input is not None else {}
    refusal = _check(agent, call, tool, tool_input)
    scope = ""
    if refusal is None:
        assert tool is not None
        scope, refusal = _scope(tool, tool_input)
    if refusal is None and tool is not None:  # under a loaded skill: leases ∩ its manifest (kernel/extensions)
        refusal = s.extensions.refusal(agent, tool, tool_input, scope)
    s.bus.publish(ToolCallStarted(agent.id, call.id, call.name, scope, tool_input, None))
    if refusal is not None:
        report = _refused(agent, call, tool_input, refusal)
    else:
        assert tool is not None
        report = await _execute(agent, call, tool, tool_input, scope)
    s.bus.publish(ToolCallFinished(agent.id, call.id, call.name, report.outcome, report.content,
                                   report.duration_ms, report.seq, report.changes, report.images))
    return ToolResultPart(call.id, call.name, report.content, is_error=not report.ok, images=report.images)


def _refused(agent: AgentProcess, call: ToolCallReady, tool_input: Mapping[str, Any], refusal: str) -> CallReport:
    """A call that cannot run at all: recorded with what arrived, answered with why."""
    message = _shown(refusal, agent)
    entry = agent.services.record(ToolError(
        actor=agent.id, cause=None, tool=call.name, message=message,
        input=dict(tool_input) if call.input is not None else {"raw": call.raw_arguments}, call=call.id))
    return CallReport(Outcome.ERROR, message, entry.seq)


async def _execute(agent: AgentProcess, call: ToolCallReady, tool: ToolDescriptor,
                   tool_input: Mapping[str, Any], scope: str) -> CallReport:
    s = agent.services
    replay = replay_step.replayed(agent, call, tool, tool_input, scope)  # an identical call this turn: no ask
    if replay is not None:
        return replay
    allowed = await permit(agent, tool, tool_input, scope, call.id)
    if isinstance(allowed, Refusal):  # the denial is on the record; so is what the model reads
        message = _shown(allowed.message, agent)
        entry = s.record(ToolError(actor=agent.id, cause=None, tool=tool.name, message=message, call=call.id))
        return CallReport(allowed.outcome, message, entry.seq)
    started = time.perf_counter()  # the run, not the wait for a lease
    lease_id, confirmed = (None, allowed.seq) if isinstance(allowed, Once) else (allowed.id, None)
    call_entry = s.record(ToolCall(actor=agent.id, tool=tool.name, scope=scope, input=dict(tool_input), lease=lease_id,
                                   confirmed=confirmed, call=call.id))
    risk = str(call_risk(tool, tool_input))
    vetoed = await hook_step.before(agent, tool.name, scope, risk, tool_input, call_entry.seq)
    if vetoed is not None:
        return _failed(agent, call_entry.seq, tool.name, vetoed, _ms(started), call=call.id)
    ran = await _run(agent, tool, tool_input, call_entry.seq, call.id, started)
    content = await hook_step.after(agent, tool.name, scope, risk, tool_input, call_entry.seq, ran.ok, ran.content)
    if not ran.ok:
        return _failed(agent, call_entry.seq, tool.name, content, ran.duration_ms, ran.changes, call.id, ran.source)
    # Recorded last, with exactly the text the model reads (after the hooks, in its markers when untrusted),
    # so the conversation can be rebuilt from the ledger.
    shown = content if ran.source is None else wrap(content, ran.source, agent.nonce)
    result = s.record(ToolResult(actor=agent.id, cause=call_entry.seq, output=ran.data, duration_ms=ran.duration_ms,
                                 call=call.id, content=shown, images=tuple(image_json(i) for i in ran.images)))
    if ran.source is not None:
        admit_untrusted(agent, tool.name, ran.source, content, result.seq)
    return CallReport(Outcome.OK, shown, result.seq, call_entry.seq, ran.duration_ms, ran.changes,
                      images=ran.images)


@dataclass(frozen=True)
class _Ran:
    """How the tool itself ended, before the after-hooks had their say and before it is recorded."""

    ok: bool
    content: str
    duration_ms: float
    changes: tuple[int, ...] = ()
    data: Any = None
    source: str | None = None  # where untrusted content came from
    images: tuple[ImagePart, ...] = ()


async def _run(agent: AgentProcess, tool: ToolDescriptor, tool_input: Mapping[str, Any], call_seq: int,
               call_id: str, started: float) -> _Ran:
    """Step 4: run the tool under its timeout, cancellable (a cancelled call is recorded here)."""
    s = agent.services
    ctx = ToolContext(agent.id, agent.root, s.ledger, call_seq, s.clock, s.limits, call_id, agent.turns, s.images)
    changes: list[int] = []
    unlisten = None if tool.tool_class == "read" else s.ledger.listen(_changes_of(call_seq, changes))
    try:
        async with asyncio.timeout(tool.timeout_s):  # no extra task, unlike wait_for
            output = await tool.run(ctx, tool_input)
    except asyncio.CancelledError:
        stopped = INTERRUPTED if agent.state is AgentState.INTERRUPTED else "cancelled: the agent was stopped"
        s.record(ToolError(actor=agent.id, cause=call_seq, tool=tool.name,
                           message=stopped, duration_ms=_ms(started), call=call_id))
        raise
    except ToolFailure as exc:  # its ``source`` says whether it quotes content from outside
        return _Ran(False, exc.message, _ms(started), tuple(sorted(changes)), source=exc.source)
    except (TimeoutError, asyncio.TimeoutError):
        return _Ran(False, f"{tool.name} timed out after {tool.timeout_s:g} s", _ms(started), tuple(sorted(changes)))
    except Exception as exc:  # noqa: BLE001 - a broken tool is a result, never the agent's death
        # An untrusted tool's unforeseen exception may quote whatever it read: untrusted too.
        return _Ran(False, f"{tool.name} failed: {type(exc).__name__}: {exc}", _ms(started), tuple(sorted(changes)),
                    source=None if tool.trusted else input_source(tool, tool_input))
    finally:
        if unlisten is not None:
            unlisten()
    source = untrusted_source(tool, tool_input, output)
    return _Ran(True, clean_text(output.content), _ms(started), tuple(sorted(changes)), output.data, source,
                untrusted_images(output.images, source))


def _changes_of(call_seq: int, into: list[int]) -> Callable[[Entry], None]:
    """A ledger listener noting the file changes caused by the call ``call_seq`` (whatever thread
    appends them), so the finished event lists them without querying the ledger again."""

    def note(entry: Entry) -> None:
        if isinstance(entry, FileChange) and entry.cause == call_seq:
            into.append(entry.seq)

    return note


def _check(agent: AgentProcess, call: ToolCallReady, tool: ToolDescriptor | None,
           tool_input: Mapping[str, Any]) -> str | None:
    """Why the call cannot run at all (unknown tool, bad JSON, bad input), or None."""
    if tool is None:
        known = ", ".join(agent.services.tools.names())
        return f"unknown tool {quoted(call.name)}; the tools are: {known}"
    if call.input is None:
        return f"the arguments for {call.name} were not valid JSON ({call.error or 'unparseable'}); send a JSON object"
    try:
        validate_input(tool, tool_input)
    except ToolFailure as exc:
        return exc.message
    return None


def _scope(tool: ToolDescriptor, tool_input: Mapping[str, Any]) -> tuple[str, str | None]:
    """The scope this call needs, or a refusal when the tool cannot say (a tool bug, not the agent's death)."""
    try:
        return tool.scope_for(tool_input), None
    except Exception as exc:  # noqa: BLE001
        return "", f"{tool.name} could not work out the permission it needs: {type(exc).__name__}: {exc}"


def _shown(message: str, agent: AgentProcess) -> str:
    """An error as the model sees it and the ledger keeps it: text, and never megabytes of it (nor half a secret)."""
    return capped(clean_text(message), finder=finder_of(agent.services.ledger.redactor))


def _failed(agent: AgentProcess, cause: int, tool: str, message: str, duration_ms: float,
            changes: Sequence[int] = (), call: str | None = None, source: str | None = None) -> CallReport:
    """An error result; one quoting content from ``source`` is wrapped in markers, recorded and taints."""
    text = _shown(message, agent)
    shown = text if source is None else wrap(text, source, agent.nonce)
    entry = agent.services.record(ToolError(actor=agent.id, cause=cause, tool=tool, message=shown,
                                            duration_ms=duration_ms, call=call))
    if source is not None:
        admit_untrusted(agent, tool, source, text, entry.seq)
    return CallReport(Outcome.ERROR, shown, entry.seq, cause, duration_ms, tuple(sorted(changes)))


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
