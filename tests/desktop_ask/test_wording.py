"""The words the Ask window and lease dialog show, checked without Qt."""

from __future__ import annotations

from desktop.wording import (
    describe_outcome, diff_counts, expiry_text, format_countdown, format_counts, format_duration_ms, format_tokens,
    grant_choices, lease_action, suggest_budget, summarize_input,
)
from desktop.markdown_render import close_open_fence, render_markdown
from kernel.providers.lazy import missing_key_message
from kernel.leases.approver import LeaseRequest
from kernel.core.events import Outcome
from kernel.leases.lease import offered_durations
from kernel.config.settings import SettingsStore
from kernel.tools.descriptor import CallPreview


def test_numbers():
    assert format_tokens(41_200, 200_000) == "41,200 / 200,000 tokens"
    assert format_countdown(102) == "1:42" and format_countdown(101.2) == "1:42"
    assert format_countdown(-5) == "0:00" and format_countdown(3725) == "1:02:05"
    assert expiry_text(102) == "This request expires in 1:42 if unanswered."
    assert format_duration_ms(3.2) == "3 ms" and format_duration_ms(1234) == "1.2 s"
    assert format_duration_ms(125_000) == "2 min 5 s"
    assert suggest_budget(25, 20) == 10_025 and suggest_budget(100, 200_000) == 400_000


def test_diff_counts_skip_headers():
    diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n+more\n same\n"
    assert diff_counts(diff) == (2, 1)
    assert format_counts(12, 3) == "+12 \u22123"


def test_summaries():
    assert summarize_input("fs_write", {"path": "notes/todo.md", "content": "x"}) == "notes/todo.md"
    assert summarize_input("fs_move", {"src": "a", "dst": "b"}) == "a \u2192 b"
    assert summarize_input("shell_exec", {"command": "ls  -la\n"}) == "ls -la"
    assert summarize_input("fs_search", {"pattern": "TODO", "path": "src"}) == "'TODO' in src"
    assert summarize_input("fs_list", {}) == ""
    assert summarize_input("shell_exec", {"command": "x" * 200}).endswith("\u2026")


def test_outcomes():
    assert describe_outcome(Outcome.OK, "wrote").kind == "ok"
    denied = describe_outcome(Outcome.DENIED, "permission denied: the user did not grant fs.write")
    assert denied.kind == "denied" and denied.words.startswith("permission denied") and denied.mark == "\u2717"
    assert describe_outcome(Outcome.EXPIRED, "permission request expired: nobody answered").kind == "expired"
    assert describe_outcome(Outcome.ERROR, "notes is a folder").kind == "error"
    assert describe_outcome(Outcome.ERROR, "").words == "the call failed"


def request(**kw) -> LeaseRequest:
    base = dict(id=1, agent_id="a7", agent_name="scribe", tool="fs_write", scope="fs.write",
                input={"path": "notes/todo.md", "content": ""}, durations=offered_durations(900),
                default_duration=900, expires_at=0.0)
    base.update(kw)
    return LeaseRequest(**base)


def test_lease_words():
    assert lease_action(request()) == "to call fs_write on notes/todo.md"
    assert lease_action(request(preview=CallPreview("write", "notes/x.md"))) == "to call fs_write on notes/x.md"
    labels = [(c.label, c.is_default) for c in grant_choices(request())]
    assert labels == [("5 minutes", False), ("15 minutes (default)", True), ("1 hour", False),
                      ("Working day", False)]
    one_hour = [c.label for c in grant_choices(request(durations=offered_durations(3600), default_duration=3600))]
    assert one_hour == ["5 minutes", "1 hour (default)", "Working day"]


def test_markdown_is_safe_mid_stream():
    assert close_open_fence("```py\nx = 1\n").endswith("```\n")
    assert close_open_fence("```\nx\n```\n") == "```\nx\n```\n"
    out = render_markdown("# T\n<b>raw</b> & `a<b`\n```\nif a < b:\n")
    assert "<h1>T</h1>" in out and "&lt;b&gt;raw" in out and "<code>a&lt;b</code>" in out
    assert "<pre" in out and "if a &lt; b:" in out


def test_missing_key(agentdesk_home, monkeypatch):
    store = SettingsStore(agentdesk_home)
    assert "ANTHROPIC_API_KEY" in missing_key_message("anthropic", store)
    assert missing_key_message("scripted-x", store) is None
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    assert missing_key_message("openai-chat", store) is None
    store.save_key("anthropic", "k")
    assert missing_key_message("anthropic", store) is None
