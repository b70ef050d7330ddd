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
from typing import AsyncIterator, Awaitable, Callable

from ..core.errors import ProviderError
from .base import Provider, ProviderRequest, StreamEvent

_BASE_DELAY_S = 0.5


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

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
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
                if started or not exc.retryable or attempt >= self._max_retries:
                    exc.attempts = attempt + 1
                    raise
                failure = exc
            finally:
                await _close(events)
            await self._sleep(self.delay(failure, attempt))
            attempt += 1

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
