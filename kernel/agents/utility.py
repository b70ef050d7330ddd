"""The utility route: one small model request for housekeeping, never for an agent's own turns.

Compaction summaries, History titles and classifiers ask a model something
about a conversation, not on its behalf; they go to Settings' utility model
(``utility_model``, a small cheap one; empty: the agent's own model), are
recorded as a ``request`` entry with ``route: utility`` and the purpose as
its reason, and are billed to the agent they serve (its budget and cost).
No tools are sent and nothing enters the conversation: the caller decides
what to do with the text. One request, with the provider's retries; it does
not fall over (housekeeping can wait), and a failure is a ``ProviderError``
for the caller, on the record like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, replace

from ledger import ModelRequest

from ..accounting.budget import Usage
from ..accounting.mixed import priced_as
from ..core.errors import ProviderError
from ..core.json_safe import clean_text
from ..core.messages import Message
from ..providers.base import ProviderRequest, StreamEnd, TextChunk, UsageReport
from ..providers.catalog import PROVIDER_NAMES
from ..routes.target import Target, parse_target
from .process import AgentProcess
from .records import RequestTimer


@dataclass(frozen=True)
class UtilityReply:
    """What the utility model said: its text, the tokens it took, who answered, and the ``request`` entry."""

    text: str
    usage: Usage
    served: Target
    served_model: str
    seq: int


def utility_target(agent: AgentProcess) -> Target:
    """Settings' utility model, else the agent's own (a bad setting is refused when settings are read)."""
    chosen = agent.services.settings.utility_model
    return parse_target(chosen, PROVIDER_NAMES) if chosen else Target(agent.provider, agent.model)


async def utility_call(agent: AgentProcess, purpose: str, system: str, messages: tuple[Message, ...], *,
                       max_tokens: int = 2048, target: Target | None = None) -> UtilityReply:
    """Ask the utility model for ``purpose`` ("compaction", "title", …) on ``agent``'s behalf (``target``: another
    model, e.g. the agent's own for an MCP server's sampling request)."""
    s = agent.services
    target = target or utility_target(agent)
    timer = RequestTimer(s.clock.now())
    text: list[str] = []
    usage = UsageReport()
    request = ProviderRequest(system=system, messages=messages, model=target.model, max_tokens=max_tokens)
    status, error = "ok", ""
    try:
        async with contextlib.aclosing(s.providers(target.provider).stream(request)) as events:  # type: ignore[type-var]
            async for event in events:
                if isinstance(event, TextChunk):
                    timer.token()
                    text.append(clean_text(event.text))
                elif isinstance(event, UsageReport):
                    usage = _merged(usage, event)
                elif isinstance(event, StreamEnd):
                    timer.request_id, timer.served_model = event.request_id, event.served_model
    except ProviderError as exc:
        status, error = "error", str(exc)
        timer.request_id, timer.served_model = timer.request_id or exc.request_id, exc.served_model
        raise
    except asyncio.CancelledError:
        status = "cancelled"
        raise
    finally:
        used = Usage(_n(usage.input_tokens), _n(usage.output_tokens), _n(usage.cache_read_tokens),
                     _n(usage.cache_write_tokens))
        served = timer.served_model or (target.model if status == "ok" else None)
        entry = s.record(ModelRequest(  # route "utility": agents.rebuild never folds it into the conversation
            actor=agent.id, reason=purpose, provider=target.provider, model=target.model, status=status,
            requested_provider=target.provider, requested_model=target.model,
            served_provider=target.provider if served else None, served_model=served, route="utility",
            request_id=timer.request_id, start=timer.start, first_token_ms=timer.first_token_ms,
            duration_ms=round((time.perf_counter() - timer.began) * 1000, 3),
            input_tokens=used.input_tokens, output_tokens=used.output_tokens,
            cache_read_tokens=used.cached_tokens, cache_write_tokens=used.written_tokens,
            text="".join(text), error=error))
        _bill(agent, target, served, used)
    return UtilityReply("".join(text), used, target, served or target.model, entry.seq)


def _bill(agent: AgentProcess, target: Target, served: str | None, used: Usage) -> None:
    """The agent it served pays: its budget's tokens and its cost (priced as the model that answered)."""
    if not used.total:
        return
    agent.budget = replace(agent.budget, spent=agent.budget.spent + used)
    key = priced_as(agent.services.settings.prices, target.provider, target.model,
                    target.provider if served else None, served)
    agent.priced[key] = agent.priced.get(key, Usage()) + used
    agent.announce()


def _merged(old: UsageReport, new: UsageReport) -> UsageReport:
    return UsageReport(*(n if n is not None else o for o, n in zip(
        (old.input_tokens, old.output_tokens, old.cache_read_tokens, old.cache_write_tokens),
        (new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_tokens))))


def _n(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
