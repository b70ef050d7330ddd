"""``agentdesk ARGS`` run in this process: the console script's ``main`` with argv, its own environment
and standard streams, and what a finished process would give back (exit status, stdout, stderr).

A fresh interpreter costs ~2-3 s of CPU per run here (``import anthropic`` alone), and most CLI tests
are about what the command does, not about the process. The few that are about the process (a signal's
exit status, a prompt on a real TTY, what a fresh interpreter imports) still start one.

What a subprocess gave for free is kept: the provider variables of the suite are cleared, the
environment is restored afterwards, a usage error's ``SystemExit`` becomes its exit status, and stdin is
not a TTY. An exception that escapes ``main`` is not turned into an exit status: it fails the test with
its traceback, which is what the subprocess tests' ``"Traceback" not in stderr`` looked for.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

PROVIDER_PREFIXES = ("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE")


class _Terminal(io.StringIO):
    """Typed lines that say they come from a terminal (a person is there: questions and requests are asked)."""

    def isatty(self) -> bool:
        return True


def agentdesk(args: list[str], home: Path, env_extra: dict[str, str] | None = None,
              stdin: str = "", tty: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``agentdesk *args`` through ``desktop.launcher.main`` with AGENTDESK_HOME=``home``; ``tty``: stdin is
    a person's terminal (what they type is ``stdin``)."""
    from desktop.launcher import main

    saved_env = dict(os.environ)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), io.StringIO()
    for name in [k for k in os.environ if k.startswith(PROVIDER_PREFIXES)]:
        del os.environ[name]
    os.environ["AGENTDESK_HOME"] = str(home)
    os.environ.update(env_extra or {})
    sys.stdin, sys.stdout, sys.stderr = (_Terminal if tty else io.StringIO)(stdin), out, err
    try:
        try:
            status = main(list(args))
        except SystemExit as exc:  # argparse's usage errors and --help
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                err.write(exc.code + "\n")
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["agentdesk", *args], int(status), out.getvalue(), err.getvalue())
