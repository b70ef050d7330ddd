"""A stdio MCP server (the official SDK, run as a real process) that asks things of its client (issue 29).

Tools: ``ask_user`` (a form elicitation with defaults: answers what the client sent back), ``ask_url``
(a URL elicitation), ``steps`` (reports progress ``n`` times, then answers), ``wait_cancel`` (waits
until the client cancels it, and writes "cancelled" to the file ``MCP_CANCEL_FILE`` names), ``sample``
(a sampling request: answers the model's text) and ``roots`` (the client's roots, and how many
roots/list_changed notices it heard).
"""

from __future__ import annotations

import asyncio
import os

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import NotificationParams, ToolAnnotations

server = MCPServer("agentdesk-client-test")
READ = ToolAnnotations(read_only_hint=True)


class Order(BaseModel):
    name: str = Field(default="Ada", description="Who orders")
    count: int = Field(default=2, description="How many")
    gift: bool = Field(default=False, description="Wrapped as a gift")
    password: str = Field(default="", description="The account password")


@server.tool(description="Asks the user for an order.", annotations=READ)
async def ask_user(ctx: Context) -> str:
    result = await ctx.elicit("What should I order?", Order)
    if result.action == "accept":
        return f"accept: {result.data.model_dump()}"
    return result.action


@server.tool(description="Asks the user to visit a page.", annotations=READ)
async def ask_url(ctx: Context) -> str:
    result = await ctx.elicit_url("Sign in to the shop", "https://shop.example/login", "e-1")
    return result.action


@server.tool(description="Reports progress n times, then answers.", annotations=READ)
async def steps(n: int, ctx: Context) -> str:
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i} of {n}")
    return f"{n} steps"


@server.tool(description="Says it started, waits until cancelled; records the cancel.", annotations=READ)
async def wait_cancel(ctx: Context) -> str:
    await ctx.report_progress(0, None, "waiting")
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        with open(os.environ["MCP_CANCEL_FILE"], "w", encoding="utf-8") as fh:
            fh.write("cancelled")
        raise
    return "unreachable"


@server.tool(description="Asks the client's model to say something.", annotations=READ)
async def sample(prompt: str, ctx: Context) -> str:
    from mcp.types import SamplingMessage, TextContent

    result = await ctx.request_context.session.create_message(
        [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))], max_tokens=50)
    content = result.content
    return f"sampled: {getattr(content, 'text', content)}"


ROOTS_CHANGED = [0]


async def _roots_changed(_ctx: object, _params: object) -> None:
    ROOTS_CHANGED[0] += 1


server._lowlevel_server.add_notification_handler(  # the SDK's low-level hook: MCPServer has no decorator for it
    "notifications/roots/list_changed", NotificationParams, _roots_changed)


@server.tool(description="The client's roots, and how many times it said they changed.", annotations=READ)
async def roots(ctx: Context) -> str:
    listed = await ctx.request_context.session.list_roots()
    return f"changed {ROOTS_CHANGED[0]}: " + " ".join(str(r.uri) for r in listed.roots)


if __name__ == "__main__":
    server.run("stdio")
