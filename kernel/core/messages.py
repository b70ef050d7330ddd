"""The provider-neutral conversation: frozen parts, translated only at the edge.

An agent's history is a tuple of ``Message``s. Every provider adapter
translates each part to its wire format and back, and refuses what it cannot
represent. ``ToolUse.meta`` carries opaque provider data that must be echoed
back unchanged (for example Gemini's thought signature).

An ``ImagePart`` names an image by the sha256 of its (already fitted) bytes,
which live in the ledger's content-addressed blob store: a screenshot sent
twice is stored once, and the conversation stays small and plain data. The
bytes travel beside the conversation (``ProviderRequest.images``), filled in
just before a request by ``kernel.images``. Images sit in user turns and
inside tool results (``ToolResultPart.images``).

``encodable`` is applied to every message an agent keeps, so that whatever
came from a model or a tool (lone surrogates, NaN, deep nesting: see
``kernel.trust.untrusted``) can be sent again to any provider.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping, Union

from .json_safe import clean_text, problem, sanitised


@dataclass(frozen=True)
class TextPart:
    text: str


ImageOrigin = Literal["paste", "file", "tool", "mcp", "channel", "web", "mail"]
IMAGE_MEDIA_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")


@dataclass(frozen=True)
class ImagePart:
    """An image the model is shown: its fitted bytes are the blob ``sha256`` of ``size`` bytes.

    ``origin`` says how it came in; ``path`` is the workspace path when it is a file; ``label`` names
    it in words ("fs_read shot.png", "pasted image") for placeholders and views; ``untrusted`` is set
    for pictures from outside (the web, an MCP server, mail, a channel, a file a tainted agent wrote):
    text inside a picture can carry instructions like any other text."""

    sha256: str
    media_type: str
    width: int
    height: int
    size: int
    origin: ImageOrigin
    path: str | None = None
    label: str = ""
    untrusted: bool = False

    @property
    def format(self) -> str:
        """The short format name: png, jpeg, webp, gif."""
        return self.media_type.rpartition("/")[2]

    def placeholder(self, why: str) -> str:
        """The one line a model reads instead of the picture."""
        where = f" from {self.label}" if self.label else ""
        return f"[image {self.width}\u00d7{self.height} {self.format}{where}: {why}]"


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
    images: tuple[ImagePart, ...] = ()


Part = Union[TextPart, ToolUse, ToolResultPart, ImagePart]
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

    @property
    def images(self) -> tuple[ImagePart, ...]:
        """Every image of this message, in order: its own and those inside its tool results."""
        out: list[ImagePart] = []
        for p in self.parts:
            if isinstance(p, ImagePart):
                out.append(p)
            elif isinstance(p, ToolResultPart):
                out.extend(p.images)
        return tuple(out)


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
            return ToolResultPart(clean_text(call_id), clean_text(name), clean_text(content), part.is_error,
                                  part.images)
        case ImagePart(label=label, path=path):
            if clean_text(label) is label and (path is None or clean_text(path) is path):
                return part
            return replace(part, label=clean_text(label), path=None if path is None else clean_text(path))
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


_HEX = frozenset("0123456789abcdef")


def image_json(part: ImagePart) -> dict[str, Any]:
    """An image part as plain JSON (the ledger's ``images`` fields, the provider host's wire)."""
    out: dict[str, Any] = {"sha256": part.sha256, "media_type": part.media_type, "width": part.width,
                           "height": part.height, "size": part.size, "origin": part.origin, "label": part.label}
    if part.path is not None:
        out["path"] = part.path
    if part.untrusted:
        out["untrusted"] = True
    return out


def image_of(data: Any) -> ImagePart | None:
    """An image part read back from JSON (hostile input: anything malformed reads as None)."""
    if not isinstance(data, Mapping):
        return None
    sha, media, origin = data.get("sha256"), data.get("media_type"), data.get("origin")
    dims: list[Any] = [data.get(k) for k in ("width", "height", "size")]
    if not (isinstance(sha, str) and len(sha) == 64 and set(sha) <= _HEX and media in IMAGE_MEDIA_TYPES
            and origin in ("paste", "file", "tool", "mcp", "channel", "web", "mail")
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in dims)):
        return None
    path, label = data.get("path"), data.get("label")
    width, height, size = (int(v) for v in dims)
    return ImagePart(sha, media, width, height, size, origin,
                     path=clean_text(path) if isinstance(path, str) else None,
                     label=clean_text(label) if isinstance(label, str) else "",
                     untrusted=data.get("untrusted") is True)


def images_of(data: Any) -> tuple[ImagePart, ...]:
    """The image parts of a JSON list (malformed items left out)."""
    if not isinstance(data, (list, tuple)):
        return ()
    return tuple(p for p in (image_of(d) for d in data) if p is not None)
