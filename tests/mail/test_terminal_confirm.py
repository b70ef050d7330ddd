"""``agentdesk ask`` on a terminal shows everything a confirmed outward call would send before it asks
(issue 23): every field whole (a ``cc`` after a long body too), the account, the exact message as the
desktop's dialog shows it (the tool's ``CallPreview``), in pages of the terminal's height, with control
and bidi codes escaped. A real pty as stdin, real loopback mail servers, the real ``agentdesk`` process."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

from tests.cli.test_ask import ROOT, anthropic_env
from tests.fakes import FakeProviderServer, Text, ToolCall as FakeCall, Turn


MORE = b"Enter shows more, q stops"


def _on_a_tty(args: list[str], home, env_extra: dict[str, str], more: bytes, prompt: bytes,
              answer: bytes) -> tuple[int, str]:
    """``agentdesk ask`` with a pty as stdin: each page's prompt answered ``more``, then ``answer`` typed at
    ``prompt`` (``prompt`` None: stop at the first page). Returns the exit status and all of stderr."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    env.update({"AGENTDESK_HOME": str(home), "PYTHONPATH": str(ROOT), "AGENTDESK_KEYRING": "off", **env_extra})
    proc = subprocess.Popen([sys.executable, "-m", "desktop.launcher", "ask", *args], stdin=slave,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    os.close(slave)
    seen, pages_answered = b"", 0
    try:
        while prompt not in seen:
            ready, _, _ = select.select([proc.stderr], [], [], 120)  # a deadline: a cold ask under load
            assert ready, f"no prompt {prompt!r}; stderr so far: {seen!r}"
            chunk = os.read(proc.stderr.fileno(), 65536)
            assert chunk, f"ask ended before {prompt!r}: {seen!r}"
            seen += chunk
            while seen.count(MORE) > pages_answered:
                os.write(master, more)
                pages_answered += 1
        os.write(master, answer)
        _out, err = proc.communicate(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, (seen + err).decode("utf-8", "replace")


BODY = "\n".join(f"line {i:02d} of the body" for i in range(1, 41)) + "\nthe last line"


def test_a_mail_to_send_is_shown_whole_in_pages_before_it_is_confirmed(servers, accounts, agentdesk_home, tmp_path):
    call = {"to": ["ann@example.org"], "subject": "Invoice \u202egpj.exe", "body": BODY,
            "cc": ["hidden-" + "x" * 120 + "@example.org"]}
    with FakeProviderServer() as srv:
        srv.script(Turn(parts=(FakeCall("mail_send", call),)), Turn(parts=(Text("not sent"),)))
        before = len(servers.smtp.received)
        status, said = _on_a_tty(["mail ann", "--workspace", str(tmp_path)], agentdesk_home,
                                 {**anthropic_env(srv), "LINES": "20", "COLUMNS": "200"}, b"\n", b"[N] Deny > ", b"n\n")
    assert status == 0, said
    assert "page 1 of " in said
    for line in ("  cc: [\"hidden-" + "x" * 120 + "@example.org\"]", "    the last line",
                 "from the account 'work'", "  Cc: hidden-" + "x" * 120 + "@example.org",
                 "  Subject: Invoice \\u202egpj.exe", "  subject: Invoice \\u202egpj.exe", "  line 40 of the body"):
        assert line in said, line
    assert "\u202e" not in said
    assert said.index("the last line") < said.index("Allow this one call?")
    assert len(servers.smtp.received) == before  # denied: nothing went out


def test_stopping_the_pages_denies_the_call(servers, accounts, agentdesk_home, tmp_path):
    call = {"to": ["ann@example.org"], "subject": "s", "body": BODY}
    with FakeProviderServer() as srv:
        srv.script(Turn(parts=(FakeCall("mail_send", call),)), Turn(parts=(Text("not sent"),)))
        status, said = _on_a_tty(["mail ann", "--workspace", str(tmp_path)], agentdesk_home,
                                 {**anthropic_env(srv), "LINES": "20"}, b"q\n", b"page 1 of", b"")
    assert status == 0, said
    assert "denied: not everything was shown" in said and "Allow this one call?" not in said
    assert "permission denied" in said
