"""Queries: paging, filters, path prefixes, diffs, and proof that indexes serve them.

The plan test traces every statement a query method runs and asks SQLite to
explain it: none may scan the whole entries table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from ledger import FileChange, Ledger, NotAFileChange, ToolCall, UnknownBlob, UnknownSeq

ACTORS = ("alpha", "beta", "gamma")


@pytest.fixture
def filled(tmp_path: Path) -> tuple[Ledger, Path]:
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    ledger = Ledger(tmp_path / "ledger.db")
    for i in range(300):
        actor = ACTORS[i % 3]
        call = ledger.append(ToolCall(actor=actor, tool="fs.write", scope="fs.write", input={"i": i}))
        folder = "src" if i % 2 else "docs"
        ledger.write_file(actor=actor, path=ws / folder / f"f{i % 7}.txt", content=f"line {i}\n".encode(),
                          cause=call.seq)
    yield ledger, ws
    ledger.close()


def test_page_is_newest_first_and_pages_cover_everything_once(filled: tuple[Ledger, Path]) -> None:
    ledger, _ = filled
    seen: list[int] = []
    page = ledger.page(limit=64)
    while page:
        seen += [e.seq for e in page]
        page = ledger.page(before=page[-1].seq, limit=64)
    assert seen == list(range(ledger.last_seq(), 0, -1))


def test_page_after_and_between(filled: tuple[Ledger, Path]) -> None:
    ledger, _ = filled
    assert [e.seq for e in ledger.page(after=595)] == [600, 599, 598, 597, 596]
    assert [e.seq for e in ledger.page(after=10, before=14)] == [13, 12, 11]
    assert ledger.page(limit=0) == []


def test_filters_by_actor_kind_and_both(filled: tuple[Ledger, Path]) -> None:
    ledger, _ = filled
    beta = ledger.page(actor="beta", limit=1000)
    assert len(beta) == 200 and {e.actor for e in beta} == {"beta"}
    writes = ledger.page(kind="fs.write", limit=1000)
    assert len(writes) == 300 and all(isinstance(e, FileChange) for e in writes)
    both = ledger.page(actor="gamma", kind="tool", limit=1000)
    assert len(both) == 100 and all(isinstance(e, ToolCall) and e.actor == "gamma" for e in both)
    assert [e.seq for e in both] == sorted((e.seq for e in both), reverse=True)
    assert ledger.page(actor="nobody") == []


def test_path_prefix(filled: tuple[Ledger, Path]) -> None:
    ledger, ws = filled
    src = ledger.page(path=str(ws / "src") + "/", limit=1000)
    assert len(src) == 150 and all(e.path.startswith(str(ws / "src/")) for e in src)
    one = ledger.page(path=str(ws / "docs" / "f0.txt"), limit=1000)
    assert {e.path for e in one} == {str(ws / "docs" / "f0.txt")}
    assert [e.seq for e in one] == sorted((e.seq for e in one), reverse=True)
    assert ledger.page(path=str(ws / "nothing")) == []


def test_get_and_unknown_seq(filled: tuple[Ledger, Path]) -> None:
    ledger, _ = filled
    call = ledger.get(1)
    assert isinstance(call, ToolCall) and call.input == {"i": 0}
    for seq in (0, -1, 10_000):
        with pytest.raises(UnknownSeq) as err:
            ledger.get(seq)
        assert err.value.seq == seq


def test_blob_bytes_and_unknown_blob(filled: tuple[Ledger, Path]) -> None:
    ledger, _ = filled
    change = ledger.get(2)
    assert isinstance(change, FileChange) and change.before is None
    assert ledger.blob(change.after) == b"line 0\n"
    with pytest.raises(UnknownBlob):
        ledger.blob("0" * 64)


def test_diff_of_one_change(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.db")
    f = (tmp_path / "notes.txt").resolve()
    created = ledger.write_file(actor="a", path=f, content=b"one\ntwo\nthree\n", cause=None)
    edited = ledger.write_file(actor="a", path=f, content=b"one\n2\nthree\n", cause=None)
    binary = ledger.write_file(actor="a", path=tmp_path / "x.bin", content=b"\xff\x00\xfe", cause=None)
    gone = ledger.write_file(actor="a", path=f, content=None, cause=None)
    assert ledger.diff(edited.seq) == (f"--- a{f}\n+++ b{f}\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n")
    assert ledger.diff(created.seq).startswith(f"--- /dev/null\n+++ b{f}\n@@ -0,0 +1,3 @@\n+one\n")
    assert ledger.diff(gone.seq).startswith(f"--- a{f}\n+++ /dev/null\n")
    assert ledger.diff(binary.seq).startswith("Binary file")
    call = ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    with pytest.raises(NotAFileChange):
        ledger.diff(call.seq)
    with pytest.raises(UnknownSeq):
        ledger.diff(999)
    ledger.close()


def _plans(ledger: Ledger, query: Callable[[], object]) -> list[tuple[str, list[str]]]:
    """Run ``query`` and explain every SELECT it ran."""
    seen: list[str] = []
    db = ledger.connection
    db.set_trace_callback(seen.append)
    try:
        query()
    finally:
        db.set_trace_callback(None)
    selects = [sql for sql in seen if sql.lstrip().upper().startswith("SELECT")]
    assert selects, "the query ran no SELECT"
    return [(sql, [row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql)]) for sql in selects]


def test_queries_are_served_by_indexes(filled: tuple[Ledger, Path]) -> None:
    ledger, ws = filled
    last = ledger.last_seq()
    digest = ledger.get(2).after  # type: ignore[attr-defined]
    undo = ledger.undo(last - 20)
    queries: dict[str, Callable[[], object]] = {
        "newest": lambda: ledger.page(),
        "before": lambda: ledger.page(before=100),
        "after": lambda: ledger.page(after=last - 50),
        "actor": lambda: ledger.page(actor="beta"),
        "kind": lambda: ledger.page(kind="fs.write"),
        "actor+kind": lambda: ledger.page(actor="beta", kind="tool"),
        "path": lambda: ledger.page(path=str(ws / "src") + "/"),
        "path+before": lambda: ledger.page(path=str(ws / "src") + "/", before=200),
        "get": lambda: ledger.get(5),
        "blob": lambda: ledger.blob(digest),
        "diff": lambda: ledger.diff(last),
        "caused_by": lambda: ledger.caused_by(undo.undo_seq),
        "undone_by": lambda: ledger.undone_by(list(range(last - 20, last + 1))),
        "file_changes": lambda: ledger.file_changes(last - 20),
        "newest_values": lambda: ledger.newest_values("beta", "tool", "input", limit=5),
    }
    for name, query in queries.items():
        for sql, plan in _plans(ledger, query):
            for step in plan:
                assert not step.startswith("SCAN"), f"{name}: {sql!r} scans: {plan}"
                assert "USING" in step or "TEMP B-TREE" in step, f"{name}: {plan}"


def test_newest_values_reads_one_field_of_an_actors_newest_entries(filled: tuple[Ledger, Path]) -> None:
    ledger, _ = filled
    values = ledger.newest_values("beta", "tool", "input", limit=3)
    calls = [e for e in ledger.page(actor="beta", kind="tool", limit=3)]
    assert [seq for seq, _ in values] == [e.seq for e in calls]  # newest first
    # strings and numbers come as they are; an object or a list as its JSON text (SQLite's json_extract)
    assert [json.loads(v) for _, v in values] == [dict(e.input) for e in calls if isinstance(e, ToolCall)]
    assert ledger.newest_values("nobody", "tool", "input") == []
    with pytest.raises(ValueError):
        ledger.newest_values("beta", "tool", "input') --")
