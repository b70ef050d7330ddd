"""The image budget and the model's capabilities, applied to one request: newest pictures first, the rest
one line each; a model without vision sees only lines; pictures move out of tool results where the model
cannot take them there."""

from __future__ import annotations

from kernel.core.messages import ImagePart, Message, TextPart, ToolResultPart, ToolUse
from kernel.images.layout import BLIND, MOVED, ImageBudget, lay_out
from kernel.providers.base import ProviderRequest
from kernel.providers.vision import image_support


def shot(n: int, size: int = 1000) -> ImagePart:
    return ImagePart(f"{n:064x}", "image/png", 1356, 847, size, "paste", label=f"shot {n}")


def store(*images: ImagePart) -> dict[str, bytes]:
    return {i.sha256: b"x" * i.size for i in images}


def conversation(count: int, size: int = 1000) -> tuple[Message, ...]:
    out: list[Message] = []
    for n in range(count):
        out.append(Message("user", (TextPart(f"turn {n}"), shot(n, size))))
        out.append(Message("assistant", (TextPart("seen"),)))
    return tuple(out)


def placeholders(request: ProviderRequest) -> list[str]:
    return [p.text for m in request.messages for p in m.parts if isinstance(p, TextPart) and p.text.startswith("[image")]


def test_only_the_newest_within_the_count_are_sent():
    conv = conversation(12)
    laid = lay_out(ProviderRequest("s", conv), image_support("anthropic", "claude-sonnet-4-5"), ImageBudget(8),
                   store(*(shot(n) for n in range(12))).get)
    sent = [i.label for m in laid.messages for i in m.images]
    assert sent == [f"shot {n}" for n in range(4, 12)]
    assert set(laid.images) == {shot(n).sha256 for n in range(4, 12)}
    assert placeholders(laid)[0] == "[image 1356\u00d7847 png from shot 0: older than the newest 8 images, not sent again]"
    assert len(placeholders(laid)) == 4


def test_the_megabytes_bound_too():
    conv = conversation(5, size=3 * 1024 * 1024)
    laid = lay_out(ProviderRequest("s", conv), image_support("openai", "gpt-5"), ImageBudget(8, 8 * 1024 * 1024),
                   store(*(shot(n, 3 * 1024 * 1024) for n in range(5))).get)
    assert [i.label for m in laid.messages for i in m.images] == ["shot 3", "shot 4"]
    assert sum(len(b) for b in laid.images.values()) <= 8 * 1024 * 1024


def test_a_model_without_vision_gets_one_line_per_picture():
    conv = (Message("user", (TextPart("look"), shot(1))),
            Message("assistant", (ToolUse("c", "fs_read", {"path": "a.png"}),)),
            Message("user", (ToolResultPart("c", "fs_read", "a.png", images=(shot(2),)),)))
    laid = lay_out(ProviderRequest("s", conv), image_support("openai-chat", "llama3.1:8b"), ImageBudget(),
                   store(shot(1), shot(2)).get)
    assert laid.images == {} and all(not m.images for m in laid.messages)
    assert laid.messages[0].parts[1] == TextPart(f"[image 1356\u00d7847 png from shot 1: {BLIND}]")
    assert laid.messages[2].parts[0].content == f"a.png\n[image 1356\u00d7847 png from shot 2: {BLIND}]"


def test_pictures_leave_tool_results_for_models_that_cannot_take_them_there():
    conv = (Message("user", (ToolResultPart("c", "fs_read", "a.png", images=(shot(2),)), TextPart("and?"))),)
    laid = lay_out(ProviderRequest("s", conv), image_support("gemini", "gemini-2.5-flash"), ImageBudget(),
                   store(shot(2)).get)
    parts = laid.messages[0].parts
    assert parts == (ToolResultPart("c", "fs_read", "a.png"), TextPart(MOVED), shot(2), TextPart("and?"))
    kept = lay_out(ProviderRequest("s", conv), image_support("gemini", "gemini-3-pro"), ImageBudget(),
                   store(shot(2)).get)
    assert kept.messages == conv


def test_messages_without_pictures_pass_through_as_the_same_objects():
    conv = conversation(2) + (Message("user", (TextPart("plain"),)),)
    laid = lay_out(ProviderRequest("s", conv), image_support("anthropic", "claude-sonnet-4-5"), ImageBudget(),
                   store(shot(0), shot(1)).get)
    assert laid.messages[-1] is conv[-1] and laid.messages[1] is conv[1]
    plain = ProviderRequest("s", (Message("user", (TextPart("x"),)),))
    assert lay_out(plain, image_support("anthropic", "c"), ImageBudget(), store().get) is plain


def test_the_catalog_says_who_sees():
    assert image_support("anthropic", "claude-opus-4-1").in_tool_results
    assert not image_support("openai", "gpt-3.5-turbo").vision
    assert image_support("openai-chat", "qwen2.5vl:7b").vision and not image_support("openai-chat", "x").vision
    assert not image_support("openai-chat", "llava:13b").in_tool_results
    assert not image_support("unknown", "m").vision
