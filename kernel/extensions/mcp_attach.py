"""MCP resources and prompts a person adds to an agent's next message, kept until its ``send`` takes them; and
subscriptions that keep an attached resource current.

Attaching reads the resource at once (the person sees what it is and how long), checked like the model's
reads (``mcp_resources.check_uri``: only what the server offers), and keeps it as one untrusted piece of the
next user turn (``agents/turn_context``), its pictures fitted and shown with it (untrusted). When the
server keeps subscribers up to date, the attachment is subscribed (a ``subscriptions/listen`` stream on
2026 revisions, ``resources/subscribe`` and ``notifications/resources/updated`` on 2025 ones): each update
is read again and waits for the agent's next turn, headed as updated; only the newest update of a resource
waits (an older one is replaced). A subscription lasts as long as the server's connection; a restarted
server is not subscribed again (attach it again).
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from typing import TYPE_CHECKING, Any

from ..agents.turn_context import ContextPiece
from .mcp_client import McpConnection, McpError
from .mcp_offers import McpAttached
from .mcp_resources import ServerResources, check_uri, contents_text, read_contents, subscribable

if TYPE_CHECKING:
    from ..core.messages import ImagePart
    from ..images.store import ImageStore
    from ..redaction.cuts import Spans

PENDING_MAX = 20   # pieces waiting for one agent's next turn


class McpTurnContext:
    """The pieces waiting for each agent's next message (``TurnContext``), and the subscriptions behind them."""

    def __init__(self) -> None:
        self._pending: dict[str, list[ContextPiece]] = {}
        self._watchers: dict[tuple[str, str], set[str]] = {}        # (server, uri) → agents it is attached to
        self._streams: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._reads: set[asyncio.Task[None]] = set()

    # ---- TurnContext ----------------------------------------------------------------------

    def waiting(self, agent_id: str) -> bool:
        return bool(self._pending.get(agent_id))

    def take(self, agent_id: str) -> tuple[ContextPiece, ...]:
        return tuple(self._pending.pop(agent_id, ()))

    def add(self, agent_id: str, piece: ContextPiece) -> None:
        """Keep ``piece`` for the agent's next turn (replacing one from the same source: the newest wins)."""
        pieces = [p for p in self._pending.get(agent_id, []) if p.source != piece.source]
        if len(pieces) >= PENDING_MAX:
            raise ValueError(f"at most {PENDING_MAX} attachments wait for one message")
        self._pending[agent_id] = [*pieces, piece]

    # ---- attaching ------------------------------------------------------------------------

    async def attach(self, agent_id: str, connection: McpConnection, known: ServerResources, uri: str,
                     finder: "Spans | None" = None, images: "ImageStore | None" = None) -> McpAttached:
        """Read ``uri`` now and keep it for ``agent_id``'s next turn; subscribe when the server can."""
        from ..core.errors import ToolFailure

        try:
            await check_uri(connection, known, uri)
        except ToolFailure as exc:
            raise ValueError(exc.message) from None
        text, shown = await self._read(connection, uri, finder, images)
        name = known.listed[uri].name if uri in known.listed else uri
        self.add(agent_id, ContextPiece(_source(connection.name, uri),
                                        f"The user attached the resource {uri} ({name}) of the MCP server "
                                        f"{connection.name}:", text, shown))
        subscribed = subscribable(connection) and await self._subscribe(agent_id, connection, uri, finder)
        return McpAttached(agent_id, connection.name, uri, name, len(text), len(shown), subscribed)

    async def _read(self, connection: McpConnection, uri: str, finder: "Spans | None",
                    images: "ImageStore | None" = None) -> tuple[str, tuple[ImagePart, ...]]:
        """The resource's text (pictures named), and its pictures fitted and kept when ``images`` is given."""
        text, shown = await contents_text(await read_contents(connection, uri), images, connection.name, finder)
        return text, tuple(shown)

    # ---- subscriptions --------------------------------------------------------------------

    async def _subscribe(self, agent_id: str, connection: McpConnection, uri: str, finder: "Spans | None") -> bool:
        key = (connection.name, uri)
        self._watchers.setdefault(key, set()).add(agent_id)
        stream = self._streams.get(key)
        if stream is not None and not stream.done():
            return True
        ready: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._streams[key] = asyncio.ensure_future(self._listen(connection, uri, finder, ready))
        return await ready

    async def _listen(self, connection: McpConnection, uri: str, finder: "Spans | None",
                      ready: asyncio.Future[bool]) -> None:
        """Hear ``uri``'s updates until the connection ends; each is read again for the watching agents."""
        def updated(changed: str) -> None:
            if changed == uri:
                task = asyncio.ensure_future(self._updated(connection, uri, finder))
                self._reads.add(task)
                task.add_done_callback(self._reads.discard)

        try:
            client = await connection.request("subscribing to a resource", _itself)
            if str(client.protocol_version or "").startswith("2026"):
                async with client.listen(resource_subscriptions=(uri,)) as sub:
                    ready.set_result(True)
                    async for event in sub:
                        updated(str(getattr(event, "uri", "")))
            else:  # the handshake era: resources/subscribe, then notifications reach the connection
                connection.resource_updated[uri] = updated
                await connection.request("subscribing to a resource", lambda c: _subscribe_2025(c, uri))
                ready.set_result(True)
                await asyncio.Event().wait()  # until the kernel ends it (aclose)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - no subscription: the attachment is read once, as without one
            pass
        finally:
            connection.resource_updated.pop(uri, None)
            if not ready.done():
                ready.set_result(False)

    async def _updated(self, connection: McpConnection, uri: str, finder: "Spans | None") -> None:
        try:
            text, _shown = await self._read(connection, uri, finder)  # an update's pictures are named, not shown
        except McpError:
            return
        for agent_id in sorted(self._watchers.get((connection.name, uri), ())):
            with contextlib.suppress(ValueError):
                self.add(agent_id, ContextPiece(_source(connection.name, uri),
                                                f"Updated: the resource {uri} of the MCP server {connection.name}, "
                                                "attached earlier, changed; its contents now:", text))

    async def aclose(self) -> None:
        tasks = [*self._streams.values(), *self._reads]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)


def _subscribe_2025(client: Any, uri: str) -> Any:
    """``resources/subscribe`` (the SDK warns that 2026 revisions dropped it: this is for the 2025 ones)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the SDK's MCPDeprecationWarning (a UserWarning)
        return client.session.subscribe_resource(uri)


async def _itself(client: Any) -> Any:
    return client


def _source(server: str, uri: str) -> str:
    return f"MCP server {server}, resource {uri[:200]}"
