"""An MCP server's tool as an Agentdesk tool descriptor: hostile listing in, checked descriptor out.

Everything a server lists is a claim from a program we did not write: the name is sanitised to the
wire alphabet (``mcp_names``), the description is cleaned and capped (and reaches the model between the
agent's provenance markers, ``described_by``: it is the server's text, not ours), and the input schema must be
a JSON object of bounded size and depth that is a valid 2020-12 schema of ``"type": "object"`` (the
registry's own check): a schema that fails disables that tool, with the reason, and the rest of
the server still works. Annotations are hints, never a grant: ``readOnlyHint`` makes a tool R2
(a network read: it leaves the process), anything else, or nothing, R3. Output is always untrusted
(``trusted=False``) and capped, head and tail, before the model sees it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping

from ..core.errors import RegistryError
from ..tools.descriptor import Risk, Runner, ToolDescriptor
from ..tools.registry import check_descriptor
from ..redaction.cuts import Spans
from ..core.json_safe import clean_text, problem
from ..trust.untrusted import capped
from .mcp_names import scope_name, tool_scope_problem, wire_name

DESCRIPTION_MAX = 1024
SCHEMA_MAX_BYTES = 64 * 1024
OUTPUT_MAX_CHARS = 100_000
TOOL_NAME_MAX = 256
ANY_OUTPUT: Mapping[str, Any] = {}


@dataclass(frozen=True)
class ListedTool:
    """One tool as a server listed it, reduced to plain data (what the SDK parsed)."""

    name: str
    description: str
    input_schema: Any
    read_only: bool | None = None
    destructive: bool | None = None

    def fingerprint(self) -> str:
        """Changes when anything the model or the lease dialog relies on changes."""
        try:
            schema = json.dumps(self.input_schema, sort_keys=True, default=repr)
        except (TypeError, ValueError, RecursionError):
            schema = repr(self.input_schema)[:SCHEMA_MAX_BYTES]
        blob = json.dumps([self.description, schema, self.read_only, self.destructive])
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def risk_of(tool: ListedTool) -> Risk:
    """R2 for a tool that says it only reads; R3 for a destructive one or one that says nothing."""
    return Risk.NETWORK_READ if tool.read_only is True else Risk.OUTWARD


def schema_problem(schema: Any) -> str | None:
    """Why a listed input schema cannot be used (size, depth, type), before the registry checks it."""
    if not isinstance(schema, Mapping):
        return "its input schema is not a JSON object"
    if (why := problem(schema, "its input schema")) is not None:
        return why
    try:
        size = len(json.dumps(schema))
    except (TypeError, ValueError, RecursionError):
        return "its input schema is not JSON"
    if size > SCHEMA_MAX_BYTES:
        return f"its input schema is {size:,} bytes (at most {SCHEMA_MAX_BYTES:,})"
    return None


def describe(server: str, tool: ListedTool, run: Runner, timeout_s: float) -> ToolDescriptor:
    """The descriptor for one listed tool; RegistryError (reason ``schema`` or ``name``) when unusable."""
    if not isinstance(tool.name, str) or not tool.name or len(tool.name) > TOOL_NAME_MAX \
            or not tool.name.isprintable():
        raise RegistryError(repr(tool.name)[:80], "name", "an MCP tool name must be printable text of 1 to 256 "
                                                          "characters")
    if (why := tool_scope_problem(tool.name)) is not None:
        raise RegistryError(repr(tool.name)[:80], "name", why)
    name = wire_name(server, tool.name)
    if (why := schema_problem(tool.input_schema)) is not None:
        raise RegistryError(name, "schema", why)
    text = clean_text(tool.description or "").strip() or f"The tool {tool.name} of the MCP server {server}."
    description = capped(f"[MCP server {server}, tool {tool.name}] {text}", DESCRIPTION_MAX)
    read_only = tool.read_only is True
    descriptor = ToolDescriptor(
        name=name, description=description, input_schema=dict(tool.input_schema), output_schema=ANY_OUTPUT,
        tool_class="read" if read_only else "execute", scope=scope_name(server, tool.name), run=run,
        risk=risk_of(tool), trusted=False, timeout_s=timeout_s, described_by=f"MCP server {server}, tool {tool.name}",
        notes_of=lambda _input: (f"{server} is an MCP server: what it does with this call is up to it; "
                                 f"its own label for the tool is {'read-only' if read_only else 'not read-only'}",),
    )
    check_descriptor(descriptor)
    return descriptor


def result_text(content: list[Any], structured: Any, finder: "Spans | None" = None,
                notes: Mapping[int, str] | None = None, reader: str | None = None) -> str:
    """A call result's content blocks as text the model can read (media are named, not inlined; ``notes``
    words the pictures shown beside the text, by block index; a resource link names ``reader``, the tool
    that reads it), capped (around any secret crossing a cut, given the kernel's redactor as ``finder``)."""
    parts: list[str] = []
    for index, block in enumerate(content):
        kind = getattr(block, "type", None)
        if notes and index in notes:
            parts.append(notes[index])
        elif kind == "text":
            parts.append(str(getattr(block, "text", "")))
        elif kind in ("image", "audio"):
            data = getattr(block, "data", "") or ""
            parts.append(f"[{kind} {getattr(block, 'mime_type', '?')}, {len(data):,} base64 characters, not shown]")
        elif kind == "resource":
            inner = getattr(block, "resource", None)
            text = getattr(inner, "text", None)
            parts.append(str(text) if text is not None else f"[resource {getattr(inner, 'uri', '?')}, not shown]")
        elif kind == "resource_link":
            parts.append(link_words(block, reader))
        else:
            parts.append(f"[{kind or 'unknown'} content, not shown]")
    if not parts and structured is not None:
        try:
            parts.append(json.dumps(structured, ensure_ascii=False)[: OUTPUT_MAX_CHARS + 1])
        except (TypeError, ValueError, RecursionError):
            parts.append("[structured content that is not JSON]")
    return capped(clean_text("\n".join(parts)), OUTPUT_MAX_CHARS, finder)


def link_words(block: Any, reader: str | None) -> str:
    """A ``resource_link`` as the model reads it: its URI, its name, and the tool that reads it (if any)."""
    uri = str(getattr(block, "uri", "?"))[:2048]
    name = getattr(block, "name", None)
    named = f" ({str(name)[:200]})" if name and name != uri else ""
    if reader is None:
        return f"[resource link {uri}{named}: this server offers no way to read it]"
    return f'[resource link {uri}{named}: read it with the tool {reader}, {{"uri": "{uri}"}}]'
