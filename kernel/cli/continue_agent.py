"""An existing agent continues from the terminal: ``agentdesk resume ID`` and ``agentdesk ask --agent ID``.

``ps`` says "resume to continue"; this is how. Through the home's running
kernel when there is one (``ask_remote.continue_attached``: every client sees
the agent), else in this process with the agents restored from the ledger.
Either way the agent is followed as ``ask`` follows a new one: its text on
stdout, tool lines and lease prompts on stderr, the same exit statuses.
Without a terminal a lease request is refused at once by the kernel, with
its reason: nobody here can answer it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TextIO

from ..core.errors import ConfigError

if TYPE_CHECKING:
    import asyncio

    from .. import api
    from .terminal import TerminalApprover

NOBODY = "nobody is at a terminal to answer it (continue the agent from a terminal, or from the desktop)"


def continue_agent(agent_id: str, text: str | None, stdin: TextIO, stdout: TextIO, stderr: TextIO,
                   on_interrupt: Callable[[Callable[[], object]], Any]) -> int:
    """Send ``text`` to agent ``agent_id`` (None: resume it) and follow it until it stops; the exit status."""
    from ..config.home import home
    from ..service.channel import kernel_running

    if not agent_id or not agent_id.isprintable() or len(agent_id) > 64:
        raise ConfigError(f"{agent_id!r} is not an agent id (see 'agentdesk ps --all')", "ID")
    root = home()
    if kernel_running(root):
        from .ask_remote import continue_attached

        return continue_attached(root, agent_id, text, stdin, stdout, stderr, on_interrupt)
    import asyncio

    return asyncio.run(_continue_here(root, agent_id, text, stdin, stdout, stderr, on_interrupt))


async def _continue_here(root: Any, agent_id: str, text: str | None, stdin: TextIO, stdout: TextIO, stderr: TextIO,
                         on_interrupt: Callable[[Callable[[], object]], Any]) -> int:
    from ..compose import open_home
    from ..extensions.setup import start_configured_mcp
    from . import one_line
    from .terminal import TerminalApprover, ToolLines, exit_status

    interactive = stdin.isatty()
    built = open_home(root, out_of_process=False, attached=interactive, restore=True)
    kernel = built.kernel
    try:
        kernel.agents.get(agent_id)  # UnknownAgent (exit 2) before anything starts
        for line in await start_configured_mcp(kernel.extensions, root):
            print(f"agentdesk: {one_line(line)}", file=stderr)
        await kernel.outward.resume()  # outward calls a crashed run left open: verified, never redone
        lines = ToolLines(agent_id, stdout, stderr)
        kernel.subscribe(lines)
        kernel.subscribe(LocalLeases(kernel, agent_id, TerminalApprover(stdin, stderr) if interactive else None))
        if text is None:
            kernel.agents.resume(agent_id)
        else:
            from .ask_prompt import prompt_or_text

            kernel.agents.send(agent_id, await prompt_or_text(kernel, agent_id, text))  # "/server:prompt a=b" too
        interrupted = on_interrupt(lambda: kernel.agents.kill(agent_id, reason="interrupted (Ctrl-C)"))
        final = await kernel.agents.wait(agent_id)
        lines.finish()
        return exit_status(final.state, final.reason, interrupted.is_set(), stderr)
    finally:
        await built.aclose()


class LocalLeases:
    """The agent's lease requests in this process: asked on the terminal, or refused at once by the kernel."""

    def __init__(self, kernel: Any, agent_id: str, terminal: TerminalApprover | None) -> None:
        self.kernel, self.agent_id, self.terminal = kernel, agent_id, terminal
        self._asking: set[asyncio.Task[None]] = set()

    def __call__(self, event: api.Event) -> None:
        from .. import api

        if not (isinstance(event, api.LeaseRequested) and event.request.agent_id == self.agent_id):
            return
        if self.terminal is None:
            self.kernel.leases.resolve(event.request.id, api.Denial(NOBODY, by="kernel"))
            return
        import asyncio

        task = asyncio.get_running_loop().create_task(self._ask(event.request))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    async def _ask(self, request: Any) -> None:
        assert self.terminal is not None
        self.kernel.leases.resolve(request.id, await self.terminal.decide(request))
