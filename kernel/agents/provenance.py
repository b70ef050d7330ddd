"""Untrusted results: recorded with their source and hash, wrapped in markers, and the agent tainted.

A result is untrusted when its tool's descriptor says ``trusted=False`` or
the output names a ``source`` (a skill passing on fetched text). An error is
untrusted when the failure names a ``source`` (an HTTP error page, a server's
or an MCP tool's error text), or when an untrusted tool broke in a way nobody
foresaw (its exception may quote anything); a local refusal (no permission,
bad input, our own timeout) is not. The ``untrusted`` entry follows the
result or error entry, before the model sees the content, so the taint
survives a restart (``kernel.trust.taint.taint_from``).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any, Mapping

from ledger import UntrustedSeen

from ..core.messages import ImagePart
from ..tools.descriptor import ToolDescriptor, ToolOutput
from .process import AgentProcess

SOURCE_KEYS = ("url", "query", "uri", "server", "path", "command")


def untrusted_source(tool: ToolDescriptor, tool_input: Mapping[str, Any], output: ToolOutput) -> str | None:
    """Where this output came from when it is untrusted (``web_fetch https://…``), else None."""
    if output.source:
        return output.source
    if tool.trusted:
        return None
    return input_source(tool, tool_input)


def untrusted_images(images: tuple[ImagePart, ...], source: str | None) -> tuple[ImagePart, ...]:
    """A result's pictures, marked untrusted when the result is: text inside a picture can carry
    instructions like any other text (the result's markers and the agent's taint cover them too)."""
    if source is None:
        return images
    return tuple(i if i.untrusted else replace(i, untrusted=True) for i in images)


def input_source(tool: ToolDescriptor, tool_input: Mapping[str, Any]) -> str:
    """The source an untrusted tool's call names by its input (``web_fetch https://…``), else the tool's name."""
    for key in SOURCE_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return f"{tool.name} {value}"
    return tool.name


def admit_untrusted(agent: AgentProcess, tool: str, source: str, content: str, result_seq: int) -> None:
    """Record that the agent read untrusted ``content`` from the tool named ``tool`` (result or error
    ``result_seq``, which holds it wrapped in ``markers.wrap`` with the agent's nonce) and taint the agent."""
    digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
    entry = agent.services.record(UntrustedSeen(actor=agent.id, cause=result_seq, tool=tool, source=source,
                                                sha256=digest, size=len(content)))
    agent.taint_with(source, entry.seq, entry.ts, content)
