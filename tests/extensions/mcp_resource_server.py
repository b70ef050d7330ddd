"""A stdio MCP server with resources and prompts, written with the official SDK, for the tests (a real process).

Resources: ``note://today`` (text; ``touch`` changes it and says so to subscribers), ``note://big`` (more
text than a tool result may carry), ``pic://dot`` (a PNG), and the template ``note://day/{day}``; they can be
subscribed to on both revisions (``resources/subscribe`` answered on 2025 ones). Tools: ``link`` (a result
holding a ``resource_link`` to ``note://today`` and one to ``note://day/monday``), ``touch``, and
``resources`` (its scope would be the read scope's: left out). Prompts: ``review`` (``path`` required,
``tone`` optional; completion offers paths), ``hello`` (no arguments).
"""

from __future__ import annotations

import io

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp.types import (
    Completion, EmptyResult, PromptReference, ResourceLink, SubscribeRequestParams, TextContent, ToolAnnotations,
)

server = MCPServer("agentdesk-resources")
TODAY = ["today: water the plants"]


@server.resource("note://today", name="today", description="Today's note.", mime_type="text/plain")
def today() -> str:
    return TODAY[0]


@server.resource("note://big", name="big", description="A long note.", mime_type="text/plain")
def big() -> str:
    return "b" * 300_000


@server.resource("pic://dot", name="dot", description="A small picture.", mime_type="image/png")
def dot() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 10, 10)).save(out, "PNG")
    return out.getvalue()


@server.resource("note://day/{day}", name="day", description="One day's note.", mime_type="text/plain")
def day(day: str) -> str:
    return f"the note for {day}"


@server.tool(description="Links to two notes.", annotations=ToolAnnotations(read_only_hint=True))
def link() -> list:
    return [TextContent(type="text", text="two notes"),
            ResourceLink(type="resource_link", uri="note://today", name="today"),
            ResourceLink(type="resource_link", uri="note://day/monday", name="monday")]


@server.tool(name="resources", description="Shares its scope with reading resources: left out.",
             annotations=ToolAnnotations(read_only_hint=True))
def resources_tool() -> str:
    return "never offered"


@server.tool(description="Changes today's note.", annotations=ToolAnnotations(read_only_hint=True))
async def touch(text: str, ctx: Context) -> str:
    TODAY[0] = text
    await ctx.notify_resource_updated("note://today")  # the 2026 revision: to listen streams
    try:
        await ctx.request_context.session.send_resource_updated("note://today")  # the handshake era
    except Exception:  # noqa: BLE001 - a 2026 session has no such notification
        pass
    return "touched"


@server.prompt(description="Review a file.")
def review(path: str, tone: str = "kind") -> list:
    return [UserMessage(f"Please review {path} in a {tone} tone."),
            AssistantMessage("I will read it first.")]


@server.prompt(description="Say hello.")
def hello() -> str:
    return "Hello from the server's prompt."


@server.completion()
async def complete(ref: object, argument: object, context: object) -> Completion | None:
    if isinstance(ref, PromptReference) and ref.name == "review" and getattr(argument, "name", "") == "path":
        typed = str(getattr(argument, "value", ""))
        return Completion(values=[p for p in ("notes.md", "news.md", "todo.md") if p.startswith(typed)])
    return None


async def _subscribe(ctx: object, params: object) -> EmptyResult:
    return EmptyResult()  # the handshake era's resources/subscribe: touch notifies every session anyway


server._lowlevel_server.add_request_handler("resources/subscribe", SubscribeRequestParams, _subscribe)


if __name__ == "__main__":
    server.run("stdio")
