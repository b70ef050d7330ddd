"""What the kernel knows about each provider, in one frozen table.

Which adapter serves a provider, which environment variables hold its key
and base URL, its default model, whether a local server spares it a key and
whether its SDK runs in a host process: the registry, Settings, the failure
messages, the CLI and the desktop all read these facts here, so adding a
provider is one row. Plain data only: importing this module imports no SDK
and nothing else of the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping


@dataclass(frozen=True)
class ProviderInfo:
    """One provider, as the CLI and Settings name it."""

    name: str
    adapter: str
    """``module:Class`` inside ``kernel.providers``, imported only when the provider is built."""
    key_variable: str
    """The SDK's own key variable: the one messages tell the user to set."""
    base_url_variable: str
    default_model: str
    key_optional_with_base_url: bool = False
    """A local server (Ollama, vLLM, llama.cpp, LM Studio) ignores the key, so with a base URL none is needed."""
    out_of_process: bool = False
    """The SDK costs milliseconds of CPU per request (growing with the conversation), so the desktop
    runs it in a host process (``process_host``), off its loop's GIL. Anthropic's SDK costs about
    1.3 ms per request, flat, and stays in-process."""
    earlier_key_variables: tuple[str, ...] = ()
    """Read before ``key_variable``, as the SDK itself does (google-genai prefers GOOGLE_API_KEY)."""
    saved_keys: tuple[str, ...] = ()
    """The keys.json entries that may hold its key, in the order tried (default: its own name)."""

    @property
    def key_variables(self) -> tuple[str, ...]:
        """The environment variables that may hold its key, in the order tried."""
        return (*self.earlier_key_variables, self.key_variable)

    @property
    def saved_key_names(self) -> tuple[str, ...]:
        return self.saved_keys or (self.name,)

    def needs_key(self, base_url: str | None) -> bool:
        """Whether a request needs an API key when sent to ``base_url`` (None: the provider's own endpoint)."""
        return not (self.key_optional_with_base_url and base_url)


@dataclass(frozen=True)
class ModelWindow:
    """How many tokens a model reads (its context window, input and output together) and may write."""

    context: int
    output: int


# Known models by name prefix (the longest match wins), from the vendors' model pages as of 2026-12.
MODEL_WINDOWS: Mapping[str, ModelWindow] = MappingProxyType({
    "claude-opus-4": ModelWindow(200_000, 32_000),
    "claude-sonnet-4": ModelWindow(200_000, 64_000),
    "claude-haiku-4": ModelWindow(200_000, 64_000),
    "claude-3-5": ModelWindow(200_000, 8_192),
    "claude-3-7": ModelWindow(200_000, 64_000),
    "gpt-5": ModelWindow(400_000, 128_000),
    "gpt-4.1": ModelWindow(1_047_576, 32_768),
    "gpt-4o": ModelWindow(128_000, 16_384),
    "o3": ModelWindow(200_000, 100_000),
    "o4-mini": ModelWindow(200_000, 100_000),
    "gemini-2.5": ModelWindow(1_048_576, 65_536),
    "gemini-2.0": ModelWindow(1_048_576, 8_192),
    "gemini-3": ModelWindow(1_048_576, 65_536),
})
UNKNOWN_WINDOW = ModelWindow(128_000, 8_192)   # a hosted model not in the table
LOCAL_WINDOW = ModelWindow(32_768, 4_096)      # a local server's model: set Settings' context_window to its size


def window_of(provider: str, model: str, *, local: bool = False, user_set: int = 0) -> ModelWindow:
    """The model's window: the user's value when set (a local model), else the table's, else a default."""
    known = max((p for p in MODEL_WINDOWS if model.startswith(p)), key=len, default=None)
    window = MODEL_WINDOWS[known] if known is not None and not local else LOCAL_WINDOW if local else UNKNOWN_WINDOW
    if user_set > 0:
        return ModelWindow(user_set, min(window.output, user_set))
    return window


CATALOG: Mapping[str, ProviderInfo] = MappingProxyType({info.name: info for info in (
    ProviderInfo("anthropic", "anthropic:AnthropicProvider", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                 "claude-sonnet-4-5"),
    ProviderInfo("openai", "openai_responses:OpenAIResponsesProvider", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                 "gpt-5", out_of_process=True),
    ProviderInfo("openai-chat", "openai_chat:OpenAIChatProvider", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                 "gpt-5", key_optional_with_base_url=True, out_of_process=True,
                 saved_keys=("openai", "openai-chat")),  # the OpenAI API's key serves its chat endpoint too
    ProviderInfo("gemini", "gemini:GeminiProvider", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL",
                 "gemini-2.5-flash", out_of_process=True, earlier_key_variables=("GOOGLE_API_KEY",)),
)})
"""Every provider by name, in the order the CLI and Settings list them."""

PROVIDER_NAMES: tuple[str, ...] = tuple(CATALOG)
