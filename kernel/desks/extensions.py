"""The extensions desk: the MCP servers the kernel runs (start, status, reading mcp.json again, the watch on
it) and the skills agents are offered (the catalogue, enabling one at the hash the user was shown)."""

from __future__ import annotations

import asyncio
import builtins
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

if TYPE_CHECKING:
    from ..agents.services import Services
    from ..agents.turn_context import ContextPiece
    from ..extensions.mcp_attach import McpTurnContext
    from ..extensions.mcp_hub import _Server
    from ..extensions.mcp_offers import McpAttached, McpPrompt, McpPromptUsed, McpResource
    from ..extensions.context import Extensions
    from ..extensions.mcp_config import McpSecrets, McpServerConfig
    from ..extensions.mcp_elicit import ElicitQuestion
    from ..extensions.mcp_hooks import McpHooks
    from ..extensions.mcp_hub import McpHub
    from ..extensions.mcp_questions import McpQuestions
    from ..extensions.mcp_sampling import Sampler
    from ..extensions.mcp_status import McpReload, McpServerStatus
    from ..extensions.mcp_watch import McpFile
    from ..extensions.skill_info import SkillCatalog
    from ..redaction import SecretRegistry


class ExtensionsDesk:
    """``kernel.api.ExtensionDesk`` in process, and what the kernel's owner starts and stops."""

    def __init__(self, services: Services, extensions: Extensions, secrets: SecretRegistry,
                 questions: McpQuestions | None = None, sampler: Sampler | None = None,
                 workspace: Callable[[str], str | None] | None = None) -> None:
        """``extensions``: AGENTS.md and the skills (the same object the agents see through their port);
        ``secrets``: the ledger redactor's registry (an MCP server's secrets are kept out of the record);
        ``questions``: who answers servers' questions for the user (none: every one is declined);
        ``sampler``: servers' model requests on the calling agent's behalf (none: not offered)."""
        self._questions = questions
        self._sampler = sampler
        self._workspace = workspace  # agent id → its workspace (MCP roots)
        services.on_pause.append(self._paused)
        self._services = services
        self._extensions = extensions
        self._secrets = secrets
        self._hub: McpHub | None = None
        self._home: Path | None = None  # whose mcp.json mcp_reload reads
        self._file: McpFile | None = None  # that file and the version last read (extensions/mcp_watch.py)
        self._watch: asyncio.Task[None] | None = None
        self._reading = asyncio.Lock()  # one reading of mcp.json at a time: a later one never applies first
        self._watched: tuple[object, McpReload] | None = None  # the watcher's last reading: the version, what it did
        self._turns: McpTurnContext | None = None  # resources and prompts waiting for an agent's next message
        self.agent_of: Callable[[str], object] = lambda _agent: None  # UnknownAgent for no such agent (compose)

    # ---- MCP servers ------------------------------------------------------------------

    async def start_mcp(self, servers: Sequence[tuple[McpServerConfig, McpSecrets]], *,
                        log_dir: Path | None = None, mode: str = "auto") -> dict[str, str]:
        """Connect these MCP servers and add their tools (``mcp__<server>__<tool>``) to the registry;
        returns why any server could not start (it is tried again when the kernel next starts)."""
        from ..extensions.mcp_hub import McpHub

        if self._hub is None:
            self._hub = McpHub(self._services.tools, self._services.leases, log_dir=log_dir, mode=mode,
                               hooks=self._hooks())
        for config, secrets in servers:
            self._hold_secrets(config.name, secrets)
            self._hub.add_server(config, secrets)
        return await self._hub.start()

    def use_mcp_home(self, root: Path) -> None:
        """The home whose mcp.json ``mcp_reload`` reads (set by ``extensions.setup.start_configured_mcp``)."""
        from ..extensions.mcp_config import MCP_FILE
        from ..extensions.mcp_watch import McpFile

        self._home = root
        if self._file is None or self._file.path != root / MCP_FILE:
            self._file = McpFile(root / MCP_FILE)

    def watch_mcp(self, report: Callable[[McpReload], None], interval_s: float | None = None) -> None:
        """Read mcp.json again whenever someone edits it by hand (the kernel service): a stat on the kernel's
        clock (extensions/mcp_watch.py); ``report`` hears what each such reading did. Ends with the kernel."""
        from ..extensions.mcp_watch import MCP_WATCH_S, watch

        if self._file is None or self._watch is not None:
            return
        self._watch = asyncio.ensure_future(watch(lambda: self._file, self._services.clock,
                                                  lambda: self._reload(edited=True), report,
                                                  MCP_WATCH_S if interval_s is None else interval_s))

    async def mcp_reload(self) -> McpReload:
        """Read the home's mcp.json (and the servers' secrets) again and bring the running servers in step:
        new ones start, removed or switched-off ones stop (leases on their tools revoked), changed ones
        restart. Called by Settings and ``agentdesk mcp add|rm`` after they save."""
        return await self._reload(edited=False)

    async def _reload(self, edited: bool) -> McpReload:
        """``mcp_reload``; a broken entry (or a file that cannot be used at all) leaves its servers running as
        they were, with why in ``mcp_status``. Published as ``McpChanged`` (``edited``: a hand edit was seen)."""
        from ..core.events import McpChanged
        from ..extensions.mcp_status import McpReload

        root = self._home
        if root is None:
            return McpReload(problems=("this kernel was started without a home folder to read mcp.json from",))
        async with self._reading:
            done = await self._apply(root)
            read = None if self._file is None else self._file.seen
            done = self._with_watched(done, read, edited)
        self._services.bus.publish(McpChanged(done, edited))
        return done

    def _with_watched(self, done: McpReload, read: object, edited: bool) -> McpReload:
        """A save's own reload can find the watcher already read that very version of the file (its tick
        fell between the write and the request): then the save is told what that reading did, not "no
        change". Each watcher reading is told at most once."""
        from ..extensions.mcp_status import McpReload

        watched, self._watched = self._watched, ((read, done) if edited else None)
        if edited or watched is None or watched[0] != read or (done.started or done.stopped or done.restarted):
            return done
        return McpReload(watched[1].started, watched[1].stopped, watched[1].restarted, done.problems)

    async def _apply(self, root: Path) -> McpReload:
        from ..extensions.mcp_hub import McpHub
        from ..extensions.mcp_status import McpReload
        from ..extensions.setup import configured_mcp

        if self._file is not None:
            self._file.mark()
        found = configured_mcp(root)
        if self._hub is None and found.servers:
            from ..extensions.mcp_config import McpStore
            from ..extensions.mcp_oauth import LazyVault

            book = McpStore(root).book
            hooks = self._hooks(vault=LazyVault(lambda: book.store), hold=self._secrets.add)  # OAuth: the key store
            self._hub = McpHub(self._services.tools, self._services.leases, log_dir=root / "logs", hooks=hooks)
        for config, secrets in found.servers:
            self._hold_secrets(config.name, secrets)
        if self._hub is None:
            done = McpReload(problems=tuple(found.problems))
        elif found.unreadable is not None:
            self._hub.hold(f"{found.unreadable}; running as before the edit")
            done = McpReload(problems=tuple(found.problems))
        else:
            reloaded = await self._hub.reload(found.servers, keep=found.broken)
            done = McpReload(reloaded.started, reloaded.stopped, reloaded.restarted,
                             (*found.problems, *reloaded.problems))
        return done

    def _hooks(self, **more: Any) -> McpHooks:
        """What every connection is handed: the user's answerer of servers' questions, and ``more`` (OAuth)."""
        from ..extensions.mcp_hooks import McpHooks

        return McpHooks(elicit=self._questions, publish=self._services.bus.publish, sample=self._sampler,
                        roots=self._workspace_of if self._workspace is not None else None, **more)

    def _workspace_of(self, agent_id: str) -> str | None:
        """An agent's workspace: the roots its MCP calls show their server (extensions/mcp_roots.py)."""
        return self._workspace(agent_id) if self._workspace is not None else None

    def _paused(self, agent_id: str) -> None:
        """A busy agent was paused: its MCP calls in flight end, and each server is told they were cancelled."""
        if self._hub is not None:
            self._hub.stop_calls(agent_id, "its agent was paused")

    def questions(self) -> builtins.list[ElicitQuestion]:
        """Servers' questions waiting for the user, oldest first (the desktop shows each in a dialog)."""
        return [] if self._questions is None else self._questions.pending()

    def answer_question(self, question_id: int, action: str,
                        content: Mapping[str, str | int | float | bool | builtins.list[str] | None] | None = None
                        ) -> bool:
        """The user's answer (accept with ``content``, decline, cancel); False when it is no longer open."""
        return False if self._questions is None else self._questions.answer(question_id, action, content)

    def _hold_secrets(self, server: str, secrets: McpSecrets) -> None:
        for label, value in secrets.values():  # kept out of the ledger from now on
            self._secrets.add(value, f"MCP server {server}: {label}")

    async def stop_mcp(self) -> None:
        """Stop every MCP server (their tools stay listed; a call starts the server again)."""
        if self._hub is not None:
            await self._hub.aclose()

    def mcp_status(self) -> builtins.list[McpServerStatus]:
        """Every configured MCP server: connected or not, its tools, and the tools left out with why."""
        return [] if self._hub is None else self._hub.status()

    async def aclose(self) -> None:
        """The watch on mcp.json and every MCP server end (with the kernel)."""
        if self._watch is not None:
            self._watch.cancel()
        if self._turns is not None:
            await self._turns.aclose()
        if self._hub is not None:
            await self._hub.aclose()

    # ---- MCP resources and prompts a person adds to a message (extensions/mcp_attach.py, mcp_prompts.py) ----

    def waiting(self, agent_id: str) -> bool:
        """``agents.turn_context.TurnContext``: whether attachments wait for ``agent_id``'s next message."""
        return self._turns is not None and self._turns.waiting(agent_id)

    def take(self, agent_id: str) -> tuple[ContextPiece, ...]:
        return () if self._turns is None else self._turns.take(agent_id)

    async def mcp_resources(self) -> builtins.list[McpResource]:
        """Every running server's resources (a server that fails to list is left out)."""
        from ..extensions.mcp_resources import list_resources, offers_resources

        from ..extensions.mcp_client import McpError

        async def one(name: str) -> tuple[McpResource, ...]:
            server = await self._server(name)
            try:
                await server.connection.request("connecting", _nothing)
                return await list_resources(server.connection, server.resources) \
                    if offers_resources(server.connection) else ()
            except McpError:
                return ()

        await self._settled()
        names = () if self._hub is None else self._hub.server_names()
        return [r for found in await asyncio.gather(*(one(n) for n in names)) for r in found]

    async def mcp_attach(self, agent_id: str, server: str, uri: str) -> McpAttached:
        """Read ``uri`` of ``server`` now and add it to ``agent_id``'s next message as untrusted context (kept
        current while the server sends updates); ValueError when the server does not offer it."""
        from ..redaction.cuts import finder_of

        self.agent_of(agent_id)
        found = await self._server(server)
        return await self._turn_context().attach(agent_id, found.connection, found.resources, uri,
                                                 finder_of(self._services.ledger.redactor), self._services.images)

    async def mcp_prompts(self) -> builtins.list[McpPrompt]:
        """Every running server's prompts: the slash commands ``/server:prompt`` (a failing server left out)."""
        from ..extensions.mcp_client import McpError
        from ..extensions.mcp_prompts import list_prompts

        async def one(name: str) -> tuple[McpPrompt, ...]:
            try:
                return await list_prompts((await self._server(name)).connection)
            except McpError:
                return ()

        await self._settled()
        names = () if self._hub is None else self._hub.server_names()
        return [p for found in await asyncio.gather(*(one(n) for n in names)) for p in found]

    async def mcp_complete(self, server: str, prompt: str, argument: str, value: str,
                           context: dict[str, str] | None = None) -> builtins.list[str]:
        """Values ``server`` suggests for ``argument`` of its prompt ``prompt``, given what is typed."""
        from ..extensions.mcp_prompts import complete

        return await complete((await self._server(server)).connection, prompt, argument, value, context)

    async def mcp_use_prompt(self, agent_id: str, command: str) -> McpPromptUsed:
        """``/server:prompt name=value …``: the prompt's messages join ``agent_id``'s next message as untrusted
        context (``send`` it, with or without words of one's own); ValueError with the reason otherwise."""
        from ..extensions.mcp_offers import McpPromptUsed
        from ..extensions.mcp_prompts import parse_command, prompt_piece

        self.agent_of(agent_id)
        parsed = parse_command(command)
        if parsed is None:
            raise ValueError("a prompt command is /server:prompt name=value …")
        server, name, arguments = parsed
        found = await self._server(server)
        piece, count = await prompt_piece(found.connection, name, arguments, found.resource_tool)
        self._turn_context().add(agent_id, piece)
        return McpPromptUsed(agent_id, server, name, tuple(arguments.items()), count, len(piece.content))

    async def _settled(self) -> None:
        """A reading of mcp.json under way (the kernel's start) is over: its servers are known."""
        if self._reading.locked():
            async with self._reading:
                pass

    async def _server(self, name: str) -> _Server:
        await self._settled()
        server = None if self._hub is None else self._hub.server(name)
        if server is None:
            raise ValueError(f"no MCP server named {name[:40]} is running")
        return server

    def _turn_context(self) -> McpTurnContext:
        if self._turns is None:
            from ..extensions.mcp_attach import McpTurnContext

            self._turns = McpTurnContext()
        return self._turns

    # ---- skills (Settings → Skills reads and pins them here: extensions/skill_info.py) ----

    async def skills(self, workspace: str | None = None) -> SkillCatalog:
        """The skills agents in ``workspace`` would be offered (the home's and the workspace's own), each
        enabled, changed since enabled, or off, and the folders skipped with why. Read off the loop."""
        from ..extensions.skill_info import catalog_info, workspace_path

        where = workspace_path(workspace)
        return catalog_info(await asyncio.to_thread(self._extensions.catalog, where))

    async def set_skill_enabled(self, folder: str, sha256: str, enabled: bool, mine: bool = False,
                                workspace: str | None = None) -> SkillCatalog:
        """Enable the skill in ``folder`` at the hash the user was shown (refused when it changed since),
        or disable it; returns the catalogue after."""
        from ..extensions.skill_info import set_enabled, workspace_path

        where = workspace_path(workspace)
        return await asyncio.to_thread(set_enabled, self._extensions, folder, sha256, enabled, mine, where)


async def _nothing(_client: object) -> None:
    """A request that only connects (a server not started yet answers its capabilities)."""
