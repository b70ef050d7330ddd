"""Sending one request to a route's candidate: with the attempt's own retry limits, when it has some.

The retry policy (``providers/retry.py``) is the provider's, shared by every
agent; a route needs two exceptions to it per request: a half-open probe is
one request (no retries), and a candidate with others after it does not wait
out a ``Retry-After`` beyond the cap (the next model can answer now).
"""

from __future__ import annotations

from typing import AsyncIterator

from ..providers.base import Provider, ProviderRequest, StreamEvent
from ..providers.retry import RetryingProvider
from .target import Attempt


def open_stream(provider: Provider, request: ProviderRequest, attempt: Attempt | None) -> AsyncIterator[StreamEvent]:
    """``provider.stream(request)``, under the attempt's retry limits where the provider retries."""
    if attempt is not None and attempt.limits is not None and isinstance(provider, RetryingProvider):
        return provider.stream(request, attempt.limits)
    return provider.stream(request)
