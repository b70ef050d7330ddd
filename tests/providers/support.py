"""Helpers for the provider contract suite: drive a stream, read recorded request bodies.

``wire_conversation`` turns each protocol's recorded request body back into one
neutral shape, so a single assertion checks all four translations.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from kernel.core.errors import ProviderError
from kernel.providers.base import ProviderRequest, StreamEnd, TextChunk, ToolCallReady, UsageReport
from kernel.providers.openai_common import ERROR_PREFIX


@dataclass
class Outcome:
    events: list[Any] = field(default_factory=list)
    error: ProviderError | None = None

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextChunk))

    @property
    def text_deltas(self) -> int:
        return sum(isinstance(e, TextChunk) for e in self.events)

    @property
    def calls(self) -> list[ToolCallReady]:
        return [e for e in self.events if isinstance(e, ToolCallReady)]

    @property
    def stop(self) -> str | None:
        ends = [e for e in self.events if isinstance(e, StreamEnd)]
        return ends[-1].stop_reason if ends else None

    @property
    def usage(self) -> tuple[int | None, int | None]:
        """Usage reports merged field by field, later values replacing earlier ones."""
        inp = out = None
        for e in self.events:
            if isinstance(e, UsageReport):
                inp = e.input_tokens if e.input_tokens is not None else inp
                out = e.output_tokens if e.output_tokens is not None else out
        return inp, out


    @property
    def request_id(self) -> str | None:
        ends = [e for e in self.events if isinstance(e, StreamEnd)]
        return ends[-1].request_id if ends else None

    @property
    def served_model(self) -> str | None:
        ends = [e for e in self.events if isinstance(e, StreamEnd)]
        return ends[-1].served_model if ends else None

    @property
    def cache(self) -> tuple[int | None, int | None]:
        """Cache read and written tokens, merged like ``usage``."""
        read = write = None
        for e in self.events:
            if isinstance(e, UsageReport):
                read = e.cache_read_tokens if e.cache_read_tokens is not None else read
                write = e.cache_write_tokens if e.cache_write_tokens is not None else write
        return read, write


async def collect(provider: Any, request: ProviderRequest) -> Outcome:
    outcome = Outcome()
    try:
        async for event in provider.stream(request):
            outcome.events.append(event)
    except ProviderError as exc:
        outcome.error = exc
    return outcome


def run(provider: Any, request: ProviderRequest) -> Outcome:
    """Stream one request to the end on a fresh loop, then close the provider."""

    async def go() -> Outcome:
        try:
            return await collect(provider, request)
        finally:
            await provider.aclose()

    return asyncio.run(go())


class RecordingSleep:
    """An injected sleep that records how long it was asked to wait, and returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def wire_conversation(protocol: str, body: dict[str, Any]) -> tuple[str | None, list[tuple[Any, ...]]]:
    """(system prompt, [(role, "text", text) | (role, "call", id, name, input) | (role, "result", id, text, is_error)])."""
    return _READERS[protocol](body)


def _anthropic(body: dict[str, Any]) -> tuple[str | None, list[tuple[Any, ...]]]:
    out: list[tuple[Any, ...]] = []
    for m in body["messages"]:
        for b in m["content"]:
            if b["type"] == "text":
                out.append((m["role"], "text", b["text"]))
            elif b["type"] == "tool_use":
                out.append((m["role"], "call", b["id"], b["name"], b["input"]))
            elif b["type"] == "tool_result":
                out.append((m["role"], "result", b["tool_use_id"], b["content"], bool(b.get("is_error"))))
    return body.get("system"), out


def _unprefix(text: str) -> tuple[str, bool]:
    return (text[len(ERROR_PREFIX):], True) if text.startswith(ERROR_PREFIX) else (text, False)


def _responses(body: dict[str, Any]) -> tuple[str | None, list[tuple[Any, ...]]]:
    out: list[tuple[Any, ...]] = []
    for item in body["input"]:
        kind = item.get("type", "message")
        if kind == "message":
            out.append((item["role"], "text", item["content"]))
        elif kind == "function_call":
            out.append(("assistant", "call", item["call_id"], item["name"], json.loads(item["arguments"])))
        elif kind == "function_call_output":
            out.append(("user", "result", item["call_id"], *_unprefix(item["output"])))
    return body.get("instructions"), out


def _chat(body: dict[str, Any]) -> tuple[str | None, list[tuple[Any, ...]]]:
    out: list[tuple[Any, ...]] = []
    system = None
    for m in body["messages"]:
        if m["role"] == "system":
            system = m["content"]
        elif m["role"] == "tool":
            out.append(("user", "result", m["tool_call_id"], *_unprefix(m["content"])))
        else:
            if m.get("content"):
                out.append((m["role"], "text", m["content"]))
            for c in m.get("tool_calls") or ():
                out.append(("assistant", "call", c["id"], c["function"]["name"],
                            json.loads(c["function"]["arguments"])))
    return system, out


def _gemini(body: dict[str, Any]) -> tuple[str | None, list[tuple[Any, ...]]]:
    out: list[tuple[Any, ...]] = []
    for c in body["contents"]:
        role = "assistant" if c["role"] == "model" else "user"
        for p in c["parts"]:
            if "text" in p:
                out.append((role, "text", p["text"]))
            elif "functionCall" in p:
                fc = p["functionCall"]
                out.append((role, "call", fc.get("id"), fc["name"], fc.get("args", {})))
            elif "functionResponse" in p:
                fr = p["functionResponse"]
                response = fr["response"]
                is_error = "error" in response
                out.append((role, "result", fr.get("id"), response["error" if is_error else "output"], is_error))
    instruction = body.get("systemInstruction")
    system = "".join(p.get("text", "") for p in instruction["parts"]) if instruction else None
    return system, out


_READERS = {"anthropic": _anthropic, "openai_responses": _responses, "openai_chat": _chat, "gemini": _gemini}


def wire_tools(protocol: str, body: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """The declared tools as (name, description, JSON schema), whatever the protocol."""
    tools = body.get("tools") or []
    if protocol == "anthropic":
        return [(t["name"], t["description"], t["input_schema"]) for t in tools]
    if protocol == "openai_responses":
        return [(t["name"], t["description"], t["parameters"]) for t in tools]
    if protocol == "openai_chat":
        return [(t["function"]["name"], t["function"]["description"], t["function"]["parameters"]) for t in tools]
    return [(d["name"], d["description"], d["parameters_json_schema"])
            for t in tools for d in t["functionDeclarations"]]
