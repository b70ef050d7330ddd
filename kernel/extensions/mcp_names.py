"""Names for MCP tools on the wire and in the lease vocabulary.

A server's tool names are the server's choice (``read-file``, ``getTinyImage``, 200 characters), but
providers take tool names of 1 to 64 letters, digits and underscores. So a tool ``t`` of server ``s``
becomes ``mcp__s__t`` on the wire, sanitised; a name changed or cut to fit keeps a short hash of the
original so two names stay apart there. Its scope is ``mcp.s.t`` with ``t`` as written, because the
scope is what a person types (``--grant mcp.everything.get-sum``, a policy) and reads in the lease
dialog. A name a scope cannot hold as written is refused, with the reason, never mangled: a dot would
make the tool a sub-scope of another (a lease on ``read`` would cover ``read.all``), a ``*`` reads as a
wildcard, and anything else outside letters, digits, ``-`` and ``_`` would be a scope nobody can type.
Two tools that still meet on one wire name or scope are a collision the caller refuses (never a silent
overwrite).
"""

from __future__ import annotations

import hashlib
import re

SERVER_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
WIRE_MAX = 64
TOOL_SCOPE_MAX = 128
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_]")
_TOOL_SCOPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")  # one part of leases.lease.SCOPE_PATTERN


def server_problem(name: object) -> str | None:
    """Why ``name`` cannot name a server, or None."""
    if not isinstance(name, str) or not SERVER_RE.match(name):
        return "a server name is 1 to 32 lower-case letters, digits, - or _, starting with a letter"
    return None


def tool_scope_problem(tool: str) -> str | None:
    """Why the tool name ``tool`` cannot stand in a scope as written, or None."""
    if "." in tool:
        return (f"its name {tool!r} has a dot, which would put its scope under another tool's (a lease on one "
                "would cover the other), so it is not offered")
    if "*" in tool:
        return f"its name {tool!r} has a *, which reads as a wildcard in a scope, so it is not offered"
    if len(tool) > TOOL_SCOPE_MAX:
        return f"its name is {len(tool)} characters; a scope names a tool in at most {TOOL_SCOPE_MAX}"
    if not _TOOL_SCOPE.match(tool):
        return (f"its name {tool!r} cannot be named in a scope as written: letters, digits, - and _ only, "
                "starting with a letter or digit")
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
    """``mcp.<server>.<tool>``, both as written (the tool checked by ``tool_scope_problem``)."""
    return f"{server_scope(server)}.{tool}"


def server_scope(server: str) -> str:
    """The scope covering every tool of ``server`` (a name ``server_problem`` accepts)."""
    return f"mcp.{server}"
