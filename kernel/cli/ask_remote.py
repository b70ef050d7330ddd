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
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .. import api
from ..errors import ConfigError
from ..leases import describe_duration
from .grants import known_scopes, parse_grants, unused_scope_warning, unused_scopes

if TYPE_CHECKING:  # the terminal views are imported once the prompt is sent (off the way to the first request)
    from .terminal import TerminalApprover

NOBODY = "no one is attached to grant it (run with --grant, or from a terminal)"


class RemoteLeases:
    """Answers the agent's lease requests from this terminal, or leaves them to other clients."""

    def __init__(self, kernel: Any, agent_id: str, terminal: TerminalApprover | None) -> None:
        self.kernel, self.agent_id, self.terminal = kernel, agent_id, terminal
        self._asking: dict[int, asyncio.Task[None]] = {}

    def __call__(self, event: api.Event) -> None:
        if isinstance(event, api.LeaseRequested) and event.request.agent_id == self.agent_id:
            request = event.request
            if self.terminal is not None:
                self._asking[request.id] = asyncio.get_running_loop().create_task(self._ask(request))
            elif not self.kernel.status().get("attached"):
                self.kernel.resolve_request(request.id, api.Denial(NOBODY))
        elif isinstance(event, api.LeaseRequestResolved) and event.request_id in self._asking:
            task = self._asking.pop(event.request_id)
            if not task.done():  # answered elsewhere first
                task.cancel()
                print("\n(answered in another window)", file=self.terminal.stderr if self.terminal else None)

    async def _ask(self, request: Any) -> None:
        assert self.terminal is not None
        decision = await self.terminal.decide(request)
        self._asking.pop(request.id, None)
        self.kernel.resolve_request(request.id, decision)


async def ask_attached(args: argparse.Namespace, home: Path, workspace: Path, stdin: TextIO, stdout: TextIO,
                       stderr: TextIO, on_interrupt: Any) -> int:
    from ..service.client import RemoteKernel

    interactive = stdin.isatty()
    kernel = RemoteKernel.for_home(home, client="ask", answers_leases=interactive)
    await kernel.start()
    try:
        settings = kernel.settings
        provider = args.provider or settings.provider
        problem = kernel.provider_problem(provider)
        if problem:
            raise ConfigError(problem, "--provider")
        grants = parse_grants(args.grant, settings.default_lease_s)
        if grants:  # one call fewer on the way to the first request when there is nothing to check
            known = known_scopes(kernel.tools())
            for scope in unused_scopes([scope for scope, _ in grants], known):
                print(f"agentdesk ask: {unused_scope_warning(scope, known)}", file=stderr)
        info = kernel.spawn(args.name, provider=provider, model=args.model, budget=args.budget,
                            workspace=str(workspace))
        for scope, seconds in grants:
            kernel.grant_lease(info.id, scope, seconds)
            print(f"granted {scope} for {describe_duration(seconds)}", file=stderr)
        kernel.send(info.id, args.prompt)
        # Subscribed after the send without an await between: this client reads its events only when the loop
        # runs again, so none is missed, and the views' imports are no longer on the way to the first request.
        from .terminal import TerminalApprover, ToolLines, exit_status

        lines = ToolLines(info.id, stdout, stderr)
        kernel.subscribe(lines)
        kernel.subscribe(RemoteLeases(kernel, info.id, TerminalApprover(stdin, stderr) if interactive else None))
        interrupted = on_interrupt(lambda: kernel.kill(info.id, reason="interrupted (Ctrl-C)"))
        final = await kernel.wait(info.id)
        lines.finish()
        return exit_status(final.state, final.reason, interrupted.is_set(), stderr)
    finally:
        await kernel.aclose()
