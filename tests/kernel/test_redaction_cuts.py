"""A held secret (or a token a rule knows) that straddles a cap's cut is dropped whole, never half:
in the shell's output buffer, in ``capped`` (errors, MCP results) and at web_fetch's size cap (through
the real loopback web server and httpx). Every position of the cut across the secret is tried."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kernel.core.clock import ManualClock
from kernel.extensions.mcp_tools import result_text
from kernel.redaction import Redactor, SecretRegistry
from kernel.redaction.cuts import MARGIN, head, head_bytes, tail
from kernel.config.settings import Settings
from kernel.tools.descriptor import ToolContext
from kernel.tools.output import OutputBuffer
from kernel.tools.web.tools import web_fetch_tool
from kernel.trust.untrusted import capped
from kernel.workspace.root import Workspace
from ledger import Ledger
from tests.fakes.web_server import WebFake

HELD = "Zq8vR2mXw7LpK4tN9sYb"  # a held key: random-looking, 20 characters
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a token the rules know


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor(SecretRegistry([("test", HELD)]))


def _no_piece_of(secret: str, text: str) -> bool:
    """Once the ledger's redactor has run over ``text`` (as it does over every entry), no run of five or
    more of the secret's characters (from either end) is left in it."""
    text = Redactor(SecretRegistry([("test", HELD)])).redact(text)[0]
    return not any(secret[:n] in text or secret[-n:] in text for n in range(5, len(secret) + 1))


@pytest.mark.parametrize("secret", [HELD, GITHUB])
def test_a_head_cut_through_a_secret_drops_it_whole(redactor: Redactor, secret: str) -> None:
    text = "a" * 100 + secret + "b" * 100
    for keep in range(95, 100 + len(secret) + 5):
        out = head(text, keep, redactor)
        assert _no_piece_of(secret, out), keep
        assert out.startswith("a" * min(keep, 100))
        if 100 < keep < 100 + len(secret):
            assert out.endswith("[REDACTED:" + ("held-secret]" if secret == HELD else "github-pat]"))
    assert head(text, 50, redactor) == "a" * 50  # far from the secret: cut as before


@pytest.mark.parametrize("secret", [HELD, GITHUB])
def test_a_tail_cut_through_a_secret_drops_it_whole(redactor: Redactor, secret: str) -> None:
    text = "a" * 100 + secret + "b" * 100
    for keep in range(95, 100 + len(secret) + 5):
        out = tail(text, keep, redactor)
        assert _no_piece_of(secret, out), keep
        assert out.endswith("b" * min(keep, 100))


def test_without_a_redactor_cuts_stay_as_they_were() -> None:
    text = "a" * 100 + HELD + "b" * 100
    assert head(text, 105, None) == text[:105] and tail(text, 105, None) == text[-105:]


def test_the_shell_output_buffer_cuts_around_a_secret_fed_in_pieces(redactor: Redactor) -> None:
    cap = 200
    for where in range(cap // 2 - len(HELD), cap // 2 + 1):  # the secret across the head's end
        data = b"h" * where + HELD.encode() + b"m" * 5000 + b"t" * 300
        buffer = OutputBuffer(cap, redactor)
        for i in range(0, len(data), 7):  # small reads: the secret split across chunks
            buffer.feed(data[i:i + 7])
        out = buffer.text()
        assert _no_piece_of(HELD, out), where
        assert buffer.cut == len(data) - cap and f"[... {buffer.cut} bytes cut ...]" in out
    for back in range(cap // 2 - len(HELD), cap // 2 + 1):  # the secret across the tail's start
        data = b"h" * 5000 + HELD.encode() + b"t" * back
        buffer = OutputBuffer(cap, redactor)
        buffer.feed(data)
        assert _no_piece_of(HELD, buffer.text()), back


def test_the_output_buffer_keeps_short_output_whole(redactor: Redactor) -> None:
    buffer = OutputBuffer(1000, redactor)
    buffer.feed(b"x" * 600 + HELD.encode() + b"y" * 300)
    assert buffer.cut == 0 and buffer.text() == "x" * 600 + HELD + "y" * 300  # the ledger redacts it whole
    big = OutputBuffer(1000, redactor)
    for _ in range(100):
        big.feed(b"z" * MARGIN)
    assert len(big._head) <= 500 + MARGIN and len(big._tail) <= 2 * (500 + MARGIN)  # memory stays bounded


def test_capped_errors_and_mcp_results_drop_a_secret_crossing_the_cut(redactor: Redactor) -> None:
    limit = 2000
    for at in range(1400, 1700, 7):
        text = "e" * at + HELD + "f" * 50_000
        assert _no_piece_of(HELD, capped(text, limit, redactor)), at
        assert len(capped(text, limit, redactor)) <= limit + 40
    text = "e" * 60_000 + GITHUB + "f" * 390
    assert _no_piece_of(GITHUB, capped(text, limit, redactor))
    block = type("Block", (), {"type": "text", "text": "r" * 49_990 + HELD + "s" * 60_000})()
    assert _no_piece_of(HELD, result_text([block], None, redactor))


def test_head_bytes_keeps_other_bytes_exact(redactor: Redactor) -> None:
    kept = "é".encode() * 3000 + b"\xff\xfe" + b"k" * 10 + HELD[:7].encode()
    beyond = HELD[7:].encode() + b"rest"
    out = head_bytes(kept, beyond, redactor)
    assert out.startswith(kept[:-7]) and HELD[:5].encode() not in out and out.endswith(b"[REDACTED:held-secret]")
    assert head_bytes(b"abc", b"def", redactor) == b"abc"


def test_web_fetch_at_its_size_cap_drops_a_secret_crossing_it(redactor: Redactor, tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "l.db", redactor=redactor)
    (tmp_path / "ws").mkdir()
    ctx = ToolContext(agent_id="a1", workspace=Workspace.at(tmp_path / "ws"), ledger=ledger, cause=None,
                      clock=ManualClock())
    tool = web_fetch_tool(lambda: Settings(web_allow_private=True, web_fetch_max_bytes=1024))
    try:
        with WebFake() as fake:
            for at in (1024 - 10, 1024 - 1, 1024 - len(HELD) + 1):
                out = asyncio.run(tool.run(ctx, {"url": fake.url(f"/padded?at={at}&text={HELD}")}))
                assert out.data["cut"] == ["size"]
                assert _no_piece_of(HELD, out.content), at
                assert "[REDACTED:held-secret]" in out.content
            whole = asyncio.run(tool.run(ctx, {"url": fake.url(f"/padded?at=10&text={HELD}")}))
            assert HELD in whole.content  # inside the cap: left to the ledger, which redacts the entry whole
        before = "a" * 100 + HELD[:10]  # what the cut left before this change: the ledger cannot see it
        assert HELD[:10] in Redactor(SecretRegistry([("test", HELD)])).redact(before)[0]
    finally:
        ledger.close()
