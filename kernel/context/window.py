"""The window an agent's model reads, from the catalog and Settings (a local model's size is the user's),
and whether its requests carry a prompt-cache key.

``prompt_cache_key`` is OpenAI's: it routes requests with one key to one cache. An OpenAI-compatible
server on a base URL (Ollama, vLLM, llama.cpp, LM Studio: ``openai-chat`` with a base URL in Settings)
has no use for it (llama.cpp reuses each slot's cached prefix by itself), and while Ollama and today's
vLLM ignore a field they do not know, vLLM answered one with a 400 ``extra_forbidden`` until late 2024
(vllm-project/vllm#10463) and some servers refuse undeclared fields on purpose. Sent there it can only
break a request, so it is left out (and the request entry records that none was sent).
"""

from __future__ import annotations

from ..config.settings import Settings
from ..providers.catalog import CATALOG, window_of


def is_local(provider: str, settings: Settings) -> bool:
    """Whether ``provider`` is reached at a server of the user's (an OpenAI-compatible base URL)."""
    info = CATALOG.get(provider)
    return bool(info is not None and info.key_optional_with_base_url and settings.base_urls.get(provider))


def window_tokens(provider: str, model: str, settings: Settings) -> int:
    return window_of(provider, model, local=is_local(provider, settings), user_set=settings.context_window).context


def cache_key(provider: str, settings: Settings, conversation: str) -> str:
    """The prompt-cache key to send: the conversation's, except to a local server ("" : none sent)."""
    return "" if is_local(provider, settings) else conversation
