"""A real child process that hands a mail to the real SMTP server and is killed with -9 before it can
record the outcome: what the kill-9 tests of sending share (each adds what its child does after the
preamble, and must print "sent" then wait on stdin, where the parent kills it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PREAMBLE = textwrap.dedent("""
    import asyncio, sys, time
    sys.path.insert(0, {root!r})
    from kernel.mail.accounts import AccountStore
    from kernel.mail.compose import compose, message_id_for
    from kernel.mail import imap, smtp
    from kernel.config.secrets import SecretStore
    from kernel.config.settings import SettingsStore
    from ledger import Intent, Ledger, ToolCall

    from pathlib import Path
    home = Path({home!r})
    ledger = Ledger(home / "ledger.db")
    creds = AccountStore(home, SecretStore(SettingsStore(home), use_keyring=False)).credentials()
""")


def send_then_kill9(body: str, home: Path, **fields: object) -> None:
    """Run ``PREAMBLE`` + ``body`` (formatted with ``fields``) in a child, wait for its "sent", kill it -9."""
    script = (PREAMBLE + textwrap.dedent(body)).format(root=str(ROOT), home=str(home), **fields)
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "AGENTDESK_KEYRING": "off"})
    try:
        assert child.stdout is not None and child.stderr is not None
        line = child.stdout.readline()  # blocks until the child has sent (a real process, no sleeping)
        assert line.strip() == "sent", child.stderr.read()
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(5)
