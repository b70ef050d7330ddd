"""Request one model turn and stream it: text as it arrives, tool calls collected.

Nothing of a turn enters the conversation until its stream has ended with a
stop reason: a reply that breaks halfway is shown (the text already went out
as deltas) but never executed, so no tool runs from a half-received call.
Every tool call is admitted (``admit``) as it arrives, so nothing a model
sends can break the executor, the ledger, a view or the next request.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import assert_never

from ..core.errors import ProviderError
from ..core.events import TextDelta, TurnFinished, TurnStarted
from ..core.messages import Message, Part, TextPart, ToolUse
from .request import build_request
from ..providers.base import StreamEnd, ToolCallReady, UsageReport
from ..providers.base import TextChunk
from ..core.json_safe import clean_text
from .admit import admit
from .process import AgentProcess
from .inflight import InFlight
from .records import RequestTimer, record_request
from ..routes.calls import open_stream
from ..routes.opaque import stamped


@dataclass(frozen=True)
class AssistantTurn:
    message: Message
    calls: tuple[ToolCallReady, ...]
    stop_reason: str


async def request_turn(agent: AgentProcess) -> AssistantTurn:
    """Stream one reply from the model (ProviderError propagates; usage is counted either way)."""
    s = agent.services
    agent.turns += 1
    s.bus.publish(TurnStarted(agent.id, agent.turns))
    timer = RequestTimer(s.clock.now())
    agent.context.sent, agent.context.sent_state = None, ""  # set by build_request once the request is laid out
    agent.context.just_compacted = False
    agent.streaming = []
    try:
        turn = await _stream_turn(agent, timer)
        record_request(agent, timer, "ok", reply=turn.message, stop_reason=turn.stop_reason)
    except ProviderError as exc:
        timer.request_id = timer.request_id or exc.request_id  # a failed request is on the record with its id
        timer.served_model = timer.served_model or exc.served_model
        timer.tries = exc.attempts
        record_request(agent, timer, "error", error=str(exc))
        raise
    except asyncio.CancelledError:
        record_request(agent, timer, "cancelled")
        raise
    finally:
        agent.streaming = []  # the reply is in the conversation now (the caller appends it before any await)
        agent.settle_usage()
    s.bus.publish(TurnFinished(agent.id, agent.turns, turn.stop_reason))
    return turn


async def _stream_turn(agent: AgentProcess, timer: RequestTimer) -> AssistantTurn:
    """The stream of one request, assembled into a turn (usage is reported as it comes)."""
    s = agent.services
    provider = s.providers(agent.target.provider)
    text: list[str] = []
    calls: list[ToolCallReady] = []
    stop: str | None = None
    flight = InFlight(agent.id, agent.request_reason, agent.target.provider, agent.target.model, timer.start)
    async with contextlib.aclosing(open_stream(provider, build_request(agent), agent.attempt)) as events:  # type: ignore[type-var]
        async for event in events:
            match event:
                case TextChunk(text=chunk):
                    timer.token()
                    chunk = clean_text(chunk)  # a "\ud800" escape would break the display and the next request
                    text.append(chunk)
                    agent.streaming.append(chunk)
                    s.bus.publish(TextDelta(agent.id, chunk, agent.streamed))
                    agent.streamed += len(chunk)
                case ToolCallReady():
                    timer.token()
                    calls.append(admit(event))
                case UsageReport(input_tokens=i, output_tokens=o):
                    if i is not None:  # the estimate of the next request's size starts from here
                        agent.context.reported_input, agent.context.reported_chars = i, agent.context.sent_chars
                    timer.cache(event.cache_read_tokens, event.cache_write_tokens)
                    agent.report_usage(i, o, None if event.cache_read_tokens is None else timer.cache_read_tokens,
                                       None if event.cache_write_tokens is None else timer.cache_write_tokens)
                    s.inflight.report(flight, agent.budget.current)  # kept should the kernel be killed mid-way
                case StreamEnd(stop_reason=reason):
                    stop, timer.request_id = reason, event.request_id
                    timer.served_model = event.served_model or timer.served_model
                case _:
                    assert_never(event)
    if stop is None:
        raise ProviderError(agent.target.provider, "incomplete", "the reply ended without a stop reason", started=True)
    parts: list[Part] = []
    if text:
        parts.append(TextPart("".join(text)))
    for call in calls:
        meta = stamped(call.meta, agent.target, always=agent.route is not None)  # whose opaque data it is
        parts.append(ToolUse(call.id, call.name, dict(call.input) if call.input is not None else {}, meta))
    return AssistantTurn(Message("assistant", tuple(parts)), tuple(calls), stop)
