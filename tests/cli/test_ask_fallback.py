"""``agentdesk ask --fallback provider:model`` (repeatable) and ``--fallback-any-vendor``: the console
script's ``main`` in process, the real SDKs, one loopback fake speaking both protocols (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger import Ledger, ModelRequest
from tests.cli.inproc import agentdesk
from tests.fakes import FakeProviderServer, HttpError, Text, Turn

BUSY = Turn(fault=HttpError(529, retry_after=0.001, kind="overloaded_error"))


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


def both(srv: FakeProviderServer) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url,
            "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": srv.openai_base_url}


def test_an_overloaded_primary_is_answered_by_the_fallback(srv, tmp_path: Path, agentdesk_home: Path) -> None:
    (agentdesk_home / "settings.json").write_text(json.dumps({"max_retries": 1, "retry_cap_s": 0.01}))
    srv.script(BUSY, BUSY, Turn(parts=(Text("answered by the fallback"),), served_model="gpt-5-2025-08-07"))
    done = agentdesk(["ask", "hi", "--workspace", str(tmp_path), "--fallback", "openai:gpt-5",
                      "--fallback-any-vendor"], agentdesk_home, both(srv))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "answered by the fallback"
    assert [r.protocol for r in srv.requests] == ["anthropic", "anthropic", "openai_responses"]
    srv.assert_done()
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        last = next(e for e in ledger.page(kind="request") if isinstance(e, ModelRequest))
    assert (last.served_provider, last.served_model, last.requested_provider) == ("openai", "gpt-5-2025-08-07",
                                                                                  "anthropic")
    shown = agentdesk(["show", last.actor], agentdesk_home, both(srv))
    assert "answered by openai:gpt-5-2025-08-07 (fallback after anthropic overloaded ×2)" in shown.stdout


def test_another_vendor_without_the_opt_in_is_bad_usage(srv, tmp_path: Path, agentdesk_home: Path) -> None:
    done = agentdesk(["ask", "hi", "--workspace", str(tmp_path), "--fallback", "openai:gpt-5"], agentdesk_home,
                     both(srv))
    assert done.returncode == 2
    assert "another vendor" in done.stderr and "--fallback-any-vendor" in done.stderr
    assert srv.requests == []  # nothing was sent anywhere


@pytest.mark.parametrize("fallback, needle", [("gpt-5", "provider:model"), ("nope:m", "unknown provider"),
                                              ("openai:has space", "without spaces")])
def test_a_malformed_fallback_is_one_clear_line(agentdesk_home: Path, tmp_path: Path, fallback: str,
                                                needle: str) -> None:
    done = agentdesk(["ask", "hi", "--workspace", str(tmp_path), "--fallback", fallback], agentdesk_home,
                     {"ANTHROPIC_API_KEY": "k"})
    assert done.returncode == 2 and needle in done.stderr and "Traceback" not in done.stderr


def test_a_fallback_without_a_key_is_bad_usage(agentdesk_home: Path, tmp_path: Path) -> None:
    done = agentdesk(["ask", "hi", "--workspace", str(tmp_path), "--fallback", "gemini:gemini-2.5-flash",
                      "--fallback-any-vendor"], agentdesk_home, {"ANTHROPIC_API_KEY": "k"})
    assert done.returncode == 2 and "GEMINI_API_KEY" in done.stderr
