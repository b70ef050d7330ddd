"""Names for MCP tools on the wire and in the lease vocabulary.

A server's tool names are the server's choice (``read-file``, ``Fetch.URL``, 200 characters), but
providers take tool names of 1 to 64 letters, digits and underscores, and scopes are dotted
lower-case words. So a tool ``t`` of server ``s`` becomes ``mcp__s__t`` on the wire and
``mcp.s.t`` as a scope, both sanitised; a name cut to fit keeps a short hash of the original so two
long names stay apart. Two tools that still meet on one name are a collision the caller refuses
(never a silent overwrite).
"""

from __future__ import annotations

import hashlib
import re

SERVER_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
WIRE_MAX = 64
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_]")
_NOT_SCOPE = re.compile(r"[^a-z0-9_]")


def server_problem(name: object) -> str | None:
    """Why ``name`` cannot name a server, or None."""
    if not isinstance(name, str) or not SERVER_RE.match(name):
        return "a server name is 1 to 32 lower-case letters, digits, - or _, starting with a letter"
    return None


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:6]


def wire_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` in the wire alphabet, at most 64 characters."""
    name = f"mcp__{_NOT_WIRE.sub('_', server)}__{_NOT_WIRE.sub('_', tool)}"
    if len(name) <= WIRE_MAX and _NOT_WIRE.sub("_", tool) == tool:
        return name
    suffix = "_" + _short_hash(tool)  # changed or cut: the hash keeps distinct originals apart
    return name[: WIRE_MAX - len(suffix)] + suffix


def scope_name(server: str, tool: str) -> str:
    """``mcp.<server>.<tool>``: each part lower-case letters, digits and underscores, starting with a letter."""
    return f"mcp.{_scope_part(server)}.{_scope_part(tool)}"


def server_scope(server: str) -> str:
    """The scope covering every tool of ``server``."""
    return f"mcp.{_scope_part(server)}"


def _scope_part(text: str) -> str:
    part = _NOT_SCOPE.sub("_", text.lower())[:48]
    if part != text:
        part = part[:41] + "_" + _short_hash(text)
    return part if part[:1].isalpha() else "t" + part
