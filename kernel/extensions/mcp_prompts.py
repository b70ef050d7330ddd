"""An MCP server's prompts as slash commands: ``/server:prompt name=value …`` in the message box or ``agentdesk ask``.

The command is parsed here, once, for every client (shell-like quoting, so ``topic="two words"`` works); the
prompt is looked up in the server's listing and its arguments checked against it before the server is asked,
so a missing required argument is a sentence naming it, never a server's "Internal server error". The
prompt's messages (the server's words, whatever role they claim) become one untrusted piece of the next user
turn (``agents/turn_context``): the person chose the prompt, but its text is the server's. Completion asks the
server (``completion/complete``) for values of one argument as the person types, capped and cleaned.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, Mapping

from ..agents.turn_context import ContextPiece
from ..core.json_safe import clean_text
from ..trust.untrusted import capped
from .mcp_client import McpConnection
from .mcp_offers import McpPrompt, McpPromptArgument
from .mcp_tools import OUTPUT_MAX_CHARS, link_words

COMMAND = re.compile(r"^/([a-z][a-z0-9_-]{0,31}):([^\s=]{1,128})(?:\s+(.*))?$", re.S)
LISTED_MAX = 500
ARGUMENT_MAX = 8192
COMPLETIONS_MAX = 100
TEXT_MAX = 200


def parse_command(line: str) -> tuple[str, str, dict[str, str]] | None:
    """``(server, prompt, arguments)`` of a ``/server:prompt a=b`` line; None when the line is no such command;
    ValueError when its arguments are not ``name=value`` words."""
    m = COMMAND.match(line.strip())
    if m is None:
        return None
    server, prompt, rest = m.group(1), m.group(2), m.group(3) or ""
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise ValueError(f"/{server}:{prompt}: its arguments could not be read ({exc})") from None
    arguments: dict[str, str] = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not sep or not name:
            raise ValueError(f"/{server}:{prompt}: arguments are name=value, not {word[:60]!r}")
        if len(value) > ARGUMENT_MAX:
            raise ValueError(f"/{server}:{prompt}: the argument {name[:60]} is over {ARGUMENT_MAX:,} characters")
        arguments[name] = value
    return server, prompt, arguments


async def list_prompts(connection: McpConnection) -> tuple[McpPrompt, ...]:
    """The server's prompts now (McpError when it fails; none when it offers none)."""
    await connection.request("connecting", _connected)  # a server not started yet says what it offers
    if getattr(connection.capabilities, "prompts", None) is None:
        return ()

    async def pages(client: Any) -> list[McpPrompt]:
        found: list[McpPrompt] = []
        cursor = None
        for _ in range(20):
            page = await client.list_prompts(cursor=cursor, cache_mode="refresh")
            found.extend(p for p in (_prompt(connection.name, x) for x in page.prompts or ()) if p is not None)
            cursor = page.next_cursor
            if not cursor or len(found) >= LISTED_MAX:
                break
        return found[:LISTED_MAX]

    return tuple(await connection.request("listing its prompts", pages))


def _prompt(server: str, raw: Any) -> McpPrompt | None:
    name = getattr(raw, "name", None)
    if not isinstance(name, str) or not re.fullmatch(r"[^\s=]{1,128}", name) or not name.isprintable():
        return None
    arguments = tuple(McpPromptArgument(clean_text(str(a.name))[:TEXT_MAX],
                                        clean_text(str(getattr(a, "description", None) or ""))[:TEXT_MAX],
                                        bool(getattr(a, "required", False)))
                      for a in (getattr(raw, "arguments", None) or ())[:50] if isinstance(getattr(a, "name", None), str))
    return McpPrompt(server, name, clean_text(str(getattr(raw, "description", None) or ""))[:TEXT_MAX], arguments)


def argument_problem(prompt: McpPrompt, arguments: Mapping[str, str]) -> str | None:
    """Why ``arguments`` do not fit ``prompt`` (a required one missing, one it does not take), or None."""
    missing = [a for a in prompt.arguments if a.required and not arguments.get(a.name)]
    if missing:
        needs = ", ".join(f"{a.name}=…" + (f" ({a.description})" if a.description else "") for a in missing)
        return f"{prompt.command} needs {needs}"
    taken = {a.name for a in prompt.arguments}
    unknown = sorted(set(arguments) - taken)
    if unknown:
        takes = ", ".join(sorted(taken)) or "no arguments"
        return f"{prompt.command} takes {takes}; not {', '.join(n[:60] for n in unknown)}"
    return None


async def prompt_piece(connection: McpConnection, name: str, arguments: dict[str, str],
                       reader: str | None = None) -> tuple[ContextPiece, int]:
    """The prompt's messages as one untrusted piece of the next user turn, and how many there were;
    ValueError for an unknown prompt or arguments that do not fit, McpError when the server fails."""
    prompts = {p.name: p for p in await list_prompts(connection)}
    prompt = prompts.get(name)
    if prompt is None:
        known = ", ".join(sorted(prompts)[:20]) or "none"
        raise ValueError(f"the MCP server {connection.name} has no prompt named {name[:128]} (its prompts: {known})")
    if (why := argument_problem(prompt, arguments)) is not None:
        raise ValueError(why)
    result = await connection.request(f"getting its prompt {name}", lambda c: c.get_prompt(name, arguments or None))
    messages = list(getattr(result, "messages", None) or [])
    text = capped(clean_text("\n\n".join(_message(m, reader) for m in messages)) or "(the prompt has no messages)",
                  OUTPUT_MAX_CHARS)
    shown = " ".join(f"{k}={shlex.quote(v)}" for k, v in arguments.items())
    heading = (f"The user chose the prompt {prompt.command}{' ' + shown if shown else ''} of the MCP server "
               f"{connection.name}; its messages (the server's words, roles as it gave them):")
    return ContextPiece(f"MCP server {connection.name}, prompt {name}", heading, text), len(messages)


def _message(message: Any, reader: str | None) -> str:
    role = str(getattr(message, "role", "?"))[:20]
    block = getattr(message, "content", None)
    kind = getattr(block, "type", None)
    if kind == "text":
        body = str(getattr(block, "text", ""))
    elif kind == "resource":
        inner = getattr(block, "resource", None)
        text = getattr(inner, "text", None)
        body = str(text) if isinstance(text, str) else f"[resource {getattr(inner, 'uri', '?')}, not shown]"
    elif kind == "resource_link":
        body = link_words(block, reader)
    else:
        body = f"[{kind or 'unknown'} content, not shown]"
    return f"[{role}] {body}"


async def complete(connection: McpConnection, prompt: str, argument: str, value: str,
                   context: Mapping[str, str] | None = None) -> list[str]:
    """Values the server suggests for ``argument`` of ``prompt`` given what is typed (``value``)."""
    await connection.request("connecting", _connected)
    if getattr(connection.capabilities, "completions", None) is None:
        return []
    from mcp_types import PromptReference

    ref = PromptReference(type="ref/prompt", name=prompt[:128])
    known = {str(k)[:128]: str(v)[:ARGUMENT_MAX] for k, v in list((context or {}).items())[:50]}  # a client's words
    result = await connection.request(
        "completing an argument",
        lambda c: c.complete(ref, {"name": argument[:128], "value": value[:ARGUMENT_MAX]}, known or None))
    values = getattr(getattr(result, "completion", None), "values", None) or []
    return [clean_text(str(v))[:TEXT_MAX] for v in values[:COMPLETIONS_MAX] if isinstance(v, str)]


async def _connected(_client: Any) -> None:
    """A request that only makes sure the server runs (its capabilities are known from then on)."""
