"""The agent loop, as named steps.

    loop:
      budget reached or pause asked?  → paused (reason shown), stop
      request a turn, streaming it
      tool calls?  → run them (results in the model's order), append, loop
      otherwise    → idle, stop

A provider failure (after the provider's own retries) ends the loop with the
agent ``failed`` and the reason in words; the conversation keeps everything
up to the last complete turn, so sending again continues it.
"""

from __future__ import annotations

import asyncio
import contextlib

from ..core.errors import ProviderError
from ..core.messages import Message
from ..core.states import AgentState
from .context_step import OVERFLOW, fit
from .process import AgentProcess
from .records import TOOL_RESULTS
from .tool_runner import run_tool_calls
from .route_step import request_routed_turn
from .widen_step import widen


async def run_loop(agent: AgentProcess) -> None:
    overflowed = False
    try:
        while True:
            if _should_pause(agent):
                return
            agent.set_state(AgentState.RUNNING)
            with contextlib.suppress(ProviderError):  # a failed summary changes nothing: the request may still fit
                await fit(agent)  # past the threshold of the model's window: cleared, else summarized
            try:
                turn = await request_routed_turn(agent)
            except ProviderError as exc:
                if exc.kind == "too_long" and not exc.started:
                    if not overflowed:
                        overflowed = True
                        with contextlib.suppress(ProviderError):
                            if await fit(agent, OVERFLOW):
                                continue  # made smaller at once and retried once
                    if widen(agent):
                        continue  # still too long: a model on the route with a larger window (else it fails)
                agent.failure_kind = exc.kind
                agent.set_state(AgentState.FAILED, _failure_reason(exc))
                return
            overflowed = False
            agent.append(turn.message)
            if turn.calls:
                results = await run_tool_calls(agent, turn.calls)
                agent.append(Message("user", results))
                agent.request_reason = TOOL_RESULTS
                continue
            agent.set_state(AgentState.IDLE, _idle_reason(turn.stop_reason))
            return
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a kernel bug must show as a failed agent, not vanish in a task
        agent.set_state(AgentState.FAILED, f"internal error: {type(exc).__name__}: {exc}")
        raise
    finally:
        agent.widened = None  # the turn is over: the next one starts on the primary again


def _should_pause(agent: AgentProcess) -> bool:
    if agent.budget.reached:
        agent.set_state(AgentState.PAUSED, agent.budget.describe())
        return True
    if agent.pause_requested:
        agent.pause_requested = False
        agent.set_state(AgentState.PAUSED, "paused by the user")
        return True
    return False


def _idle_reason(stop_reason: str) -> str:
    if stop_reason == "end_turn":
        return ""
    if stop_reason == "max_tokens":
        return "the reply was cut at the max_tokens limit"
    return f"the model stopped ({stop_reason})"


_KIND_WORDS = {
    "auth": "the provider refused the API key",
    "not_found": "the provider does not know the model",
    "bad_request": "the provider rejected the request",
    "rate_limit": "rate limited by the provider",
    "overloaded": "the provider is overloaded",
    "server": "the provider had an error",
    "connection": "could not reach the provider",
    "timeout": "the provider did not answer in time",
    "stream": "the reply broke off",
    "incomplete": "the reply ended early",
    "unsupported": "the provider cannot take this conversation",
    "too_long": "the conversation is longer than the model's context window",
}


def _failure_reason(exc: ProviderError) -> str:
    return f"{_KIND_WORDS.get(exc.kind, 'provider error')} ({exc})"
