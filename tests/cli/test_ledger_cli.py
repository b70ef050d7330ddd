"""``agentdesk ledger`` and ``agentdesk undo`` run in-process against a temp home."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from kernel.cli import main
from ledger import Ledger, ToolCall


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "home"
    root.mkdir()
    monkeypatch.setenv("AGENTDESK_HOME", str(root))
    return root


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = (tmp_path / "ws").resolve()
    folder.mkdir()
    return folder


def _history(home: Path, ws: Path) -> dict[str, int]:
    """seqs: 1 call, 2 create a, 3 create b (agent-1); 4 call, 5 modify a (agent-2)."""
    with Ledger(home / "ledger.db") as ledger:
        c1 = ledger.append(ToolCall(actor="agent-1", tool="fs.write", scope="fs.write", input={"path": "a"}))
        a1 = ledger.write_file(actor="agent-1", path=ws / "a.txt", content=b"a1\n", cause=c1.seq)
        b1 = ledger.write_file(actor="agent-1", path=ws / "sub" / "b.txt", content=b"b1\n", cause=c1.seq)
        c2 = ledger.append(ToolCall(actor="agent-2", tool="fs.write", scope="fs.write", input={"path": "a"},
                                    lease=1))
        a2 = ledger.write_file(actor="agent-2", path=ws / "a.txt", content=b"a2\n", cause=c2.seq)
    return {"c1": c1.seq, "a1": a1.seq, "b1": b1.seq, "c2": c2.seq, "a2": a2.seq}


def _json_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_ledger_json_shape(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seqs = _history(home, ws)
    assert main(["ledger", "--json"]) == 0
    rows = _json_lines(capsys.readouterr().out)
    assert [r["seq"] for r in rows] == [5, 4, 3, 2, 1]
    for r in rows:
        assert isinstance(r["seq"], int)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["ts"])
        assert r["undone_by"] is None
    call, change = rows[1], rows[0]
    assert call["kind"] == "tool" and call["input"] == {"path": "a"} and call["lease"] == 1
    assert call["tool"] == "fs.write" and call["scope"] == "fs.write" and call["actor"] == "agent-2"
    assert change["kind"] == "fs.write" and change["path"] == str(ws / "a.txt")
    assert re.fullmatch(r"[0-9a-f]{64}", change["before"]) and re.fullmatch(r"[0-9a-f]{64}", change["after"])
    assert change["cause"] == seqs["c2"]
    assert rows[3]["before"] is None and rows[4]["lease"] is None


def test_ledger_filters_and_limit(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    for argv, expected in [
        (["--actor", "agent-1"], [3, 2, 1]),
        (["--kind", "fs.write"], [5, 3, 2]),
        (["--kind", "fs.write", "--actor", "agent-1"], [3, 2]),
        (["--path", str(ws / "sub")], [3]),
        (["--path", str(ws / "a.txt")], [5, 2]),
        (["--limit", "2"], [5, 4]),
        (["--actor", "nobody"], []),
    ]:
        assert main(["ledger", "--json", *argv]) == 0
        assert [r["seq"] for r in _json_lines(capsys.readouterr().out)] == expected, argv


def test_ledger_relative_path_is_made_absolute(home: Path, ws: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _history(home, ws)
    monkeypatch.chdir(ws)
    assert main(["ledger", "--json", "--path", "sub/"]) == 0
    assert [r["seq"] for r in _json_lines(capsys.readouterr().out)] == [3]


def test_ledger_table(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    assert main(["ledger"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["SEQ", "TIME", "(UTC)", "ACTOR"]
    assert lines[1].split()[0] == "5" and f"modify {ws / 'a.txt'}" in lines[1]
    assert "agent-1" in lines[-1] and "fs.write" in lines[-1]


def test_undo_report_and_undone_by(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seqs = _history(home, ws)
    assert main(["undo", "--after", str(seqs["c1"])]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Undid 2 files after #1 (3 changes) as undo #6:"
    assert f"delete   {ws / 'a.txt'}  (reverses #5, #2)" in out
    assert f"delete   {ws / 'sub' / 'b.txt'}  (reverses #3)" in out
    assert not (ws / "a.txt").exists() and not (ws / "sub" / "b.txt").exists()
    assert main(["ledger", "--json", "--kind", "fs.write"]) == 0
    rows = {r["seq"]: r for r in _json_lines(capsys.readouterr().out)}
    assert {s: rows[s]["undone_by"] for s in (seqs["a1"], seqs["b1"], seqs["a2"])} == {2: 6, 3: 6, 5: 6}
    # Redo: undo the undo; the originals are live again.
    assert main(["undo", "--after", "5"]) == 0
    out = capsys.readouterr().out
    assert f"create   {ws / 'a.txt'}" in out and (ws / "a.txt").read_bytes() == b"a2\n"
    assert main(["ledger", "--json", "--kind", "fs.write", "--limit", "100"]) == 0
    rows = {r["seq"]: r for r in _json_lines(capsys.readouterr().out)}
    assert rows[2]["undone_by"] is None and rows[5]["undone_by"] is None
    assert main(["undo", "--after", str(seqs["a2"]), "--dry-run"]) == 0


def test_undo_only_one_actor(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seqs = _history(home, ws)
    assert main(["undo", "--after", "0", "--actor", "agent-2"]) == 0
    assert f"restore  {ws / 'a.txt'}  (reverses #{seqs['a2']})" in capsys.readouterr().out
    assert (ws / "a.txt").read_bytes() == b"a1\n" and (ws / "sub" / "b.txt").exists()


def test_undo_conflict_exits_5_and_names_who(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    (ws / "sub" / "b.txt").write_bytes(b"edited by hand\n")
    with Ledger(home / "ledger.db") as ledger:  # a file a later agent overwrote outside the range
        ledger.write_file(actor="agent-9", path=ws / "c.txt", content=b"c\n", cause=None)
    assert main(["undo", "--after", "1"]) == 5
    out = capsys.readouterr().out
    assert f"conflict {ws / 'sub' / 'b.txt'}" in out and "did not see" in out
    assert (ws / "sub" / "b.txt").read_bytes() == b"edited by hand\n"
    assert not (ws / "a.txt").exists()  # the rest proceeded
    assert "in conflict, not changed" in out.splitlines()[-1]


def test_undo_conflict_names_the_agent(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    assert main(["undo", "--after", "0", "--actor", "agent-1"]) == 5
    out = capsys.readouterr().out
    assert f"conflict {ws / 'a.txt'}  (changed since by agent-2 (#5)" in out
    assert (ws / "a.txt").read_bytes() == b"a2\n"


def test_dry_run_changes_nothing(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    db = (home / "ledger.db").read_bytes()
    assert main(["undo", "--after", "0", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Would undo 2 files after #0")
    assert (ws / "a.txt").read_bytes() == b"a2\n"
    with Ledger(home / "ledger.db") as ledger:
        assert ledger.last_seq() == 5
    assert len(db) > 0


def test_nothing_to_undo(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    assert main(["undo", "--after", "5"]) == 0
    assert capsys.readouterr().out.strip() == "Nothing to undo after #5."


def test_no_ledger_yet(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ledger"]) == 0
    assert "No ledger yet" in capsys.readouterr().err
    assert main(["ledger", "--json"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["undo", "--after", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no ledger yet" in err
    assert not (home / "ledger.db").exists()


@pytest.mark.parametrize("argv", [
    ["undo", "--after", "99"], ["undo", "--after", "-3"], ["undo", "--after", "x"], ["undo"],
    ["ledger", "--limit", "0"], ["ledger", "--limit", "many"], ["ledger", "--kind", "bogus"],
    ["ledger", "--bogus"],
])
def test_bad_usage_is_one_line_exit_2(home: Path, ws: Path, argv: list[str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors exit through the parser
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.out == ""


@pytest.mark.parametrize("command", [["ledger"], ["ledger", "--json"], ["undo", "--after", "0"]])
@pytest.mark.parametrize("content", [b"", b"garbage, not a database" * 200,
                                     b"SQLite format 3\x00" + b"\xff" * 4000])
def test_corrupt_database_is_one_line_error(home: Path, command: list[str], content: bytes,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (home / "ledger.db").write_bytes(content)
    code = main(command)
    captured = capsys.readouterr()
    if content == b"":  # an empty file is an empty ledger, not damage
        assert code == (0 if command[0] == "ledger" else 0)
        return
    assert code == 1
    assert captured.err.count("\n") == 1 and captured.err.startswith(f"agentdesk {command[0]}: cannot open ledger")
    assert captured.out == ""


def test_unreadable_database_is_one_line_error(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "ledger.db").mkdir()  # a folder where the file should be
    assert main(["ledger"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("agentdesk ledger: ")


# ---- agentdesk ledger verify ------------------------------------------------------------


def _tamper(home: Path, *statements: str) -> None:
    raw = sqlite3.connect(home / "ledger.db")
    for sql in statements:
        raw.execute(sql)
    raw.commit()
    raw.close()


def test_verify_intact_exits_0_and_prints_the_head(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    assert main(["ledger", "verify"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ledger intact: 5 entries, 3 blobs"
    assert re.fullmatch(r"head: #5 [0-9a-f]{64}", lines[1])


def test_verify_after_drop_trigger_and_update_exits_6_naming_the_seq(
        home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    assert main(["ledger", "--json"]) == 0  # before: the forged history would be shown without a word
    capsys.readouterr()
    _tamper(home, "DROP TRIGGER entries_no_update", "UPDATE entries SET actor = 'mallory' WHERE seq = 4")
    assert main(["ledger", "verify"]) == 6
    assert capsys.readouterr().out == (
        "ledger broken at #4: it does not match its hash (it was changed after it was written)\n")
    assert main(["ledger", "--json"]) == 0  # the listing still lists, and says so
    captured = capsys.readouterr()
    assert [r["actor"] for r in _json_lines(captured.out)][1] == "mallory"
    assert captured.err == ("warning: the ledger is broken at #4: it does not match its hash (it was changed after "
                            "it was written) (see 'agentdesk ledger verify')\n")


def test_verify_catches_edited_blob_bytes(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seqs = _history(home, ws)
    _tamper(home, "DROP TRIGGER blobs_no_update", "UPDATE blobs SET codec = 'raw', data = x'6576696c'")
    assert main(["ledger", "verify"]) == 6
    out = capsys.readouterr().out
    assert out.startswith(f"ledger broken at #{seqs['a1']}: the contents it names (blob ") and "corrupted" in out


def test_verify_catches_a_truncated_tail_after_an_earlier_verify(
        home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    assert main(["ledger", "verify"]) == 0
    _tamper(home, "DROP TRIGGER entries_no_delete", "DELETE FROM entries WHERE seq >= 4")
    assert main(["ledger", "verify"]) == 6
    assert capsys.readouterr().out.splitlines()[-1] == (
        "ledger broken at #4: entries #4–#5 are missing (the ledger was verified up to #5)")


def test_verify_without_a_ledger_exits_2(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ledger", "verify"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no ledger yet" in err
    assert not (home / "ledger.db").exists()


def test_verify_takes_no_filters(home: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(home, ws)
    assert main(["ledger", "verify", "--actor", "agent-1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_verify_of_a_garbage_file_is_one_line_error(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "ledger.db").write_bytes(b"garbage, not a database" * 200)
    assert main(["ledger", "verify"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("agentdesk ledger verify: cannot open ledger")
