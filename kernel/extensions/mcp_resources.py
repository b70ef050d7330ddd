"""An MCP server's resources: listed, checked, read, and offered to the model as one tool per server.

A server that says it offers resources gets a tool ``mcp__<server>__read_resource`` under the scope
``mcp.<server>.resources`` (class read, R2 like a read-only MCP tool: the read leaves the process), whose
output is untrusted and capped like any MCP tool result; pictures go through the same path as a tool's
(``mcp_images``). A tool the server lists under the name ``resources`` would share that scope, so it is
refused (``mcp_hub``, as any scope collision).

Which URIs the model may ask for: one the server lists, one a resource template of the server describes
(RFC 6570 expressions matched loosely: ``{x}`` one path segment, ``{+x}``/``{#x}`` anything), or one the
server itself handed over as a ``resource_link`` or embedded resource in a tool result. Anything else is
refused before the server is asked, so a model cannot probe a filesystem server for paths it never offered.
The kernel never opens a URI itself (not even ``file://``): a read is a ``resources/read`` request to the
server, which serves what it serves; the check only narrows what the model can ask of it.
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from ..core.errors import RegistryError, ToolFailure
from ..core.json_safe import clean_text
from ..core.risk import Risk
from ..tools.descriptor import Runner, ToolDescriptor, ToolOutput
from ..trust.untrusted import capped
from .mcp_client import McpConnection, McpError
from .mcp_images import pictures
from .mcp_names import server_scope, wire_name
from .mcp_offers import McpResource
from .mcp_tools import OUTPUT_MAX_CHARS

if TYPE_CHECKING:
    from ..core.messages import ImagePart
    from ..images.store import ImageStore
    from ..tools.registry import ToolRegistry
    from ..redaction.cuts import Spans

RESOURCES = "resources"          # the last part of a server's read scope: mcp.<server>.resources
READ_TOOL = "read_resource"      # mcp__<server>__read_resource
URI_MAX = 2048
LISTED_MAX = 1000                # resources (and templates) kept per server listing
LINKED_MAX = 1000                # URIs a server handed over in tool results, remembered for reading
MAX_PAGES = 20
TEXT_MAX = 200                   # a name or description as listed


@dataclass
class ServerResources:
    """What one server offers to read: its last listing, its templates, and the links it handed over."""

    listed: dict[str, McpResource] = field(default_factory=dict)
    templates: tuple[str, ...] = ()
    linked: dict[str, None] = field(default_factory=dict)   # insertion order: the oldest go first

    def note_links(self, content: Iterable[Any]) -> None:
        """Remember the URIs of ``resource_link`` and embedded ``resource`` blocks of a tool result."""
        for block in content:
            kind = getattr(block, "type", None)
            uri = getattr(block, "uri", None) if kind == "resource_link" else \
                getattr(getattr(block, "resource", None), "uri", None) if kind == "resource" else None
            if isinstance(uri, str) and uri_problem(uri) is None:
                self.linked.pop(uri, None)
                self.linked[uri] = None
        while len(self.linked) > LINKED_MAX:
            self.linked.pop(next(iter(self.linked)))

    def knows(self, uri: str) -> bool:
        return uri in self.listed or uri in self.linked or any(template_matches(t, uri) for t in self.templates)


def scope_of_resources(server: str) -> str:
    return f"{server_scope(server)}.{RESOURCES}"


def offers_resources(connection: McpConnection) -> bool:
    return getattr(connection.capabilities, "resources", None) is not None


def subscribable(connection: McpConnection) -> bool:
    return bool(getattr(getattr(connection.capabilities, "resources", None), "subscribe", False))


def uri_problem(uri: object) -> str | None:
    """Why ``uri`` is no URI to ask a server for (length, control characters, no scheme), or None."""
    if not isinstance(uri, str) or not uri or len(uri) > URI_MAX:
        return f"a resource URI is text of 1 to {URI_MAX} characters"
    if not uri.isprintable() or any(c.isspace() for c in uri):
        return "a resource URI has no spaces or control characters"
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri):
        return "a resource URI starts with a scheme (note://…, file://…)"
    return None


_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")


def template_matches(template: str, uri: str) -> bool:
    """Whether ``uri`` is one ``template`` (RFC 6570) could expand to, read loosely."""
    pattern, end = [], 0
    for m in _EXPRESSION.finditer(template):
        pattern.append(re.escape(template[end:m.start()]))
        op = m.group(1)
        pattern.append(".*" if op in ("+", "#") else r"(?:[?&].*)?" if op in ("?", "&") else r"[^/?#]*")
        end = m.end()
    pattern.append(re.escape(template[end:]))
    try:
        return re.fullmatch("".join(pattern), uri) is not None
    except re.error:
        return False


async def list_resources(connection: McpConnection, into: ServerResources) -> tuple[McpResource, ...]:
    """The server's resources and templates now (kept in ``into``); McpError when it fails."""
    sub = subscribable(connection)

    async def pages(client: Any) -> tuple[list[McpResource], list[str]]:
        found: list[McpResource] = []
        cursor = None
        for _ in range(MAX_PAGES):
            page = await client.list_resources(cursor=cursor, cache_mode="refresh")
            found.extend(r for r in (_resource(connection.name, x, sub) for x in page.resources or ()) if r)
            cursor = page.next_cursor
            if not cursor or len(found) >= LISTED_MAX:
                break
        templates: list[str] = []
        try:
            listed = await client.list_resource_templates(cache_mode="refresh")
            templates = [t.uri_template for t in listed.resource_templates or () if isinstance(t.uri_template, str)
                         and len(t.uri_template) <= URI_MAX]
        except Exception:  # noqa: BLE001 - a server without templates may answer anything; it has none
            templates = []
        return found[:LISTED_MAX], templates[:LISTED_MAX]

    found, templates = await connection.request("listing its resources", pages)
    into.listed = {r.uri: r for r in found}
    into.templates = tuple(templates)
    return tuple(found)


