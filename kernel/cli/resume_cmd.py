"""``agentdesk resume ID``: a paused or interrupted agent goes on where it stopped, followed as ``ask`` follows
one (kernel/cli/continue_agent.py). Exit statuses are ``ask``'s."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from ..core.errors import ConfigError, KernelError
from . import EXIT_USAGE, one_line


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("resume", help="continue a paused or interrupted agent, as ask shows it",
                       description="Continue a paused or interrupted agent and follow it until it is idle, paused "
                                   "or failed (exit statuses as for ask).")
    p.add_argument("agent", metavar="ID", help="the agent's id (agentdesk ps --all)")


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None,
        stderr: TextIO | None = None) -> int:
    from .ask import EXIT_FAILED, _on_interrupt
    from .continue_agent import continue_agent

    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    try:
        return continue_agent(args.agent, None, stdin, stdout, stderr, _on_interrupt)
    except ConfigError as exc:
        print(f"agentdesk resume: {one_line(exc)}", file=stderr)
        return EXIT_USAGE
    except KernelError as exc:
        from ..service.protocol import ServiceError

        print(f"agentdesk resume: {one_line(exc)}", file=stderr)
        return EXIT_FAILED if isinstance(exc, ServiceError) else EXIT_USAGE  # the kernel went away: a failure
