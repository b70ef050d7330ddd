"""An identical outward call in the same turn: the first call's result, without asking the user again.

A model that repeats a ``mail_send`` in one reply (or within one turn) must
not send twice, and the user should not be asked to confirm a mail that has
already gone. So, before the permission step, a tool with
``answer_before_asking`` (the mail and calendar writes) is asked for the
outcome of an identical call earlier in this turn; when there is one, it is
recorded as this call's result (a ``tool`` entry with neither lease nor
confirmation, then its result or error) and nothing is asked or acted. The
same hook refuses a call no confirmation could make work (an account that is
not configured), so the user is never asked to confirm it. An identical call
in a later turn is a new intent and is confirmed again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ledger import ToolCall, ToolError, ToolResult

from ..core.errors import ToolFailure
from ..redaction.cuts import finder_of
from ..core.states import Outcome
from ..core.json_safe import clean_text
from ..trust.untrusted import capped
from .call_report import CallReport
from .process import AgentProcess

if TYPE_CHECKING:
    from ..providers.base import ToolCallReady
    from ..tools.descriptor import ToolDescriptor


def replayed(agent: AgentProcess, call: "ToolCallReady", tool: "ToolDescriptor", tool_input: Mapping[str, Any],
             scope: str) -> CallReport | None:
    """The report of an identical earlier call in this turn, recorded for this call; None to go on as usual."""
    if tool.answer_before_asking is None:
        return None
    try:
        output = tool.answer_before_asking(agent.id, agent.turns, tool_input)
        failure = None
    except ToolFailure as exc:
        output, failure = None, capped(clean_text(exc.message), finder=finder_of(agent.services.ledger.redactor))
    except Exception:  # noqa: BLE001 - a lookup that breaks means "no earlier call": the usual path asks
        return None
    if output is None and failure is None:
        return None
    s = agent.services
    entry = s.record(ToolCall(actor=agent.id, tool=tool.name, scope=scope, input=dict(tool_input), call=call.id))
    if failure is not None:
        error = s.record(ToolError(actor=agent.id, cause=entry.seq, tool=tool.name, message=failure, call=call.id))
        return CallReport(Outcome.ERROR, failure, error.seq, entry.seq)
    assert output is not None
    content = clean_text(output.content)
    result = s.record(ToolResult(actor=agent.id, cause=entry.seq, output=output.data, duration_ms=0.0,
                                 call=call.id, content=content))
    return CallReport(Outcome.OK, content, result.seq, entry.seq)
