"""Provider-opaque metadata kept only where it came from, when a conversation moves between models.

Some replies carry data only their own model can read back: Gemini's thought
signatures on function calls (``ToolUse.meta``), and the like for reasoning
or thinking blocks. Sent to another provider it is at best ignored and at
worst refused; sent to another model of the same provider it may be refused
too. So every ``meta`` a routed reply carries is stamped with its ``origin``
(``provider:model``), and before a request the conversation is given to the
target with every foreign ``meta`` dropped: the neutral history (text, calls,
results) stays, which every adapter can send.

Gemini 3 refuses a function call of the current turn that has no signature,
which is exactly what a call made by another model looks like; Google
documents a value that tells it to skip the check for calls it did not make
(``SKIP_SIGNATURE``), and that is what foreign calls get when the target is
Gemini. Messages with nothing to change are passed on as the same objects,
so encoders that cache by message (the provider host's) keep their cache.
"""

from __future__ import annotations

import base64
from typing import Any, Mapping

from ..core.messages import Message, Part, ToolUse
from .target import Target

ORIGIN = "origin"
GEMINI_SIGNATURE = "thought_signature"  # kernel/providers/gemini.py's key
SKIP_SIGNATURE = base64.b64encode(b"skip_thought_signature_validator").decode("ascii")


def stamped(meta: Mapping[str, Any], target: Target, *, always: bool = False) -> Mapping[str, Any]:
    """``meta`` with the model that produced it; empty meta stays empty unless ``always``."""
    if not meta and not always:
        return meta
    return {**meta, ORIGIN: str(target)}


def for_target(messages: tuple[Message, ...], target: Target) -> tuple[Message, ...]:
    """The conversation as ``target`` may receive it (the same tuple when nothing is foreign)."""
    out: list[Message] | None = None
    for index, message in enumerate(messages):
        fixed = _message(message, target)
        if fixed is not message and out is None:
            out = list(messages[:index])
        if out is not None:
            out.append(fixed)
    return messages if out is None else tuple(out)


def _message(message: Message, target: Target) -> Message:
    if message.role != "assistant":
        return message
    parts = tuple(_part(p, target) for p in message.parts)
    if all(a is b for a, b in zip(parts, message.parts)):
        return message
    return Message(message.role, parts)


def _part(part: Part, target: Target) -> Part:
    if not isinstance(part, ToolUse):
        return part
    origin = part.meta.get(ORIGIN)
    if not isinstance(origin, str) or origin == str(target):
        return part  # made by this model, or before routes stamped anything (one model only)
    meta: dict[str, Any] = {ORIGIN: origin}
    if target.provider == "gemini":
        meta[GEMINI_SIGNATURE] = SKIP_SIGNATURE
    return ToolUse(part.id, part.name, part.input, meta)
