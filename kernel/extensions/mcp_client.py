"""One connection to one MCP server, owned by one task, with our own timeouts and restarts.

The SDK's ``Client`` is an async context whose task group must be entered and left by the same
task, so each connection has an owner task that holds it open until ``close``; callers in other
tasks send requests through the session and race each one against the owner, so a server that
dies mid-call fails that call at once with a clear error instead of leaving it waiting. A dead
server is started again on the next call (and its tools are listed again: they may have changed).
Every request carries our timeout (the SDK's own read timeout is off), and cancelling a call
(the agent was stopped, the executor's timeout fired) abandons it without touching the others.

``mode="auto"`` speaks the 2026-07-28 revision and falls back to the older handshake for servers
that only know 2025 revisions (the npm reference servers); the SDK (about 0.4 s to import) is
imported here, on first connect, never at kernel start. A stdio server's stderr goes to a log
file; the tail of it is quoted (capped) when the server stops, as the reason a person can act on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from secrets import token_hex
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

from ..core.errors import KernelError
from ..core.json_safe import clean_text
from ..trust.untrusted import capped
from .mcp_calls import InFlight
from .mcp_config import McpSecrets, McpServerConfig
from .mcp_hooks import McpHooks
from .mcp_progress import Progress, progress_of
from .mcp_roots import Roots
from .mcp_tools import ListedTool

T = TypeVar("T")
MAX_PAGES = 20
START_TIMEOUT_S = 60.0  # starting (and listing) may take longer than a call: an interpreter, an npm cache
STDERR_TAIL = 600
CLIENT_NAME = "Agentdesk"


class McpError(KernelError):
    """An MCP server could not be reached or stopped answering; ``message`` is the sentence to show."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(message)
        self.server = server
        self.message = message


