"""The ``agentdesk`` command line: ``ask``, ``ledger``, ``undo``, and the kernel service's
``kernel``, ``ps``, ``kill`` and ``status``.

Each subcommand lives in its own module and is imported only when used, so
``agentdesk ledger`` never pays for a provider SDK. Errors are one line on
stderr and an exit status, never a traceback: a ``ConfigError`` that reaches
``main`` (a bad settings.json or keys.json value) is its one sentence and
exit status 2. A reader that closes the pipe early (``| head``) ends the
command quietly, with 141 (128 + SIGPIPE) as a shell's own commands do.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn, Sequence

from ..config.home import home
from ..config.private import repair_home
from ..core.errors import ConfigError

# subcommand → module under kernel.cli with add_parser(subparsers) and run(args) -> int
COMMANDS = {"ask": "ask", "ledger": "ledger_cmd", "undo": "undo_cmd",
            # the kernel service and its clients (kernel/service)
            "kernel": "kernel_cmd", "ps": "ps_cmd", "kill": "kill_cmd", "status": "status_cmd"}
COMMANDS["mcp"] = "mcp_cmd"  # agentdesk mcp add|list|rm (kernel/extensions)
COMMANDS["account"] = "account_cmd"  # mail and calendar accounts (issue 16)
COMMANDS["key"] = "key_cmd"  # provider and web keys: the system keyring, else keys.json (issue 16)
COMMANDS.update({"automation": "automation_cmd", "inbox": "inbox_cmd"})  # automations (issue 13)
COMMANDS.update({"resume": "resume_cmd", "show": "show_cmd"})  # continue an agent, read its transcript (issue 23)
COMMANDS["compact"] = "compact_cmd"  # summarize an agent's earlier conversation now (issue 24)
COMMANDS["channel"] = "channel_cmd"  # chat channels and their pairing gate (issue 27)

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a command killed by the closed pipe would have ended with


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        self.exit(EXIT_USAGE, f"{self.prog}: {message}\n")


def build_parser(names: Sequence[str] = tuple(COMMANDS)) -> argparse.ArgumentParser:
    parser = _Parser(prog="agentdesk", description="Agentdesk: agents as processes, with leases and a ledger.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in names:
        importlib.import_module(f"{__name__}.{COMMANDS[name]}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Import only the subcommand asked for (help lists them all).
    names = [argv[0]] if argv and argv[0] in COMMANDS else list(COMMANDS)
    parser = build_parser(names)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    module = importlib.import_module(f"{__name__}.{COMMANDS[args.command]}")
    repair_home(home())  # owner-only, a home made before issue 23 too (kernel.config.private)
    try:
        return int(module.run(args))
    except ConfigError as exc:
        print(f"agentdesk {args.command}: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away (`agentdesk mcp list | head`): stop quietly, as a pipe does
        _quiet_stdout()
        return EXIT_BROKEN_PIPE


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush at exit cannot fail on the closed pipe."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file (in-process tests): nothing to flush at exit
        pass


def one_line(message: object) -> str:
    """A message on one line, whatever it holds."""
    return " ".join(str(message).split()) or type(message).__name__