def _resource(server: str, raw: Any, sub: bool) -> McpResource | None:
    uri = getattr(raw, "uri", None)
    if not isinstance(uri, str) or uri_problem(uri) is not None:
        return None
    name = clean_text(str(getattr(raw, "title", None) or getattr(raw, "name", None) or uri))[:TEXT_MAX]
    return McpResource(server, uri, name, clean_text(str(getattr(raw, "description", None) or ""))[:TEXT_MAX],
                       clean_text(str(getattr(raw, "mime_type", None) or ""))[:80], sub)


async def check_uri(connection: McpConnection, known: ServerResources, uri: str) -> None:
    """ToolFailure unless the server offers ``uri`` (listed, a template's, or handed over); lists it again once."""
    if (why := uri_problem(uri)) is not None:
        raise ToolFailure(why)
    if known.knows(uri):
        return
    try:
        await list_resources(connection, known)
    except McpError as exc:
        raise ToolFailure(exc.message, source=f"MCP server {connection.name}") from None
    if not known.knows(uri):
        raise ToolFailure(f"the MCP server {connection.name} does not offer the resource {uri[:200]}: read one "
                          "it lists, one its templates describe, or one it linked to in a tool result")


async def read_contents(connection: McpConnection, uri: str) -> list[Any]:
    """The server's contents for ``uri`` (never from a cache: a read is always the server's answer now)."""
    result = await connection.request(f"reading {uri[:200]}",
                                      lambda client: client.read_resource(uri, cache_mode="bypass"))
    return list(getattr(result, "contents", None) or [])


async def read_output(connection: McpConnection, known: ServerResources, uri: str,
                      images: "ImageStore | None" = None, finder: "Spans | None" = None) -> ToolOutput:
    """Read one resource the server offers, as an untrusted tool output (text capped, pictures shown)."""
    await check_uri(connection, known, uri)
    source = f"MCP server {connection.name}, resource {uri[:200]}"
    try:
        contents = await read_contents(connection, uri)
    except McpError as exc:  # the server's own words: untrusted
        raise ToolFailure(exc.message, source=source) from None
    text, shown = await contents_text(contents, images, connection.name, finder)
    return ToolOutput(text, data={"server": connection.name, "uri": uri[:URI_MAX], "chars": len(text),
                                  "images": len(shown)}, source=source, images=shown)


async def contents_text(contents: list[Any], images: "ImageStore | None", server: str,
                        finder: "Spans | None" = None) -> tuple[str, tuple[ImagePart, ...]]:
    """A read's contents as text the model reads (each part headed by its URI) and the pictures shown."""
    blocks = [types.SimpleNamespace(type="resource", resource=c) for c in contents]
    shown, notes = await pictures(blocks, images, server, "resource")
    parts: list[str] = []
    for index, content in enumerate(contents):
        uri = str(getattr(content, "uri", "?"))[:200]
        text = getattr(content, "text", None)
        if index in notes:
            parts.append(f"[{uri}] {notes[index]}")
        elif isinstance(text, str):
            parts.append(f"[{uri}]\n{text}")
        else:
            blob = getattr(content, "blob", "") or ""
            mime = getattr(content, "mime_type", None) or "?"
            parts.append(f"[{uri}] [{mime}, {len(blob) * 3 // 4:,} bytes, not shown]")
    return capped(clean_text("\n".join(parts) or "[the resource is empty]"), OUTPUT_MAX_CHARS, finder), shown


def resource_tool(server: str, run: Runner, timeout_s: float) -> ToolDescriptor:
    """``mcp__<server>__read_resource``: read one of the server's resources by URI."""
    return ToolDescriptor(
        name=wire_name(server, READ_TOOL),
        description=(f"Read a resource of the MCP server {server} by its URI: one it lists, one its resource "
                     "templates describe, or one it linked to in a tool result (a resource link names the URI "
                     "and this tool). The contents are the server's, untrusted."),
        input_schema={"type": "object", "properties": {"uri": {"type": "string", "minLength": 1,
                                                               "maxLength": URI_MAX}},
                      "required": ["uri"], "additionalProperties": False},
        output_schema={}, tool_class="read", scope=scope_of_resources(server), run=run, risk=Risk.NETWORK_READ,
        trusted=False, timeout_s=timeout_s,
        notes_of=lambda _input: (f"{server} is an MCP server: what it returns for a resource is up to it",),
    )


def offer_resource_tool(registry: "ToolRegistry", server: str, connection: McpConnection, current: str | None,
                        run: Runner) -> str | None:
    """Register the server's read tool once it says it offers resources (again when its timeout changed);
    returns the tool's wire name, or None (no resources, or the name is taken)."""
    if not offers_resources(connection):
        return current
    timeout = connection.config.timeout_s
    if current is not None:
        known = registry.get(current)
        if known is not None and known.timeout_s == timeout:
            return current
        registry.remove(current)
    descriptor = resource_tool(server, run, timeout)
    try:
        registry.add(descriptor)
    except RegistryError:
        return None
    return descriptor.name
