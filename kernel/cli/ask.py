"""``agentdesk ask``: run one agent headless until it is idle, paused or failed.

Text streams to stdout; one line per tool call, lease prompts, the pause
reason and errors go to stderr. Lease requests are asked on the terminal
when stdin is a TTY; otherwise the kernel refuses them at once (recorded as
refused by the kernel, with its reason), except the scopes granted up front
with ``--grant``. A ``--grant`` of a scope whose calls are confirmed one by one
(``mail.send``, ``shell.exec.net``) is refused up front: no lease covers them. When a kernel serves this home, the agent runs there
(``ask_remote``) and every client sees it. Exit status: 0 idle, 2 bad usage or configuration,
3 paused at its budget, 4 failed (the agent, or the kernel it ran in went away mid-run), 130 interrupted
(Ctrl-C kills the agent).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TextIO

from ..core.errors import ConfigError, KernelError
from ..providers.catalog import PROVIDER_NAMES
from . import EXIT_USAGE, one_line

EXIT_FAILED = 4  # the agent failed, or the kernel it ran in went away (kernel.cli.terminal: the same figure)

if TYPE_CHECKING:
    import asyncio

    from ..api import KernelFacade
    from ..leases.approver import DenyAll

# The rest of the kernel is imported where it is used: when a kernel serves this home, the agent runs
# there and this process needs only the socket client and the terminal views, and asyncio only once the
# prompt is sent (issue 11: start to the first provider request through a kernel <= 150 ms;
# tests/service/test_ask_imports.py keeps it so).


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ask", help="run one agent on a prompt, headless",
                       description="Run one agent until it is idle, paused or failed.")
    p.add_argument("prompt", help="what to ask")
    p.add_argument("--provider", choices=PROVIDER_NAMES, help="model provider (default: Settings)")
    p.add_argument("--model", help="model name (default: Settings for the provider)")
    p.add_argument("--name", help="the agent's name")
    p.add_argument("--workspace", help="workspace root (default: the current folder)")
    p.add_argument("--budget", type=_positive_int, help="token budget (default: Settings)")
    p.add_argument("--grant", action="append", default=[], metavar="SCOPE[=DURATION]",
                   help="grant a lease up front, e.g. fs.write=5m (durations 30s, 5m, 1h, 8h)")
    p.add_argument("--image", action="append", default=[], metavar="FILE",
                   help="attach a picture (PNG, JPEG, WebP, GIF) to the prompt; repeatable")
    p.add_argument("--fallback", action="append", default=[], metavar="PROVIDER:MODEL",
                   help="a model that answers when the first cannot (overloaded, rate-limited, down, offline); "
                        "repeat for more, tried in order (default: Settings' fallbacks for the provider)")
    p.add_argument("--fallback-any-vendor", action="store_true",
                   help="let a fallback be at another vendor than --provider (the conversation is sent there)")
    p.add_argument("--agent", metavar="ID", help="send the prompt to this existing agent as a follow-up "
                                                 "(agentdesk ps --all) instead of starting a new one")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None,
        stderr: TextIO | None = None) -> int:
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    try:
        return _ask(args, stdin, stdout, stderr)
    except ConfigError as exc:
        print(f"agentdesk ask: {one_line(exc)}", file=stderr)
        return EXIT_USAGE
    except KernelError as exc:
        from ..service.protocol import ServiceError

        if isinstance(exc, ServiceError):  # the kernel went away (or sent nonsense): a failure, not bad usage
            print(f"agentdesk ask: the kernel stopped serving this agent: {one_line(exc)}", file=stderr)
            return EXIT_FAILED
        print(f"agentdesk ask: {one_line(exc)}", file=stderr)
        return EXIT_USAGE


def _ask(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from ..config.home import home
    from ..workspace.root import check_workspace

    if args.agent is not None:  # a follow-up to an existing agent (kernel/cli/continue_agent.py)
        given = [f"--{n}" for n in ("provider", "model", "name", "workspace", "budget") if getattr(args, n)]
        given += ["--grant"] if args.grant else []
        given += ["--image"] if args.image else []
        given += ["--fallback"] if args.fallback else []
        given += ["--fallback-any-vendor"] if args.fallback_any_vendor else []
        if given:
            raise ConfigError(f"{', '.join(given)} cannot be given with --agent: the agent keeps its own", "--agent")
        from .continue_agent import continue_agent

        return continue_agent(args.agent, args.prompt, stdin, stdout, stderr, _on_interrupt)
    root = home()
    if _kernel_runs(root):  # the home's kernel serves it: the agent lives there, seen by every client
        from .ask_remote import ask_attached

        workspace = Path(args.workspace or os.getcwd()).expanduser().resolve()
        problem = check_workspace(workspace, root, Path.home())
        if problem is not None or not workspace.is_dir():
            raise ConfigError(problem or f"the workspace {workspace} is not a folder", "--workspace")
        return ask_attached(args, root, workspace, stdin, stdout, stderr, _on_interrupt)  # its loop after the send
    import asyncio

    return asyncio.run(_ask_here(args, stdin, stdout, stderr))


async def _ask_here(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """No kernel serves this home: the agent runs in this process."""
    from ..providers.lazy import LazyProviders
    from ..config.settings import SettingsStore, home, with_overrides
    from ..config.schema import found
    from ..workspace.root import check_workspace
    from .grants import known_scopes, parse_grants, refuse_confirmed, unused_scope_warning, unused_scopes
    from .terminal import TerminalApprover, ToolLines, exit_status

    store = SettingsStore(home())
    checked = store.check()
    for name in checked.unknown:
        print(f"agentdesk ask: warning: settings.json: unknown setting {found(name)} is ignored", file=stderr)
    if checked.errors:
        raise checked.errors[0]
    settings = checked.settings
    workspace = Path(args.workspace or os.getcwd()).expanduser().resolve()
    problem = check_workspace(workspace, store.root, Path.home())
    if problem is not None:
        raise ConfigError(problem, "--workspace")
    if not workspace.is_dir():
        raise ConfigError(f"the workspace {workspace} is not a folder", "--workspace")
    settings = with_overrides(settings, provider=args.provider, workspace=str(workspace))
    grants = parse_grants(args.grant, settings.default_lease_s)
    images = _images(args)
    provider_name = settings.provider
    providers = LazyProviders(store, lambda: settings, out_of_process=False)  # no UI to keep responsive
    provider = providers.require(provider_name)  # no key or an unknown provider: bad usage, before anything starts
    for name in fallback_providers(args.fallback, provider_name):
        providers.require(name)  # a fallback that could never answer is bad usage too
    warm = getattr(provider, "warm", None)  # the SDK loads while the ledger and kernel start
    import asyncio

    warming = asyncio.ensure_future(warm()) if warm is not None else None
    await asyncio.sleep(0)  # let the warming task hand the SDK's import to its thread now, not at the first await below
    from ledger import Ledger, LedgerError

    from ..compose import build_kernel  # the rest of the kernel loads meanwhile
    from ..leases.lease import describe_duration
    from ..redaction import SecretRegistry

    try:
        ledger = Ledger(store.ledger_path)
    except LedgerError as exc:
        raise ConfigError(str(exc), "AGENTDESK_HOME") from exc
    interactive = stdin.isatty()
    approver = TerminalApprover(stdin, stderr) if interactive else None
    from ..mail.wiring import held_account_secrets, mail_for_home

    from .ask_questions import TerminalQuestions  # an MCP server's question for the user, at this terminal

    kernel = build_kernel(ledger=ledger, settings=settings, providers=providers,
                    approver=approver or _deny_all(), attached=interactive, snapshot_dir=store.root / "snapshots",
                    secrets=SecretRegistry([*store.held_secrets(), *held_account_secrets(store)]), web_keys=store.web_key,
                    mail=mail_for_home(store), elicitor=TerminalQuestions(stdin, stderr) if interactive else None)
    from ..extensions.setup import start_configured_mcp  # MCP servers' tools, before --grant scopes are checked

    for line in await start_configured_mcp(kernel.extensions, store.root):
        print(f"agentdesk ask: {one_line(line)}", file=stderr)
    await kernel.outward.resume()  # outward calls a crashed run left open: verified, never redone
    known = known_scopes(kernel.tools())
    for scope in unused_scopes([scope for scope, _ in grants], known):
        print(f"agentdesk ask: {unused_scope_warning(scope, known)}", file=stderr)
    _warn_if_broken(kernel, stderr)
    try:
        refuse_confirmed(grants, kernel.tools(), settings.policies)  # a grant that would allow nothing: exit 2
        # Nobody at a terminal: nobody can answer a request, so the kernel refuses it at once, in its own name
        # and with its reason (kernel/agents/gate.py), instead of a denial "by the user" nobody gave.
        info = kernel.agents.spawn(args.name, provider=provider_name, model=args.model, budget=args.budget,
                                   unattended=not interactive, fallbacks=tuple(args.fallback) or None,
                                   any_vendor=args.fallback_any_vendor)
        for scope, seconds in grants:
            kernel.leases.grant(info.id, scope, seconds)
            print(f"granted {scope} for {describe_duration(seconds)}", file=stderr)
        lines = ToolLines(info.id, stdout, stderr)
        kernel.subscribe(lines)
        pictures = [await kernel.agents.attach_image(info.id, data, "file", label) for label, data in images]
        from .ask_prompt import prompt_or_text

        kernel.agents.send(info.id, await prompt_or_text(kernel, info.id, args.prompt), tuple(pictures) or None)
        interrupted = _on_interrupt(lambda: kernel.agents.kill(info.id, reason="interrupted (Ctrl-C)"))
        await kernel.agents.wait(info.id)
        final = kernel.agents.get(info.id)
        lines.finish()
        return exit_status(final.state, final.reason, interrupted.is_set(), stderr)
    finally:
        if warming is not None:
            warming.cancel()
        await kernel.aclose()
        await providers.aclose()
        ledger.close()


def _images(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The ``--image`` files as (label, base64), read before anything starts (bad ones: exit 2)."""
    if not args.image:
        return []
    from .image_args import read_images

    return read_images(args.image)
