"""Which models see pictures, and where: the image half of the provider catalog, per model.

A model without vision gets each picture as one line of text (``ImagePart.placeholder``), never a
request its server would refuse with a 400. Where a model takes pictures inside tool results
(Anthropic ``tool_result`` content, OpenAI Responses ``function_call_output`` lists, Gemini 3's
multimodal function responses) they stay there; elsewhere they follow the results in a user turn
(Chat Completions allows images only in user messages; Gemini 2.x function responses carry no media).
Local servers behind ``openai-chat`` serve any model, so only names that say vision are trusted to see.
Plain data and prefix rules, as of 2026-12: adding a model family is one line.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ImageSupport:
    vision: bool
    in_tool_results: bool
    max_images: int  # the provider's own ceiling per request (the kernel's budget is usually lower)


BLIND = ImageSupport(False, False, 0)

# Families known not to see, by name prefix (provider → prefixes).
_BLIND_PREFIXES = {
    "anthropic": ("claude-2", "claude-instant"),
    "openai": ("gpt-3.5", "gpt-4-0", "gpt-4-32k", "o1-mini", "o3-mini", "text-", "davinci", "babbage"),
}
_CHAT_VISION_WORDS = ("vision", "-vl", "vl-", "llava", "bakllava", "gpt-4o", "gpt-4.1", "gpt-5", "gemma3",
                      "gemma-3", "pixtral", "minicpm-v", "moondream", "qwen2.5vl", "qwen3-vl", "llama4", "mistral-small3")


def image_support(provider: str, model: str) -> ImageSupport:
    """What ``model`` of ``provider`` does with pictures."""
    name = model.lower()
    if name.startswith(_BLIND_PREFIXES.get(provider, ())) or name == "gpt-4":
        return BLIND
    if provider == "anthropic":
        return ImageSupport(True, True, 100)
    if provider == "openai":
        return ImageSupport(True, True, 500)
    if provider == "gemini":
        return ImageSupport(True, name.startswith("gemini-3"), 3000)
    if provider == "openai-chat":
        sees = any(word in name for word in _CHAT_VISION_WORDS)
        return ImageSupport(sees, False, 50) if sees else BLIND
    return BLIND
