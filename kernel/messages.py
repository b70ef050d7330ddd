"""The provider-neutral conversation: frozen parts, translated only at the edge.

An agent's history is a tuple of ``Message``s. Every provider adapter
translates each part to its wire format and back, and refuses what it cannot
represent. ``ToolUse.meta`` carries opaque provider data that must be echoed
back unchanged (for example Gemini's thought signature).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Union


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


Conversation = tuple[Message, ...]
