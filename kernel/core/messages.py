"""The provider-neutral conversation: frozen parts, translated only at the edge.

An agent's history is a tuple of ``Message``s. Every provider adapter
translates each part to its wire format and back, and refuses what it cannot
represent. ``ToolUse.meta`` carries opaque provider data that must be echoed
back unchanged (for example Gemini's thought signature).

``encodable`` is applied to every message an agent keeps, so that whatever
came from a model or a tool (lone surrogates, NaN, deep nesting: see
``kernel.trust.untrusted``) can be sent again to any provider.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Union

from .json_safe import clean_text, problem, sanitised


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ToolUse:
    """The model asked to call ``name`` with ``input``; ``id`` pairs it with its result."""

    id: str
    name: str
    input: Mapping[str, Any]
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResultPart:
    """What a tool call returned (``is_error``: an error or a refusal, shown to the model as such)."""

    tool_use_id: str
    name: str
    content: str
    is_error: bool = False


Part = Union[TextPart, ToolUse, ToolResultPart]
Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: what the kernel sends beside the conversation."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True)
class Message:
    role: Role
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_uses(self) -> tuple[ToolUse, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolUse))


def user_text(text: str) -> Message:
    return Message("user", (TextPart(text),))


def _encodable_part(part: Part) -> Part:
    match part:
        case TextPart(text=text):
            clean = clean_text(text)
            return part if clean is text else TextPart(clean)
        case ToolUse(id=call_id, name=name, input=tool_input, meta=meta):
            if (clean_text(call_id) is call_id and clean_text(name) is name and isinstance(tool_input, Mapping)
                    and problem(tool_input) is None and problem(meta) is None):
                return part
            safe_input = sanitised(tool_input) if isinstance(tool_input, Mapping) else {}
            return ToolUse(clean_text(call_id), clean_text(name), safe_input, sanitised(meta))
        case ToolResultPart(tool_use_id=call_id, name=name, content=content):
            if clean_text(call_id) is call_id and clean_text(name) is name and clean_text(content) is content:
                return part
            return ToolResultPart(clean_text(call_id), clean_text(name), clean_text(content), part.is_error)
    return part


def encodable(message: Message) -> Message:
    """``message`` with anything no provider could encode made safe (the same object when nothing was)."""
    parts = tuple(_encodable_part(p) for p in message.parts)
    if all(a is b for a, b in zip(parts, message.parts)):
        return message
    return Message(message.role, parts)


def appended(conversation: tuple[Message, ...], message: Message) -> tuple[Message, ...]:
    """``conversation`` with ``message`` added, made encodable; a user message right after another
    user message is merged into it (the agent loop and a rebuild from the record both use this)."""
    message = encodable(message)
    last = conversation[-1] if conversation else None
    if message.role == "user" and last is not None and last.role == "user":
        return conversation[:-1] + (Message("user", last.parts + message.parts),)
    return conversation + (message,)
