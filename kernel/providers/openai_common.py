"""What the two openai adapters share: the client and the error mapping.

The openai SDK wraps transport failures (``APIConnectionError`` with the
httpx2 error as ``__cause__``, ``APITimeoutError``), so unlike anthropic and
google-genai nothing raw escapes it; ``httpx2.TransportError`` is still caught
in case a future release stops wrapping. A tool result flagged ``is_error``
has no field in either OpenAI API, so its text is prefixed with
``ERROR_PREFIX`` for the model to read.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable

from ..core.errors import ProviderError
from .adapter import SdkAdapter, pump
from .base import ProviderRequest, StreamEvent
from .failures import broken_stream, describe, error_detail, status_error
from . import lazy_inits

lazy_inits.install()  # before this process first imports openai: ``openai.types`` and below load name by name

ERROR_PREFIX = "Error: "


def make_async_client(api_key: str, base_url: str | None, timeout_s: float) -> Any:
    import openai

    return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)


def caught_errors() -> tuple[type[BaseException], ...]:
    import httpx2
    import openai

    return (openai.OpenAIError, httpx2.TransportError, ValueError)


def result_text(content: str, is_error: bool) -> str:
    return ERROR_PREFIX + content if is_error else content


def failure(provider: str, exc: BaseException, *, model: str, base_url: str | None,
            received: bool, started: bool) -> ProviderError:
    """The one place an openai or httpx2 exception becomes a ProviderError."""
    import httpx2
    import openai

    if received:
        return broken_stream(provider, _detail(exc), started=started)
    if isinstance(exc, openai.APIStatusError):
        return status_error(provider, exc.status_code, error_detail(exc.body, exc.message), model=model,
                            headers=exc.response.headers)
    where = base_url or "the API"
    if isinstance(exc, (openai.APITimeoutError, httpx2.TimeoutException)):
        return ProviderError(provider, "timeout", f"no answer in time from {where}")
    if isinstance(exc, (openai.APIConnectionError, httpx2.TransportError)):
        return ProviderError(provider, "connection", f"cannot reach {where}: {describe(exc.__cause__ or exc)}")
    return broken_stream(provider, _detail(exc), started=started)


def _detail(exc: BaseException) -> str:
    import openai

    if isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError):
        return error_detail(exc.body, exc.message)
    return describe(exc.__cause__ or exc)


class OpenAIAdapter(SdkAdapter):
    """What the two OpenAI adapters share: the client, the caught errors, the failure mapping."""

    sdk_modules = ("openai", "httpx2")

    def _make_client(self) -> Any:
        return make_async_client(self._api_key, self._base_url, self._timeout_s)

    def _pump(self, request: ProviderRequest, reply: Any, open_stream: Callable[[], Awaitable[Any]],
              check: Callable[[Any, bool], None] | None = None) -> AsyncIterator[StreamEvent]:
        def fail(exc: BaseException, started: bool) -> Exception:
            return failure(self.name, exc, model=request.model, base_url=self._base_url,
                           received=reply.received, started=started)

        return pump(self.name, open_stream, reply, caught_errors(), fail, check=check)
