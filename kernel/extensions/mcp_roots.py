"""A server's roots: the calling agent's workspace, and a notice when that changes (issue 29).

A server that asks ``roots/list`` is told the workspace of the one agent calling it now
(``mcp_calls``), as a ``file://`` URI: the folder its tools may reasonably work in, and the only one
the agent's own file tools reach. With no single caller the list is empty (another agent's folder is
never guessed). When the next caller's workspace differs from the one the server was last told, the
connection sends ``notifications/roots/list_changed`` before that call, so a server that caches its
roots asks again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

RootsOf = Callable[[str], "str | None"]  # agent id → its workspace (None: no such agent)


class Roots:
    def __init__(self, workspace_of: RootsOf) -> None:
        self._workspace_of = workspace_of
        self.told: str | None = None  # the workspace the server was last told (None: not asked yet)

    def of(self, agent_id: str) -> list[tuple[str, str]]:
        """(uri, name) of the roots for ``agent_id``'s call ([] when there is no single caller)."""
        workspace = self._workspace_of(agent_id) if agent_id else None
        if workspace is None:
            return []
        path = Path(workspace).expanduser().resolve()
        return [(path.as_uri(), path.name or str(path))]

    def answer(self, agent_id: str) -> Any:
        """The SDK's ``ListRootsResult`` for a ``roots/list`` asked during ``agent_id``'s call."""
        import mcp_types as types

        roots = self.of(agent_id)
        self.told = roots[0][0] if roots else ""
        return types.ListRootsResult(roots=[types.Root(uri=uri, name=name) for uri, name in roots])  # type: ignore[arg-type]

    def changed_for(self, agent_id: str) -> bool:
        """Whether a call by ``agent_id`` would see other roots than the server was last told."""
        if self.told is None:
            return False
        roots = self.of(agent_id)
        return (roots[0][0] if roots else "") != self.told
