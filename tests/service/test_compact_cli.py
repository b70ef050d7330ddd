"""``agentdesk compact ID --focus TEXT`` through a running kernel: the summary is made there, on the record."""

from __future__ import annotations

import json
import subprocess

from tests.fakes import Text, Turn

from .conftest import ROOT, agentdesk


def test_compact_summarizes_in_the_kernel_and_says_what_it_did(kernel_proc, kernel_env, srv, tmp_path):
    srv.script(Turn(parts=(Text("first answer"),)), Turn(parts=(Text("second answer"),)),
               Turn(parts=(Text("Two questions, both answered."),)))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(agentdesk(*args), env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60)

    first = run("ask", "one", "--workspace", str(tmp_path))
    assert first.returncode == 0, first.stderr
    listed = run("ps", "--all", "--json")
    agent = json.loads(listed.stdout.splitlines()[0])["id"]
    assert run("ask", "two", "--agent", agent).returncode == 0
    compacted = run("compact", agent, "--focus", "the numbers")
    assert compacted.returncode == 0, compacted.stderr
    assert "earlier conversation summarized:" in compacted.stdout and "tokens" in compacted.stdout
    summary_request = srv.requests[-1].body
    assert "Keep in particular: the numbers" in json.dumps(summary_request)
    unknown = run("compact", "nobody")
    assert unknown.returncode == 1 and "nobody" in unknown.stderr
