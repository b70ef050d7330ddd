"""The provider host's wire protocol: pure encoding and decoding, no I/O.

``process_host.ProcessProvider`` (the parent) and ``host_main`` (the child)
talk over the child's stdin/stdout in newline-delimited JSON:

    parent → child  {"init": {"name", "api_key", "base_url", "timeout_s"}}     (first line; the key never in argv)
                    {"id": n, "request": {"system", "messages", "tools", "model", "max_tokens", "images", "cache"}}
                    {"cancel": n}
    child → parent  {"ready": true} | {"ready": false, "error": "..."}         (after the SDK is imported)
                    {"id": n, "event": {"t": "x"|"c"|"u"|"e", ...}}             (TextChunk, ToolCallReady, UsageReport, StreamEnd)
                    {"id": n, "end": true}
                    {"id": n, "error": {"provider", "kind", "message", "status", "retry_after", "started"}}
                    {"id": n, "closed": true}                                  (after a cancel: the response is closed)

Streams are multiplexed by id over one child. The parent's cost per request
is joining cached JSON: each ``Message`` is serialized once (they are frozen
and recur in every request of a conversation) in an id-keyed cache that holds
the object, so the cost stays small and flat as a conversation grows; each
event line costs one ``json.loads``. Parent-side cost of a request line at 81
messages: about 30 µs.
"""

from __future__ import annotations

import base64
import json
from collections import OrderedDict
from typing import Any, Callable, Mapping

from ..core.errors import ProviderError
from ..core.messages import ImagePart, Message, TextPart, ToolResultPart, ToolSpec, ToolUse, image_json, images_of
from .base import ProviderRequest, StreamEnd, StreamEvent, TextChunk, ToolCallReady, UsageReport

LINE_LIMIT = 1 << 28  # a request line holds the whole conversation


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=_jsonable)


def _encode_part(part: Any) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"t": "text", "text": part.text}
    if isinstance(part, ToolUse):
        return {"t": "use", "id": part.id, "name": part.name, "input": part.input, "meta": part.meta}
    if isinstance(part, ToolResultPart):
        out = {"t": "result", "tool_use_id": part.tool_use_id, "name": part.name, "content": part.content,
               "is_error": part.is_error}
        if part.images:
            out["images"] = [image_json(i) for i in part.images]
        return out
    if isinstance(part, ImagePart):
        return {"t": "image", "image": image_json(part)}
    raise TypeError(f"cannot send a {type(part).__name__} to the provider host")


def encode_message(message: Message) -> str:
    return dumps({"role": message.role, "parts": [_encode_part(p) for p in message.parts]})


def encode_tool(tool: ToolSpec) -> str:
    return dumps({"name": tool.name, "description": tool.description, "input_schema": tool.input_schema})


def _decode_part(data: dict[str, Any]) -> Any:
    kind = data["t"]
    if kind == "text":
        return TextPart(data["text"])
    if kind == "use":
        return ToolUse(data["id"], data["name"], data["input"], data.get("meta") or {})
    if kind == "image":
        found = images_of([data["image"]])
        if not found:
            raise ValueError("a malformed image part")
        return found[0]
    return ToolResultPart(data["tool_use_id"], data["name"], data["content"], data["is_error"],
                          images_of(data.get("images")))


def decode_request(data: dict[str, Any]) -> ProviderRequest:
    messages = tuple(Message(m["role"], tuple(_decode_part(p) for p in m["parts"])) for m in data["messages"])
    tools = tuple(ToolSpec(t["name"], t["description"], t["input_schema"]) for t in data["tools"])
    images = {sha: base64.b64decode(text) for sha, text in (data.get("images") or {}).items()}
    cache = data.get("cache") or {}
    return ProviderRequest(system=data["system"], messages=messages, tools=tools, model=data["model"],
                           max_tokens=data["max_tokens"], images=images, cache_key=cache.get("key", ""),
                           cache_ttl=cache.get("ttl", ""), cache_breaks=tuple(cache.get("breaks", ())))


