"""A server's roots: the calling agent's workspace, and a notice when that changes (issue 29).

A server that asks ``roots/list`` is told the workspace of the one agent calling it now
(``mcp_calls``), as a ``file://`` URI: the folder its tools may reasonably work in, and the only one
the agent's own file tools reach. With no single caller the list is empty (another agent's folder is
never guessed). When the next caller's workspace differs from the one the server was last told, the
connection sends ``notifications/roots/list_changed`` before that call, so a server that caches its
roots asks again, and the call waits (at most ``REASK_WAIT_S``) for that question: a server that
caches its roots (the reference "everything" server) answers a call from its cache, so a call sent
right behind the notice raced the server's re-ask and could see the previous caller's folder. A server
that lets one notice pass without asking again is taken to ask per call, and is not waited for again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

RootsOf = Callable[[str], "str | None"]  # agent id → its workspace (None: no such agent)
# How long a call waits for a server's re-ask after the notice: the reference server asks within a few
# milliseconds; a server that does not ask again costs this once per connection (``reasks``).
REASK_WAIT_S = 1.0


class Roots:
    def __init__(self, workspace_of: RootsOf) -> None:
        self._workspace_of = workspace_of
        self.told: str | None = None  # the workspace the server was last told (None: not asked yet)
        self._asked: asyncio.Event | None = None  # set by the next answer (``reasked``)
        self.reasks = True  # whether the server asks again after a notice (until one passes without)

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
        if self._asked is not None:
            self._asked.set()
        return types.ListRootsResult(roots=[types.Root(uri=uri, name=name) for uri, name in roots])  # type: ignore[arg-type]

    def expect(self) -> None:
        """A notice is about to go out: ``reasked`` waits for the answer after it (if the server re-asks)."""
        if self.reasks:
            self._asked = asyncio.Event()

    async def reasked(self) -> bool:
        """Whether the server asked again within ``REASK_WAIT_S`` of the notice."""
        asked = self._asked
        if asked is None:
            return False
        try:
            async with asyncio.timeout(REASK_WAIT_S):
                await asked.wait()
            return True
        except TimeoutError:
            self.reasks = False  # it asks per call (or never): later notices are not waited on
            return False
        finally:
            self._asked = None

    def changed_for(self, agent_id: str) -> bool:
        """Whether a call by ``agent_id`` would see other roots than the server was last told."""
        if self.told is None:
            return False
        roots = self.of(agent_id)
        return (roots[0][0] if roots else "") != self.told
