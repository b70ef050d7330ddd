"""One retry policy for every provider, instead of four SDKs' differing ones.

The SDKs disagree (anthropic honours any ``retry-after`` uncapped, openai gives
up when it exceeds 120 s, google-genai ignores it and does not retry by
default), so each adapter turns SDK retries off and this wrapper decides. A
request is retried only while its ``ProviderError.retryable`` — a transient
kind, before anything of the reply arrived — so a consumer never sees output
twice. The wait is the server's ``retry_after`` when given, else exponential
backoff with full jitter, both capped at ``cap_s``. ``sleep`` and ``random``
are injected so tests assert the waits without waiting.
"""

from __future__ import annotations

import asyncio
import random as _random
from dataclasses import dataclass
from typing import AsyncIterator, Awaitable, Callable

from ..core.errors import ProviderError
from .base import Provider, ProviderRequest, StreamEvent

_BASE_DELAY_S = 0.5


@dataclass(frozen=True)
class RetryLimits:
    """One request's own limits: ``max_retries`` (None: the provider's), and ``give_up_beyond_cap``:
    when the server asks to wait longer than the cap, fail at once (another model on the route can
    answer now) instead of waiting out the cap."""

    max_retries: int | None = None
    give_up_beyond_cap: bool = False


class RetryingProvider:
    """Wraps a provider; retries requests that failed before their reply started."""

    def __init__(self, inner: Provider, *, max_retries: int, cap_s: float,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
                 random: Callable[[], float] = _random.random) -> None:
        self.inner = inner
        self.name = inner.name
        self._max_retries = max(0, max_retries)
        self._cap_s = cap_s
        self._sleep = sleep
        self._random = random

    async def stream(self, request: ProviderRequest, limits: "RetryLimits | None" = None) -> AsyncIterator[StreamEvent]:
        """``limits`` (model routes): fewer retries for this request, or none beyond the cap's wait."""
        max_retries = self._max_retries if limits is None or limits.max_retries is None else limits.max_retries
        attempt = 0
        while True:
            started = False
            events = self.inner.stream(request)
            try:
                async for event in events:
                    started = True
                    yield event
                return
            except ProviderError as exc:
                if (started or not exc.retryable or attempt >= max_retries
                        or (limits is not None and limits.give_up_beyond_cap and self.beyond_cap(exc))):
                    exc.attempts = attempt + 1
                    raise
                failure = exc
            finally:
                await _close(events)
            await self._sleep(self.delay(failure, attempt))
            attempt += 1

    def beyond_cap(self, error: ProviderError) -> bool:
        """The server asked for a longer wait than the cap allows."""
        return error.retry_after is not None and error.retry_after > self._cap_s

    def delay(self, error: ProviderError, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt + 1``."""
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), self._cap_s)
        return float(self._random() * min(self._cap_s, _BASE_DELAY_S * (2 ** attempt)))

    async def warm(self) -> None:
        """Let the adapter load its SDK and client ahead of the first request, if it can."""
        warm = getattr(self.inner, "warm", None)
        if warm is not None:
            await warm()

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _close(events: AsyncIterator[StreamEvent]) -> None:
    """Close the inner stream now, so its HTTP response closes with ours (not at garbage collection)."""
    aclose = getattr(events, "aclose", None)
    if aclose is not None:
        await aclose()
