"""The next request's size, estimated before it is sent: the last reported input plus what was added since.

Counting tokens exactly needs each vendor's tokenizer (or a request to its
counting endpoint); the provider already tells us how many input tokens the
last request had, so the estimate is that figure plus the characters added
since, at ``CHARS_PER_TOKEN`` (English and code average 3.5 to 4; the lower
figure errs toward acting early). Before any usage is known, the whole request
is counted that way.
"""

from __future__ import annotations

import json
from typing import Sequence

from ..core.messages import Message, TextPart, ToolResultPart, ToolSpec, ToolUse

CHARS_PER_TOKEN = 3.5
_encode = json.JSONEncoder(default=str).encode  # one encoder: json.dumps with options builds one per call
MESSAGE_OVERHEAD = 16  # role and framing, in characters


def size_chars(system: str, tools: Sequence[ToolSpec], messages: Sequence[Message],
               memo: dict[int, tuple[Message, int]] | None = None) -> int:
    """About how many characters a request carries (the unit the estimate grows by); ``memo`` keeps each
    (frozen) message's size, so estimating before every request costs a lookup per message."""
    total = len(system) + sum(len(t.name) + len(t.description) + len(_encode(dict(t.input_schema)))
                              for t in tools)
    for m in messages:
        hit = memo.get(id(m)) if memo is not None else None
        if hit is not None and hit[0] is m:
            total += hit[1]
            continue
        size = message_chars(m)
        if memo is not None:
            memo[id(m)] = (m, size)
        total += size
    return total


def message_chars(m: Message) -> int:
    total = MESSAGE_OVERHEAD
    for p in m.parts:
        if isinstance(p, TextPart):
            total += len(p.text)
        elif isinstance(p, ToolUse):
            total += len(p.name) + len(_encode(dict(p.input)))
        elif isinstance(p, ToolResultPart):
            total += len(p.content)
        else:  # a part kind added later (images): counted by its text form
            total += len(str(p))
    return total


def estimate(chars: int, reported_input: int, reported_chars: int) -> int:
    """Tokens of a request of ``chars`` characters, given the last request's reported input and size."""
    if reported_input <= 0:
        return int(chars / CHARS_PER_TOKEN)
    return reported_input + max(0, int((chars - reported_chars) / CHARS_PER_TOKEN))
