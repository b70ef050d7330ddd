"""Pictures laid into one provider request: what the model can see, within the image budget.

Before each request the conversation's pictures are counted newest first; the newest ones within the
budget (``Settings.image_budget_count`` pictures and ``image_budget_mb`` megabytes, 8 and 8 unless changed)
and within the model's own ceiling are sent with their bytes; every older one, every picture for a model
without vision, and any whose bytes the store no longer has becomes its one-line placeholder, so a long
session of screenshots never grows into a request a provider refuses. Where the model cannot take
pictures inside tool results, they follow the results in the same user turn. Messages without pictures
pass through as the same objects (the provider host caches their JSON by identity).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Callable, Iterator

from ..core.messages import ImagePart, Message, Part, TextPart, ToolResultPart
from ..providers.base import ProviderRequest
from ..providers.vision import ImageSupport

BLIND = "this model cannot see images"
MISSING = "its bytes are no longer in the store"
MOVED = "The pictures the tool results above returned:"


@dataclass(frozen=True)
class ImageBudget:
    count: int = 8
    bytes: int = 8 * 1024 * 1024

    def over(self) -> str:
        return f"older than the newest {self.count} images, not sent again"


def lay_out(request: ProviderRequest, support: ImageSupport, budget: ImageBudget,
            load: Callable[[str], bytes | None]) -> ProviderRequest:
    """``request`` with its pictures' bytes and placeholders, as the model ``support`` describes can take."""
    if not any(m.images for m in request.messages):
        return request
    sent, why = _choose(request.messages, support, budget, load)
    places = itertools.count()
    messages = tuple(_rewritten(m, places, why, support) if m.images else m for m in request.messages)
    return replace(request, messages=messages, images=sent)


def _choose(messages: tuple[Message, ...], support: ImageSupport, budget: ImageBudget,
            load: Callable[[str], bytes | None]) -> tuple[dict[str, bytes], dict[int, str]]:
    """The bytes sent (by sha256), and why each picture left out is left out (by its place, newest first)."""
    sent: dict[str, bytes] = {}
    why: dict[int, str] = {}
    limit = min(budget.count, support.max_images)
    total = count = 0
    every = [i for m in messages for i in m.images]
    for place in range(len(every) - 1, -1, -1):
        image = every[place]
        if not support.vision:
            why[place] = BLIND
            continue
        if count >= limit or total + image.size > budget.bytes:
            why[place] = budget.over()
            continue
        data = sent.get(image.sha256) or load(image.sha256)
        if data is None:
            why[place] = MISSING
            continue
        if image.sha256 not in sent:
            total += len(data)
        sent[image.sha256] = data
        count += 1
    return sent, why


def _rewritten(message: Message, places: Iterator[int], why: dict[int, str], support: ImageSupport) -> Message:
    """``message`` with each picture left out (by its place in the conversation, counted in the same order
    ``Message.images`` lists them) turned into its placeholder."""
    parts: list[Part] = []
    moved: list[Part] = []
    for part in message.parts:
        if isinstance(part, ImagePart):
            place = next(places)
            parts.append(TextPart(part.placeholder(why[place])) if place in why else part)
        elif isinstance(part, ToolResultPart) and part.images:
            left_out = {i: why.get(next(places)) for i in range(len(part.images))}
            kept = tuple(image for i, image in enumerate(part.images) if left_out[i] is None)
            notes = [image.placeholder(w) for i, image in enumerate(part.images) if (w := left_out[i]) is not None]
            content = "\n".join([part.content, *notes]) if notes else part.content
            if support.in_tool_results:
                parts.append(replace(part, content=content, images=kept))
            else:
                parts.append(replace(part, content=content, images=()))
                moved.extend(kept)
        else:
            parts.append(part)
    if moved:
        results = [p for p in parts if isinstance(p, ToolResultPart)]
        rest = [p for p in parts if not isinstance(p, ToolResultPart)]
        parts = [*results, TextPart(MOVED), *moved, *rest]
    return Message(message.role, tuple(parts))
