"""MCP servers' tools in the kernel's registry, kept in step with what each server lists.

The hub connects each enabled server (``start``), turns its listing into descriptors
(``mcp_tools``) and adds them to the shared registry, so every agent's next request sees them and
the executor applies the same schema, lease, timeout and recording rules as for built-in tools.
A tool that cannot be described (a bad schema, a name that collides with another tool) is left
out with its reason (``status``); the rest of the server works.

A server's list can change (it says so, or it was restarted and came back different). The hub
lists again after a call when the server said its tools changed (``notifications/tools/list_changed``
on 2025 revisions, a ``subscriptions/listen`` stream on 2026 ones), after every restart, and after
every call to a server that offers no such notice; a tool that went away or changed (description,
schema or hints) is taken out or replaced, and every lease on it, or on its whole server, is
revoked with the reason in the ledger: what the user granted was the tool they saw. A tool the
server adds ends a lease on its whole server too: that lease was granted for the tools then listed.

``reload`` brings the servers in step with mcp.json as it is now (Settings or ``agentdesk mcp``
changed it while the kernel runs): new servers start, removed or switched-off ones stop (their tools
go and every lease on them is revoked), changed ones restart and are listed again under that rule.
An entry that cannot be used (a bad hand edit) leaves its running server as it was, and so does a
file that cannot be read at all: a typo never stops a server; its status says why (``config_problem``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ledger import KERNEL

from ..core.errors import RegistryError, ToolFailure
from ..redaction.cuts import Spans, finder_of
from ..tools.descriptor import ToolContext, ToolOutput
from .mcp_client import McpConnection, McpError
from .mcp_config import McpSecrets, McpServerConfig
from .mcp_hooks import McpHooks
from .mcp_names import scope_name, server_scope
from .mcp_progress import progress_to
from .mcp_status import McpReload, McpServerStatus
from .mcp_images import pictures
from .mcp_resources import ServerResources, offer_resource_tool, read_output, scope_of_resources
from .mcp_tools import ListedTool, describe, result_text

if TYPE_CHECKING:
    from ..images.store import ImageStore
    from ..leases.book import LeaseBook
    from ..tools.registry import ToolRegistry


@dataclass
class _Server:
    connection: McpConnection
    listed: dict[str, ListedTool] = field(default_factory=dict)     # by the server's tool name
    registered: dict[str, str] = field(default_factory=dict)        # server's tool name → wire name
    disabled: dict[str, str] = field(default_factory=dict)          # server's tool name → reason
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    redescribe: bool = False  # its config changed: every tool is described again (timeout) on the next listing
    resources: ServerResources = field(default_factory=ServerResources)  # what it offers to read (mcp_resources)
    resource_tool: str | None = None  # the wire name of its mcp__<server>__read_resource, once registered


class McpHub:
    def __init__(self, registry: "ToolRegistry", leases: "LeaseBook", *, log_dir: Path | None = None,
                 mode: str = "auto", hooks: McpHooks = McpHooks()) -> None:
        self._hooks = hooks
        self._registry = registry
        self._leases = leases
        self._log_dir = log_dir
        self._mode = mode
        self._servers: dict[str, _Server] = {}
        self._skipped: dict[str, str] = {}
        self._config_problems: dict[str, str] = {}  # server → why its entry in mcp.json was not used
        self._reloading = asyncio.Lock()

    def add_server(self, config: McpServerConfig, secrets: McpSecrets = McpSecrets()) -> None:
        """Know a server (not started yet: ``start`` or its first refresh starts it)."""
        if not config.enabled:
            self._skipped[config.name] = "disabled"
            return
        self._skipped.pop(config.name, None)
        self._servers[config.name] = _Server(self._connection(config, secrets))

    def _connection(self, config: McpServerConfig, secrets: McpSecrets) -> McpConnection:
        log = None if self._log_dir is None else self._log_dir / f"mcp-{config.name}.log"
        return McpConnection(config, secrets, log_path=log, mode=self._mode, hooks=self._hooks)

    async def reload(self, wanted: "list[tuple[McpServerConfig, McpSecrets]]",
                     keep: Mapping[str, str] | None = None) -> McpReload:
        """Bring the running servers in step with ``wanted`` (mcp.json as it is now): start the new ones,
        stop the removed or switched-off ones (their tools go, and every lease on them is revoked), and
        restart the changed ones (a tool that then differs loses its leases, as on any list change).
        ``keep`` names the entries that could not be used, with why: those servers stay as they were."""
        async with self._reloading:
            keep = dict(keep or {})
            want = {c.name: (c, s) for c, s in wanted}
            for name in keep:
                if name in self._servers and name not in want:  # a broken entry: its server runs on as it was
                    want[name] = (self._servers[name].connection.config, self._servers[name].connection.secrets)
            held_off = {n: was for n, was in self._skipped.items() if n in keep and n not in want}
            self._config_problems = {n: why for n, why in keep.items() if n in want or n in held_off}
            gone = [n for n in self._servers if n not in want or not want[n][0].enabled]
            changed = [n for n in self._servers if n not in gone and
                       (self._servers[n].connection.config, self._servers[n].connection.secrets) != want[n]]
            added = [n for n, (c, _s) in want.items() if c.enabled and n not in self._servers]
            await asyncio.gather(*(self.remove_server(n) for n in gone))
            self._skipped = {**held_off, **{n: "disabled" for n, (c, _s) in want.items() if not c.enabled}}
            for name in changed:
                await self._replace(name, *want[name])
            for name in added:
                self.add_server(*want[name])
            failed = [n for n, s in self._servers.items() if n not in added and n not in changed
                      and not s.connection.alive and s.connection.last_error]  # tried again too
            names = (*added, *changed, *failed)
            outcomes = await asyncio.gather(*(self.refresh(n) for n in names), return_exceptions=True)
            problems = tuple(o.message if isinstance(o, McpError) else f"MCP server {n}: {type(o).__name__}: {o}"
                             for n, o in zip(names, outcomes) if isinstance(o, BaseException))
            return McpReload(tuple(added), tuple(gone), tuple(changed), problems)

    def hold(self, why: str) -> None:
        """mcp.json cannot be used at all: every server stays as it is, and its status says ``why``."""
        self._config_problems = {n: why for n in (*self._servers, *self._skipped)}

    async def remove_server(self, name: str) -> None:
        """Stop server ``name``, take its tools out of the registry and revoke every lease on them."""
        server = self._servers.pop(name, None)
        self._skipped.pop(name, None)
        if server is None:
            return
        for wire in (*server.registered.values(), *((server.resource_tool,) if server.resource_tool else ())):
            self._registry.remove(wire)
        self._revoke(name, sorted(set(server.listed) | set(server.registered)), removed=True)
        await server.connection.close()

    async def _replace(self, name: str, config: McpServerConfig, secrets: McpSecrets) -> None:
        server = self._servers[name]
        async with server.lock:
            await server.connection.close()
            server.connection = self._connection(config, secrets)
            server.redescribe = True

    async def start(self) -> dict[str, str]:
        """Connect every server and register its tools, together; returns why any could not start."""
        names = list(self._servers)
        outcomes = await asyncio.gather(*(self.refresh(n) for n in names), return_exceptions=True)
        return {n: (o.message if isinstance(o, McpError) else f"{type(o).__name__}: {o}")
                for n, o in zip(names, outcomes) if isinstance(o, BaseException)}

    async def refresh(self, name: str) -> tuple[str, ...]:
        """List server ``name``'s tools again and bring the registry in step; returns the tools whose
        leases were revoked (removed or changed)."""
        server = self._servers[name]
        async with server.lock:
            listed = await server.connection.list_tools()
            return self._apply(name, server, listed)

    def status(self) -> list[McpServerStatus]:
        problem = self._config_problems.get
        out = [McpServerStatus(n, "disabled", config_problem=problem(n)) for n in sorted(self._skipped)]
        for name, server in sorted(self._servers.items()):
            conn = server.connection
            state = "connected" if conn.alive else ("failed" if conn.last_error else "stopped")
            wires = tuple(sorted(server.registered.values()))
            scopes = tuple((w, d.scope) for w in wires if (d := self._registry.get(w)) is not None)
            out.append(McpServerStatus(name, state, wires, tuple(sorted(server.disabled.items())), conn.last_error,
                                       conn.protocol, problem(name), scopes))
        return out

    async def aclose(self) -> None:
        await asyncio.gather(*(s.connection.close() for s in self._servers.values()), return_exceptions=True)

    def stop_calls(self, agent_id: str, why: str) -> int:
        """End the agent's MCP calls in flight (each server is told it was cancelled); how many (mcp_calls)."""
        return sum(s.connection.calls.stop(agent_id, why) for s in self._servers.values())

    # ---- keeping the registry in step --------------------------------------------------------

    def _apply(self, name: str, server: _Server, listed: tuple[ListedTool, ...]) -> tuple[str, ...]:
        if self._servers.get(name) is not server:
            return ()  # removed while it was listing: nothing of it goes back into the registry
        new = {}
        for tool in listed:
            if tool.name in new:
                server.disabled[tool.name] = "the server lists this name twice"
                continue
            new[tool.name] = tool
        old = server.listed
        gone = [t for t in old if t not in new or new[t].fingerprint() != old[t].fingerprint()]
        if server.redescribe:  # same tools, new settings (a timeout): described again, leases kept
            for tool_name in [t for t in server.registered if t not in gone]:
                self._registry.remove(server.registered.pop(tool_name))
            server.redescribe = False
        for tool_name in gone:
            wire = server.registered.pop(tool_name, None)
            if wire is not None:
                self._registry.remove(wire)
        added = sorted(t for t in new if t not in old)
        if old and (gone or added):
            self._revoke(name, gone, added=added)
        server.listed = new
        server.disabled = {k: v for k, v in server.disabled.items() if k in new and k not in gone}
        scopes = {scope_name(name, t): t for t in server.registered}
        server.resource_tool = offer_resource_tool(self._registry, name, server.connection, server.resource_tool,
                                                   self._resource_runner(name))
        if server.resource_tool is not None:  # a tool named "resources" would share its scope: refused below
            scopes[scope_of_resources(name)] = server.resource_tool
        for tool_name, tool in sorted(new.items()):
            if tool_name in server.registered or tool_name in server.disabled:
                continue
            try:
                descriptor = describe(name, tool, self._runner(name, tool_name), server.connection.config.timeout_s)
                other = scopes.get(descriptor.scope)
                if other is not None:
                    raise RegistryError(descriptor.name, "duplicate", f"its scope {descriptor.scope} is also the "
                                                                      f"scope of the tool {other}")
                self._registry.add(descriptor)
            except RegistryError as exc:
                server.disabled[tool_name] = exc.detail if exc.reason != "duplicate" else \
                    f"its name {exc.tool} collides with another tool: {exc.detail}"
                continue
            server.registered[tool_name] = descriptor.name
            scopes[descriptor.scope] = tool_name
        return tuple(gone) if old else ()

    def _revoke(self, server: str, tools: list[str], removed: bool = False, added: list[str] | None = None) -> None:
        """Revoke every lease on ``tools`` or on the whole server (not broader grants like ``mcp`` or ``*``)."""
        scopes = {scope_name(server, t): t for t in tools}
        whole = server_scope(server)
        what = ", ".join(sorted(tools))
        reason = f"the MCP server {server} was removed or switched off" if removed else \
            f"the MCP server {server} changed or removed its tools: {what}" if tools else \
            f"the MCP server {server} added tools: {', '.join(added or ())}"
        if tools and added:
            reason += f"; it added {', '.join(added)}"
        for lease in self._leases.live():
            if lease.scope == whole or lease.scope in scopes or lease.scope.startswith(whole + ".") and removed:
                self._leases.revoke(lease.id, reason, by=KERNEL)

    def _runner(self, server: str, tool: str) -> Callable[[ToolContext, Mapping[str, Any]], Any]:
        async def run(ctx: ToolContext, tool_input: Mapping[str, Any]) -> ToolOutput:
            return await self._call(server, tool, dict(tool_input), finder_of(ctx.ledger.redactor), ctx.images,
                                    ctx.agent_id, ctx.call_id)

        return run

    async def _call(self, name: str, tool: str, arguments: dict[str, Any], finder: Spans | None = None,
                    images: "ImageStore | None" = None, agent_id: str = "", call_id: str = "") -> ToolOutput:
        server = self._servers.get(name)
        if server is None:
            raise ToolFailure(f"the MCP server {name} was removed")
        try:
            content, structured, is_error = await server.connection.call(
                tool, arguments, agent_id, call_id, progress_to(self._hooks.publish, agent_id, call_id))
        except McpError as exc:  # its words quote the server (a JSON-RPC error, its stderr): untrusted too
            await self._after_call(name)
            raise ToolFailure(exc.message, source=f"MCP server {name}, tool {tool}") from None
        # (a timeout or a cancellation propagates at once: listing a hung server would only hang too)
        await self._after_call(name)
        shown, notes = await pictures(content, images, name, tool) if not is_error else ((), {})
        server.resources.note_links(content)  # a link it hands over may be read (mcp_resources)
        text = result_text(content, structured, finder, notes, server.resource_tool)
        if is_error:  # the server's own words: untrusted, like its results
            raise ToolFailure(f"the MCP tool {tool} of {name} reported an error: {text}",
                              source=f"MCP server {name}, tool {tool}")
        return ToolOutput(text, data={"server": name, "tool": tool, "chars": len(text), "images": len(shown)},
                          source=f"MCP server {name}, tool {tool}", images=shown)

    def _resource_runner(self, name: str) -> Callable[[ToolContext, Mapping[str, Any]], Any]:
        async def run(ctx: ToolContext, tool_input: Mapping[str, Any]) -> ToolOutput:
            server = self._servers.get(name)
            if server is None:
                raise ToolFailure(f"the MCP server {name} was removed")
            return await read_output(server.connection, server.resources, str(tool_input.get("uri", "")),
                                     ctx.images, finder_of(ctx.ledger.redactor))

        return run

    def server(self, name: str) -> "_Server | None":
        """A running server's connection and what it offers to read (resources, prompts), or None."""
        return self._servers.get(name)

    def server_names(self) -> tuple[str, ...]:
        return tuple(sorted(self._servers))

    async def _after_call(self, name: str) -> None:
        """List again when the server said its tools changed (or restarted, or cannot tell us)."""
        if name not in self._servers or not self._servers[name].connection.alive:
            return  # it stopped: the next call starts it and lists again
        if not self._servers[name].connection.tools_stale:
            return  # measured: one round trip fewer per call (benchmarks/mcp_call_bench.py)
        try:
            await self.refresh(name)
        except McpError:
            pass  # the call's own outcome is what the model reads; the next call will try again
