"""``agentdesk ask`` through the running kernel of this home (``ask.py`` runs in-process when none runs).

The agent lives in the kernel, so the desktop's process table shows it and
its lease requests can be answered from any client: on a terminal the
question is asked here too, and whichever answer reaches the kernel first
counts (the other finds the request closed). Without a terminal, a request is
left to the other clients while one that can answer is attached, and denied
at once when none is. Output and exit statuses are the in-process ones.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..core.errors import ConfigError
from ..service.protocol import ServiceError

if TYPE_CHECKING:  # asyncio, kernel.api and the terminal views are imported once the prompt is sent (off the way to
    import asyncio  # the first provider request); the grants with the first --grant

    from collections.abc import Callable

    from .. import api
    from ..service.channel import SyncChannel
    from .terminal import TerminalApprover

NOBODY = "no one is attached to grant it (run with --grant, or from a terminal)"


class RemoteLeases:
    """Answers the agent's lease requests from this terminal, or leaves them to other clients."""

    def __init__(self, kernel: Any, agent_id: str, terminal: TerminalApprover | None) -> None:
        self.kernel, self.agent_id, self.terminal = kernel, agent_id, terminal
        self._asking: dict[int, asyncio.Task[None]] = {}

    def __call__(self, event: api.Event) -> None:
        from .. import api

        if isinstance(event, api.LeaseRequested) and event.request.agent_id == self.agent_id:
            request = event.request
            if self.terminal is not None:
                import asyncio

                self._asking[request.id] = asyncio.get_running_loop().create_task(self._ask(request))
            elif not self.kernel.status().get("attached"):
                self.kernel.leases.resolve(request.id, api.Denial(NOBODY))
        elif isinstance(event, api.LeaseRequestResolved) and event.request_id in self._asking:
            task = self._asking.pop(event.request_id)
            if not task.done():  # answered elsewhere first
                task.cancel()
                print("\n(answered in another window)", file=self.terminal.stderr if self.terminal else None)

    async def _ask(self, request: Any) -> None:
        assert self.terminal is not None
        decision = await self.terminal.decide(request)
        self._asking.pop(request.id, None)
        self.kernel.leases.resolve(request.id, decision)


def ask_attached(args: argparse.Namespace, home: Path, workspace: Path, stdin: TextIO, stdout: TextIO,
                 stderr: TextIO, on_interrupt: Any) -> int:
    """Attach, spawn and send with blocking sockets (asyncio is not imported before the prompt is on its
    way: issue 11's start-up goal), then follow the agent on an event loop until it stops."""
    interactive = stdin.isatty()
    images: list[tuple[str, str]] = []
    if args.image:  # read (and refused when bad) before attaching
        from .image_args import read_images

        images = read_images(args.image)

    def start(sync: "SyncChannel") -> str:
        settings = sync.call_raw("settings")  # two fields, read raw: the Settings type is not needed here
        provider = args.provider or _field(settings, "provider", str)
        status: Any = None  # the kernel's status, read once when needed
        from ..service.provider_env import check, variables_set

        if variables_set(provider, os.environ):  # the caller chose a key or server: is it the kernel's?
            # (before the kernel's own key check, which would name the caller's variable as unset)
            status = sync.call_raw("status")
            check(provider, os.environ, status)
        problem = sync.call("provider_problem", {"provider": provider})
        if isinstance(problem, str) and problem:
            raise ConfigError(problem, "--provider")
        grants: list[tuple[str, float]] = []
        if args.grant:  # one call fewer (and no tools' types) on the way to the first request without any
            from ..leases.lease import describe_duration
            from .grants import (
                known_scopes, parse_grants, raw_tools, refuse_confirmed, unused_scope_warning, unused_scopes,
            )

            grants = parse_grants(args.grant, _field(settings, "default_lease_s", float))
            tools = raw_tools(sync.call_raw("tools"))  # four fields each, read raw: no codec, no kernel.api
            if tools is None:
                raise ServiceError("the kernel sent a reply without a valid 'tools'")
            refuse_confirmed(grants, tools, _policies(settings))  # allows nothing: exit 2
            known = known_scopes(tools)
            for scope in unused_scopes([scope for scope, _ in grants], known):
                print(f"agentdesk ask: {unused_scope_warning(scope, known)}", file=stderr)
        # Without a terminal and with no client attached that can answer (a desktop), nobody can answer a
        # request: the agent runs unattended, so the kernel refuses its requests at once, in its own name and
        # with its reason (kernel/agents/gate.py), never a denial "by the user" nobody gave.
        if not interactive and status is None:
            status = sync.call_raw("status")
        unattended = not interactive and not _field(status, "attached", bool)
        agent_id: str = _field(sync.call_raw("agents.spawn", {
            "name": args.name, "provider": provider, "model": args.model, "budget": args.budget,
            "workspace": str(workspace), "unattended": unattended, "fallbacks": list(args.fallback) or None,
            "any_vendor": args.fallback_any_vendor}), "id", str)
        for scope, seconds in grants:
            sync.call_raw("leases.grant", {"agent_id": agent_id, "scope": scope, "duration_s": float(seconds)})
            print(f"granted {scope} for {describe_duration(seconds)}", file=stderr)
        pictures = tuple(sync.call("agents.attach_image", {"agent_id": agent_id, "data_b64": data, "origin": "file",
                                                           "label": label}) for label, data in images)
        sync.call_raw("agents.send", {"agent_id": agent_id, "text": _prompt_or_text(sync, agent_id, args.prompt),
                                      **({"images": pictures} if pictures else {})})
        return agent_id

    return _attach_and_follow(home, interactive, start, stdin, stdout, stderr, on_interrupt)