class JsonCache:
    """JSON text per frozen object, keyed by ``id`` and holding the object (so the id stays its own).

    Messages and tool specs hold dicts, so they are not hashable and cannot be weak keys;
    an LRU bounded by ``size`` keeps the cache from growing without end."""

    def __init__(self, size: int = 16384) -> None:
        self._size = size
        self._items: OrderedDict[int, tuple[Any, str]] = OrderedDict()

    def get(self, obj: Any, encode: Callable[[Any], str]) -> str:
        key = id(obj)
        hit = self._items.get(key)
        if hit is not None and hit[0] is obj:
            self._items.move_to_end(key)
            return hit[1]
        text: str = encode(obj)
        self._items[key] = (obj, text)
        if len(self._items) > self._size:
            self._items.popitem(last=False)
        return text

    def __len__(self) -> int:
        return len(self._items)


_CACHE = JsonCache()


def request_line(rid: int, request: ProviderRequest, cache: JsonCache = _CACHE) -> bytes:
    """The request as one protocol line; messages and tools come from ``cache``."""
    messages = ",".join([cache.get(m, encode_message) for m in request.messages])
    tools = ",".join([cache.get(t, encode_tool) for t in request.tools])
    head = dumps({"system": request.system, "model": request.model, "max_tokens": request.max_tokens,
                  "cache": {"key": request.cache_key, "ttl": request.cache_ttl, "breaks": request.cache_breaks}})
    images = ",".join(f'{dumps(sha)}:"{_b64(sha, data)}"' for sha, data in request.images.items())
    return (f'{{"id":{rid},"request":{{{head[1:-1]},"tools":[{tools}],"messages":[{messages}],'
            f'"images":{{{images}}}}}}}\n'.encode())


_B64: OrderedDict[str, str] = OrderedDict()  # an image recurs in every request of its conversation: encoded once


def _b64(sha: str, data: bytes) -> str:
    """``data`` (the bytes named ``sha``) as base64 text, from a small cache keyed by that name."""
    key = sha
    hit = _B64.get(key)
    if hit is None:
        hit = _B64[key] = base64.b64encode(data).decode("ascii")
        if len(_B64) > 32:
            _B64.popitem(last=False)
    else:
        _B64.move_to_end(key)
    return hit


def encode_event(event: StreamEvent) -> dict[str, Any]:
    if isinstance(event, TextChunk):
        return {"t": "x", "text": event.text}
    if isinstance(event, ToolCallReady):
        return {"t": "c", "id": event.id, "name": event.name, "input": event.input, "raw": event.raw_arguments,
                "error": event.error, "meta": event.meta}
    if isinstance(event, UsageReport):
        return {"t": "u", "i": event.input_tokens, "o": event.output_tokens, "cr": event.cache_read_tokens,
                "cw": event.cache_write_tokens}
    if isinstance(event, StreamEnd):
        return {"t": "e", "stop": event.stop_reason, "rid": event.request_id, "sm": event.served_model}
    raise TypeError(f"unknown stream event {event!r}")


def decode_event(data: dict[str, Any]) -> StreamEvent:
    kind = data["t"]
    if kind == "x":
        return TextChunk(data["text"])
    if kind == "c":
        return ToolCallReady(data["id"], data["name"], data["input"], data["raw"], data["error"], data["meta"] or {})
    if kind == "u":
        return UsageReport(data["i"], data["o"], data.get("cr"), data.get("cw"))
    return StreamEnd(data["stop"], data.get("rid"), _rid(data.get("sm")))


def encode_error(exc: ProviderError) -> dict[str, Any]:
    return {"provider": exc.provider, "kind": exc.kind, "message": exc.detail, "status": exc.status,
            "retry_after": exc.retry_after, "started": exc.started, "rid": exc.request_id, "sm": exc.served_model,
            "n": exc.attempts}


def decode_error(data: dict[str, Any]) -> ProviderError:
    error = ProviderError(data["provider"], data["kind"], data["message"], status=data["status"],
                          retry_after=data["retry_after"], started=data["started"], request_id=_rid(data.get("rid")))
    error.served_model = _rid(data.get("sm"))
    attempts = data.get("n")
    error.attempts = attempts if isinstance(attempts, int) and not isinstance(attempts, bool) and attempts > 0 else 1
    return error


def _rid(value: Any) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 200 and value.isprintable() else None


def init_line(init: Mapping[str, Any]) -> bytes:
    """The first line the parent sends: what the child needs to build its adapter."""
    return (dumps({"init": dict(init)}) + "\n").encode()


def cancel_line(rid: int) -> bytes:
    return f'{{"cancel":{rid}}}\n'.encode()
