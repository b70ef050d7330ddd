"""A small stdio MCP server written with the official SDK, for the tests (run as a real process).

Tools: ``echo`` (read-only hint), ``shout`` (no hints: unknown risk), ``hang`` (never answers),
``crash`` (the process exits mid-call), ``drop_extra`` (removes the tool ``extra`` from the list,
so the client's next listing differs), ``extra``, ``big`` (a megabyte of text), ``huge`` (``mb`` megabytes), ``fail`` (an error result), and ``dup-name`` /
``dup_name`` (one name once sanitised for the wire), ``getenv`` (an environment variable's value: what
the kernel passed the server), ``pid`` (the server's process id: a test checks it ended). ``MCP_TEST_ECHO_NOTE`` in the environment changes echo's description
(a restarted server that lists a changed tool); ``MCP_TEST_SCHEMA_NOTE`` adds ``labelled``, whose input schema
carries that note in its descriptions, titles, an enum value and a nested model's field.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("agentdesk-test")


@server.tool(description="Repeat the text back." + os.environ.get("MCP_TEST_ECHO_NOTE", ""),
             annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    return f"echo: {text}"


NOTE = os.environ.get("MCP_TEST_SCHEMA_NOTE", "")
if NOTE:
    from pydantic import BaseModel, Field

    class Options(BaseModel):
        depth: int = Field(0, description="How deep." + NOTE)

    @server.tool(description="Label the text (listed only with MCP_TEST_SCHEMA_NOTE).",
                 annotations=ToolAnnotations(read_only_hint=True))
    def labelled(text: Annotated[str, Field(description="What to label." + NOTE, title="Text" + NOTE)],
                 mode: Annotated[Literal["fast", "slow" + NOTE], Field(description="How.")] = "fast",  # type: ignore[valid-type]
                 options: Options | None = None) -> str:
        return f"{mode}: {text}"


@server.tool(description="Repeat the text in capitals (declares no hints).")
def shout(text: str) -> str:
    return text.upper()


@server.tool(description="Never answers.", annotations=ToolAnnotations(read_only_hint=True))
async def hang() -> str:
    await asyncio.Event().wait()
    return "unreachable"


@server.tool(description="Makes the server process exit.", annotations=ToolAnnotations(destructive_hint=True))
def crash() -> str:
    sys.stdout.flush()
    os._exit(3)


@server.tool(description="An extra tool that drop_extra removes.", annotations=ToolAnnotations(read_only_hint=True))
def extra() -> str:
    return "extra"


@server.tool(description="Removes the tool named extra.", annotations=ToolAnnotations(read_only_hint=True))
async def drop_extra(ctx: Context) -> str:
    server.remove_tool("extra")
    await ctx.notify_tools_changed()  # the 2026 revision: to listen streams
    await ctx.request_context.session.send_tool_list_changed()  # the handshake era: a notification
    return "extra removed"


@server.tool(description="Returns a megabyte of text.", annotations=ToolAnnotations(read_only_hint=True))
def big() -> str:
    return "x" * (1 << 20)


@server.tool(description="Returns mb megabytes of text (one line on the wire).",
             annotations=ToolAnnotations(read_only_hint=True))
def huge(mb: int) -> str:
    return "y" * (mb << 20)


@server.tool(description="Reports an error.", annotations=ToolAnnotations(read_only_hint=True))
def fail() -> str:
    raise ValueError("the tool could not do it")


@server.tool(name="dup-name", description="Meets dup_name on the wire.", annotations=ToolAnnotations(read_only_hint=True))
def dup_dash() -> str:
    return "dash"


@server.tool(name="dup_name", description="Meets dup-name on the wire.", annotations=ToolAnnotations(read_only_hint=True))
def dup_underscore() -> str:
    return "underscore"


@server.tool(description="This server's process id.", annotations=ToolAnnotations(read_only_hint=True))
def pid() -> str:
    return str(os.getpid())


@server.tool(description="The value of an environment variable.", annotations=ToolAnnotations(read_only_hint=True))
def getenv(name: str) -> str:
    return os.environ.get(name, "(not set)")


def _png(width: int, height: int) -> str:
    import base64
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 120, 200)).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


@server.tool(description="Returns a picture, an embedded picture resource and a broken picture.",
             annotations=ToolAnnotations(read_only_hint=True))
def picture() -> list:
    from mcp.types import BlobResourceContents, EmbeddedResource, ImageContent, TextContent

    return [TextContent(type="text", text="two pictures"),
            ImageContent(type="image", data=_png(3000, 2000), mime_type="image/png"),
            EmbeddedResource(type="resource", resource=BlobResourceContents(
                uri="file:///shot.png", mime_type="image/png", blob=_png(40, 30))),
            ImageContent(type="image", data="bm90IGEgcGljdHVyZQ==", mime_type="image/png")]


@server.tool(description="Logs a line to the client, then answers.", annotations=ToolAnnotations(read_only_hint=True))
async def chatty(ctx: Context) -> str:
    await ctx.info("chatty was called")
    return "said"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":  # streamable HTTP on loopback, JSON replies (port 0: any)
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]), json_response=True)
    else:
        server.run("stdio")