def fallback_providers(fallbacks: list[str], primary: str) -> list[str]:
    """The other providers ``--fallback`` names (a malformed one is a ConfigError naming it)."""
    from ..routes.target import parse_target

    names = [parse_target(text, PROVIDER_NAMES).provider for text in fallbacks]
    return [n for i, n in enumerate(names) if n != primary and n not in names[:i]]


def _kernel_runs(root: Path) -> bool:
    from ..service.channel import kernel_running

    return kernel_running(root)


def _warn_if_broken(kernel: KernelFacade, stderr: TextIO) -> None:
    """The ledger's check at start found damage: say so (the agent still runs; its entries are chained)."""
    from ..core.checking import Checking
    from .ledger_verify import warning

    found_ledger = kernel.ledger.integrity()  # (checked in-process before the kernel was handed over: never Checking)
    line = None if isinstance(found_ledger, Checking) else warning(found_ledger)
    if line:
        print(line, file=stderr)
    from ..automations.chain import ChainBroken

    found = kernel.automations.integrity()
    if isinstance(found, ChainBroken):
        print(f"warning: the automation records are broken at {found.table} row {found.row}: {found.reason} "
              "(see 'agentdesk ledger verify')", file=stderr)


def _deny_all() -> DenyAll:
    from ..leases.approver import DenyAll

    return DenyAll()


def _on_interrupt(kill: Callable[[], object]) -> asyncio.Event:
    """Ctrl-C kills the agent (once) instead of tearing the loop down."""
    import asyncio
    import signal

    flag = asyncio.Event()

    def handler() -> None:
        if not flag.is_set():
            flag.set()
            kill()

    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, handler)
    except (NotImplementedError, RuntimeError):
        pass
    return flag
