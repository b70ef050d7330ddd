"""The conversation on the record: user turns and provider requests as ledger entries.

Each user turn is a ``message`` entry and each provider request a ``request``
entry (why it was made, how long it took, its tokens, how it ended and the
reply). With the tool outcomes (``result``/``error``, which carry the model's
call id and what the model read) they are enough to rebuild the exact
conversation the model saw (``agents.rebuild``). A request is recorded once
it is over, so a reply that broke off is on the record as ``error`` or
``cancelled`` and never in the conversation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ledger import ModelRequest, UserTurn

from ..core.messages import ImagePart, Message, TextPart, ToolUse, image_json
from ..accounting.budget import Usage
from ..accounting.mixed import priced_as
from ..routes.target import Attempt
from .process import AgentProcess

USER_TURN = "user-turn"
TOOL_RESULTS = "tool-results"
RESUME = "resume"
AUTOMATION = "automation"


def record_user_turn(agent: AgentProcess, text: str, images: tuple[ImagePart, ...] = ()) -> UserTurn:
    entry = agent.services.record(UserTurn(actor=agent.id, text=text, images=tuple(image_json(i) for i in images)))
    assert isinstance(entry, UserTurn)
    return entry


@dataclass
class RequestTimer:
    """Times one provider request: start (kernel clock), duration and time to first token; and keeps
    what the provider said of it beyond the budget's tokens (its request id, cache tokens)."""

    start: float
    began: float = field(default_factory=time.perf_counter)
    first_token_ms: float | None = None
    request_id: str | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    served_model: str | None = None  # the model the reply named (StreamEnd, or the error of a reply that broke)
    tries: int = 1  # HTTP attempts the retry policy made (set when it gave up)

    def cache(self, read: int | None, write: int | None) -> None:
        """A usage report's cache counts (None keeps what was reported before)."""
        self.cache_read_tokens = self.cache_read_tokens if read is None else _count(read)
        self.cache_write_tokens = self.cache_write_tokens if write is None else _count(write)

    def token(self) -> None:
        if self.first_token_ms is None:
            self.first_token_ms = _ms(self.began)


def record_request(agent: AgentProcess, timer: RequestTimer, status: str, *, reply: Message | None = None,
                   stop_reason: str | None = None, error: str = "") -> None:
    """Append the ``request`` entry of the request just over (the budget's in-flight usage is its usage)."""
    used = agent.budget.current
    parts = reply.parts if reply is not None else ()
    attempt = agent.attempt or Attempt(agent.target, agent.target)
    target, requested = attempt.target, attempt.requested
    served = timer.served_model or (target.model if status == "ok" else None)
    served_provider = target.provider if served is not None else None
    key = priced_as(agent.services.settings.prices, target.provider, target.model, served_provider, served)
    agent.priced[key] = agent.priced.get(key, Usage()) + used
    agent.services.record(ModelRequest(
        actor=agent.id, reason=agent.request_reason, provider=target.provider, model=target.model, status=status,
        requested_provider=requested.provider, requested_model=requested.model,
        served_provider=served_provider, served_model=served,
        attempt=attempt.number, route_reason=attempt.reason, route=attempt.route,
        request_id=timer.request_id, cache_read_tokens=timer.cache_read_tokens,
        cache_write_tokens=timer.cache_write_tokens, start=timer.start, duration_ms=_ms(timer.began), first_token_ms=timer.first_token_ms,
        input_tokens=used.input_tokens, output_tokens=used.output_tokens, stop_reason=stop_reason,
        text="".join(p.text for p in parts if isinstance(p, TextPart)),
        tool_calls=tuple({"id": p.id, "name": p.name, "input": dict(p.input), "meta": dict(p.meta)}
                         for p in parts if isinstance(p, ToolUse)),
        error=error, **_layout(agent),
    ))
    agent.services.inflight.done(agent.id)  # on the record now: nothing to recover at the next start


def _layout(agent: AgentProcess) -> dict[str, Any]:
    """How the request was laid out (the state block it appended, its cache hints), for its entry."""
    sent = agent.context.sent
    if sent is None:
        return {}
    return {"state": agent.context.sent_state, "max_tokens": sent.max_tokens, "cache_key": sent.cache_key, "cache_ttl": sent.cache_ttl,
            "cache_breaks": sent.cache_breaks}


def _count(value: object) -> int:
    """A token count a server sent (hostile input: anything but a whole number ≥ 0 counts 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _ms(began: float) -> float:
    return round((time.perf_counter() - began) * 1000, 3)