class McpConnection:
    def __init__(self, config: McpServerConfig, secrets: McpSecrets = McpSecrets(), *,
                 log_path: Path | None = None, mode: str = "auto", hooks: McpHooks = McpHooks()) -> None:
        self.config = config
        self.hooks = hooks
        self.needs_sign_in = False   # the server asked for a sign-in nobody here can give
        self.tools_changed = True    # the server said its tools changed (or we never listed them)
        self._errlog_file: Any = None
        self._listening = False      # change notices reach us (else: list again after every call)
        self._secrets = secrets
        self._log_path = log_path
        self._mode = mode
        self._client: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lock = asyncio.Lock()
        self.starts = 0              # how many times the server was started (1 + restarts)
        self.last_error: str | None = None
        self.protocol: str | None = None
        self._cut_token = token_hex(12)  # marks a reply our stdio transport cut (mcp_stdio.is_cut)
        self.calls = InFlight(config.name)  # who is calling now: whose a server's question is (mcp_calls)
        self._roots = None if hooks.roots is None else Roots(hooks.roots)  # the caller's workspace (mcp_roots)
        self.resource_updated: dict[str, Callable[[str], None]] = {}  # uri → told of its updates (mcp_attach)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def secrets(self) -> McpSecrets:
        return self._secrets

    @property
    def alive(self) -> bool:
        return self._client is not None and self._owner is not None and not self._owner.done()

    @property
    def tools_stale(self) -> bool:
        """Whether the tools must be listed again: the server said they changed, it restarted, or it speaks
        a revision whose change notices we could not subscribe to."""
        return self.tools_changed or not self._listening

    async def list_tools(self) -> tuple[ListedTool, ...]:
        """Every tool the server lists now (connecting first if need be), within the server's timeout."""
        client = await self._ensure()
        self.tools_changed = False  # a notice that arrives while listing marks it stale again

        async def pages() -> tuple[ListedTool, ...]:
            out: list[ListedTool] = []
            cursor = None
            for _ in range(MAX_PAGES):
                page = await client.list_tools(cursor=cursor, cache_mode="refresh")
                out.extend(_listed(t) for t in page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            return tuple(out)

        async with asyncio.timeout(max(self.config.timeout_s, START_TIMEOUT_S)):
            return await self._race(pages(), "listing its tools")

    async def call(self, tool: str, arguments: dict[str, Any], agent_id: str = "", call_id: str = "",
                   on_progress: Progress | None = None) -> tuple[list[Any], Any, bool]:
        """Call one tool for ``agent_id``: (content blocks, structured content, is_error). McpError when the
        server fails. Every call carries a progress token; ``on_progress`` hears the server's notices."""
        client = await self._ensure()
        with self.calls.calling(agent_id, call_id) as caller:
            async with asyncio.timeout(self.config.timeout_s):
                await self._roots_changed(client)
                work = client.call_tool(tool, arguments, progress_callback=progress_of(on_progress))
                result = await self._race(caller.watch(work), f"calling {tool}")
        from .mcp_stdio import is_cut

        cut = is_cut(result, self._cut_token)  # too large: cut as it streamed, flagged an error only for the SDK
        return list(result.content or []), result.structured_content, bool(result.is_error) and not cut

    @property
    def capabilities(self) -> Any:
        """What the running server said it offers (its ``ServerCapabilities``), or None when it is not running."""
        client = self._client
        return None if client is None else getattr(client, "server_capabilities", None)

    async def request(self, doing: str, make: Callable[[Any], Awaitable[T]]) -> T:
        """``make(client)`` (one request of the SDK client: resources, prompts, completion), connecting first,
        within the server's timeout and raced against the server stopping (McpError with ``doing`` in words)."""
        client = await self._ensure()
        async with asyncio.timeout(self.config.timeout_s):
            return await self._race(make(client), doing)

    async def close(self, grace_s: float = 10.0) -> None:
        """Stop the server (its owner task leaves the SDK's context, which ends the process); after ``grace_s``
        (0: at once, a sign-in abandoned mid-way) the owner is cancelled."""
        owner, self._owner = self._owner, None
        if owner is None:
            return
        if self._stop is not None:
            self._stop.set()
        with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
            async with asyncio.timeout(grace_s):
                await asyncio.wait({owner})
        if not owner.done():
            owner.cancel()
            await asyncio.wait({owner})
        self._client = None

    async def _ensure(self) -> Any:
        async with self._lock:
            if self.alive:
                return self._client
            if self._owner is not None:  # it died: collect it before starting again
                await self.close()
            loop = asyncio.get_running_loop()
            ready: asyncio.Future[Any] = loop.create_future()
            self._stop = asyncio.Event()
            self._owner = loop.create_task(self._own(ready, self._stop), name=f"mcp {self.name}")
            self.starts += 1
            limit = max(self.config.timeout_s, START_TIMEOUT_S)
            try:
                async with asyncio.timeout(limit):
                    self._client = await asyncio.shield(ready)
            except (TimeoutError, asyncio.TimeoutError):
                await self.close()
                raise self._error(f"did not answer within {limit:g} s of starting") from None
            except McpError:
                await self.close()
                raise
            return self._client

    async def _own(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        """Hold the SDK client open until ``stop``; whatever ends it makes the next call start again."""
        try:
            import mcp

            self.needs_sign_in = False
            async with contextlib.AsyncExitStack() as stack:
                errlog = stack.enter_context(self._errlog())
                client = mcp.Client(await self._transport(mcp, errlog, stack), mode=self._mode,
                                    client_info=mcp.Implementation(name=CLIENT_NAME, version=_version()),
                                    elicitation_callback=self._elicited, message_handler=self._noticed,
                                    sampling_callback=self._sampled if self.hooks.sample is not None else None,
                                    list_roots_callback=self._rooted if self._roots is not None else None,
                                    logging_callback=self._logged, log_level="info")
                self._errlog_file = errlog
                await stack.enter_async_context(client)
                self.protocol = client.protocol_version
                self.last_error = None
                self.tools_changed = True  # (re)started: its tools are listed before the next use
                watcher = asyncio.ensure_future(self._watch_tools(client))
                ready.set_result(client)
                try:
                    await stop.wait()
                finally:
                    watcher.cancel()
                    await asyncio.wait({watcher})
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - any way a server fails is a reason, never our death
            reason = self._reason(exc)
            self.last_error = reason
            if not ready.done():
                ready.set_exception(self._error(reason))
        finally:
            self._client = None
            if not ready.done():
                ready.set_exception(self._error("stopped before it was ready"))

    async def _transport(self, mcp: Any, errlog: Any, stack: contextlib.AsyncExitStack) -> Any:
        config, secrets = self.config, self._secrets
        if config.command is not None:
            from .mcp_stdio import capped_stdio_client  # the SDK's stdio transport, each line capped as it streams

            params = mcp.StdioServerParameters(command=config.command, args=list(config.args),
                                               env={**config.env, **secrets.env} or None)
            return capped_stdio_client(params, errlog=errlog, cut_token=self._cut_token)
        from mcp.shared._httpx_utils import create_mcp_http_client

        from .mcp_http import capped_http_client

        headers = {**config.headers, **secrets.headers}
        assert config.url is not None
        auth = None if any(h.lower() == "authorization" for h in headers) else await self._oauth(stack)
        http = create_mcp_http_client(headers=headers or None, auth=auth)
        return capped_http_client(config.url, http, self._cut_token)

    async def _oauth(self, stack: contextlib.AsyncExitStack) -> Any:
        """The SDK's OAuth provider with our key store and sign-in (None when there is no key store)."""
        from .mcp_oauth import KeyStoreTokens, LoopbackRedirect, OAuthSettings, provider

        hooks = self.hooks
        if hooks.vault is None or self.config.url is None:
            return None
        tokens = KeyStoreTokens(hooks.vault, self.name, hooks.hold)
        machine = tokens.credentials()
        if machine is not None:  # client credentials: no person, no browser (mcp_machine)
            from .mcp_machine import machine_provider

            return machine_provider(self.config.url, tokens, machine)
        redirect = None
        if hooks.browser is not None:
            redirect = LoopbackRedirect()
            await redirect.start()
            stack.push_async_callback(redirect.close)

        def needed() -> None:
            self.needs_sign_in = True

        return provider(self.name, self.config.url, tokens, OAuthSettings(hooks.client_metadata_url), hooks.browser,
                        redirect, needed)

    async def _elicited(self, context: Any, params: Any) -> Any:
        """A server's question for the user: asked through the hooks (declined when nobody can answer)."""
        import mcp_types as types

        from dataclasses import replace

        from .mcp_elicit import DECLINED, question_of

        question = replace(question_of(self.name, getattr(params, "message", ""),
                                       getattr(params, "requested_schema", None), getattr(params, "url", None)),
                           agent_id=self.calls.sole())
        answer = DECLINED if self.hooks.elicit is None else await self.hooks.elicit(question)
        content = dict(answer.content) if answer.action == "accept" and question.url is None else None
        return types.ElicitResult(action=answer.action, content=content)  # type: ignore[arg-type]

    async def _rooted(self, context: Any) -> Any:
        """``roots/list``: the calling agent's workspace (mcp_roots)."""
        assert self._roots is not None  # advertised only then
        return self._roots.answer(self.calls.sole())

    async def _roots_changed(self, client: Any) -> None:
        """Tell a server that asked for roots before when this call's would differ (a 2025 revision's notice)."""
        if self._roots is None or not self._roots.changed_for(self.calls.sole()):
            return
        self._roots.told = None  # it will ask again
        if str(client.protocol_version or "").startswith("2026"):
            return  # no such notice at 2026: roots are asked per request there
        with contextlib.suppress(Exception):  # a notice it missed is no reason to fail the call
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._roots.expect()
                await client.send_roots_list_changed()
            await self._roots.reasked()  # a server that caches its roots asks again before this call

    async def _sampled(self, context: Any, params: Any) -> Any:
        """A server's model request: the calling agent's, under its scope and budget (mcp_sampling)."""
        from .mcp_sampling import answer_sampling

        assert self.hooks.sample is not None  # advertised only then
        return await answer_sampling(self.hooks.sample, self.name, self.calls.sole(), params)

    async def _watch_tools(self, client: Any) -> None:
        """Hear the server's "tools changed" notices: a notification on 2025 revisions (``_noticed``), a
        ``subscriptions/listen`` stream on 2026 ones. Where neither is offered, tools are listed after each call."""
        caps = getattr(getattr(client, "server_capabilities", None), "tools", None)
        if not getattr(caps, "list_changed", False):
            self._listening = False
            return
        if not str(client.protocol_version or "").startswith("2026"):
            self._listening = True  # the handshake era: notifications/tools/list_changed reach _noticed
            return
        try:
            async with client.listen(tools_list_changed=True) as sub:
                self._listening = True
                async for _event in sub:
                    self.tools_changed = True
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - no stream: fall back to listing after every call
            pass
        finally:
            self._listening = False

    async def _noticed(self, message: Any) -> None:
        """A server notification: a changed tool list marks the listing stale (listed again before the next use)."""
        if type(message).__name__ == "ToolListChangedNotification":
            self.tools_changed = True
        elif type(message).__name__ == "ResourceUpdatedNotification":  # 2025 revisions: a subscribed resource
            uri = str(getattr(getattr(message, "params", None), "uri", ""))
            if uri in self.resource_updated:
                self.resource_updated[uri](uri)

    async def _logged(self, params: Any) -> None:
        """A server's log message goes to its log file (the same one as its stderr), one line, capped."""
        log = getattr(self, "_errlog_file", None)
        if log is None:
            return
        data = params.data if isinstance(params.data, str) else repr(params.data)
        line = capped(clean_text(f"[{params.level}] {params.logger or ''} {data}".replace("\n", " ")), 2000)
        try:
            log.write(line + "\n")
            log.flush()
        except (OSError, ValueError):
            pass

    @contextlib.contextmanager
    def _errlog(self) -> Any:
        if self._log_path is None:
            with open("/dev/null", "w", encoding="utf-8") as sink:
                yield sink
            return
        self._log_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self._log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)  # owner-only
        os.fchmod(fd, 0o600)
        with open(fd, "w", encoding="utf-8", errors="replace") as log:
            yield log

    async def _race(self, work: Awaitable[T], doing: str) -> T:
        """``work``, unless the server stops first; cancelling the caller abandons ``work`` too."""
        task = asyncio.ensure_future(work)
        owner = self._owner
        try:
            waiting: set[asyncio.Future[Any]] = {task} if owner is None else {task, owner}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                try:
                    return task.result()
                except Exception as exc:  # noqa: BLE001 - the SDK's many failures become one error with words
                    if _connection_closed(exc):
                        await self._stopped()
                        raise self._error(f"stopped while {doing}{self._stderr_tail()}; it will be started again "
                                          "on the next call") from None
                    reason = self._reason(exc)
                    if self.needs_sign_in:
                        raise self._error(reason) from None
                    raise self._error(f"failed while {doing}: {reason}") from None
            await self._stopped()
            raise self._error(f"stopped while {doing}{self._stderr_tail()}; it will be started again on the next call")
        finally:
            if not task.done():
                task.cancel()

    async def _stopped(self) -> None:
        """The server is gone: forget the client so the next call starts it again."""
        self._client = None
        if self._stop is not None:
            self._stop.set()

    def _error(self, what: str) -> McpError:
        return McpError(self.name, f"the MCP server {self.name} {what}")

    def _reason(self, exc: BaseException) -> str:
        if isinstance(exc, BaseExceptionGroup):
            inner = exc.exceptions[0] if exc.exceptions else exc
            return self._reason(inner)
        if self.needs_sign_in or type(exc).__name__ == "SignInNeeded":
            self.needs_sign_in = True
            return f"needs sign-in: run `agentdesk mcp login {self.name}`"
        if type(exc).__name__ == "CallStopped":  # on purpose (mcp_calls): the server was told it was cancelled
            return f"the call was cancelled: {exc}"
        if isinstance(exc, FileNotFoundError):
            return f"could not be started: {exc.filename or self.config.command} was not found"
        text = clean_text(str(exc)) or type(exc).__name__
        return capped(f"{type(exc).__name__}: {text}", 400) + self._stderr_tail()

    def _stderr_tail(self) -> str:
        if self._log_path is None:
            return ""
        try:
            with open(self._log_path, "rb") as fh:
                fh.seek(0, 2)
                fh.seek(max(0, fh.tell() - STDERR_TAIL))
                tail = fh.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return f" (its last words: {capped(clean_text(tail), STDERR_TAIL)})" if tail else ""


def _connection_closed(exc: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    return (isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED) or isinstance(
        exc, (BrokenPipeError, ConnectionError, EOFError))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentdesk")
    except PackageNotFoundError:
        return "0"


def _listed(tool: Any) -> ListedTool:
    hints = getattr(tool, "annotations", None)
    return ListedTool(name=tool.name, description=tool.description or "", input_schema=tool.input_schema,
                      read_only=getattr(hints, "read_only_hint", None),
                      destructive=getattr(hints, "destructive_hint", None))