def continue_attached(home: Path, agent_id: str, text: str | None, stdin: TextIO, stdout: TextIO, stderr: TextIO,
                      on_interrupt: Any) -> int:
    """An agent of the running kernel continues: ``text`` sent to it as a follow-up, or (None) resumed where
    it paused or was interrupted; then followed as ``ask`` follows a new one."""
    def start(sync: "SyncChannel") -> str:
        if text is None:
            sync.call_raw("agents.resume", {"agent_id": agent_id})
        else:
            sync.call_raw("agents.send", {"agent_id": agent_id, "text": _prompt_or_text(sync, agent_id, text)})
        return agent_id

    return _attach_and_follow(home, stdin.isatty(), start, stdin, stdout, stderr, on_interrupt)


def _prompt_or_text(sync: "SyncChannel", agent_id: str, text: str) -> str:
    """``text``, or "" once the MCP prompt it names (``/server:prompt a=b``) waits for the message (ask_prompt)."""
    from .ask_prompt import is_prompt_command

    if not is_prompt_command(text):
        return text
    try:
        sync.call_raw("extensions.mcp_use_prompt", {"agent_id": agent_id, "command": text})
    except ValueError as exc:
        raise ConfigError(str(exc), "prompt") from None
    return ""


def _attach_and_follow(home: Path, interactive: bool, start: "Callable[[SyncChannel], str]", stdin: TextIO,
                       stdout: TextIO, stderr: TextIO, on_interrupt: Any) -> int:
    """Connect, subscribe to events before anything happens (the events from then on wait in this socket
    until the loop reads them), let ``start`` set the agent going on the blocking channel, then follow it on
    an event loop until it stops. Both sockets are closed if anything before the follow fails."""
    from ..service.channel import SyncChannel, subscribe_blocking
    from ..config.home import socket_path

    path = socket_path(home)
    sync = SyncChannel(path, "ask")
    subscribed = None
    try:
        sync.connect()
        subscribed = subscribe_blocking(path, "ask", interactive)
        agent_id = start(sync)
    except BaseException:
        sync.close()
        if subscribed is not None:
            subscribed.sock.close()
        raise
    import asyncio

    return asyncio.run(_follow(path, sync, subscribed, agent_id, interactive, stdin, stdout, stderr, on_interrupt))


def _field(value: Any, name: str, kind: type) -> Any:
    """``value[name]`` from a raw reply, checked to be a ``kind`` (a float field takes a whole number too)."""
    found = value.get(name) if isinstance(value, dict) else None
    if kind is float and isinstance(found, int) and not isinstance(found, bool):
        found = float(found)
    if not isinstance(found, kind) or (isinstance(found, bool) and kind is not bool):
        raise ServiceError(f"the kernel sent a reply without a valid {name!r}")
    return found


def _policies(settings: Any) -> dict[str, str]:
    """The settings' policies from a raw reply: scope → mode, checked."""
    from ..trust.policy import MODES

    found = _field(settings, "policies", dict)
    if not all(isinstance(k, str) and v in MODES for k, v in found.items()):
        raise ServiceError("the kernel sent a reply without valid 'policies'")
    return dict(found)


async def _follow(path: Path, sync: Any, subscribed: Any, agent_id: str, interactive: bool, stdin: TextIO,
                  stdout: TextIO, stderr: TextIO, on_interrupt: Any) -> int:
    """The agent runs: its text and tool lines shown, its lease requests answered, until it stops."""
    from ..service.client import RemoteKernel
    from .terminal import TerminalApprover, ToolLines, exit_status

    kernel = RemoteKernel(path, client="ask", answers_leases=interactive)
    lines = ToolLines(agent_id, stdout, stderr)
    kernel.subscribe(lines)  # before the events connection is read: none of the agent's events is missed
    kernel.subscribe(RemoteLeases(kernel, agent_id, TerminalApprover(stdin, stderr) if interactive else None))
    if interactive:  # an MCP server's question for the user, asked here too (issue 29)
        from .ask_questions import RemoteQuestions, TerminalQuestions

        kernel.subscribe(RemoteQuestions(kernel, agent_id, TerminalQuestions(stdin, stderr)))
    try:
        await kernel.start_subscribed(sync, subscribed)
        interrupted = on_interrupt(lambda: kernel.agents.kill(agent_id, reason="interrupted (Ctrl-C)"))
        final = await kernel.agents.wait(agent_id)
        lines.finish()
        return exit_status(final.state, final.reason, interrupted.is_set(), stderr)
    finally:
        await kernel.aclose()
