"""Undo over what an agent left in a file's place: a pipe or a link is a conflict, reported at once."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from ledger import Ledger
from ledger.blobs import verify


@pytest.mark.parametrize("replace", ["fifo", "link to /dev/zero", "link outside"])
def test_a_pipe_or_link_in_place_of_a_written_file_is_a_conflict(tmp_path: Path, replace: str) -> None:
    target = tmp_path / "notes.txt"
    outside = tmp_path / "elsewhere.txt"
    outside.write_bytes(b"v1\n")
    with Ledger(tmp_path / "ledger.db") as ledger:
        ledger.write_file(actor="a1", path=target, content=b"v1\n", cause=None)
        ledger.write_file(actor="a1", path=target, content=b"v2\n", cause=None)
        target.unlink()
        if replace == "fifo":
            os.mkfifo(target)  # opening it to read would block undo for good
        else:
            target.symlink_to("/dev/zero" if replace == "link to /dev/zero" else outside)
        report = ledger.undo(0)
    assert [c.path for c in report.conflicts] == [str(target)]
    assert target.is_symlink() or target.is_fifo()  # left untouched
    assert outside.read_bytes() == b"v1\n"


def test_a_blob_row_holding_text_is_reported_damaged_not_a_crash(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        ledger.write_file(actor="a1", path=tmp_path / "f.txt", content=b"hello", cause=None)
    db = sqlite3.connect(tmp_path / "ledger.db")
    (name,) = db.execute("SELECT hash FROM blobs").fetchone()
    db.execute("DROP TRIGGER IF EXISTS blobs_no_update")
    for (trigger,) in db.execute("SELECT name FROM sqlite_master WHERE type='trigger' AND tbl_name='blobs'").fetchall():
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("UPDATE blobs SET data = 'text, not bytes' WHERE hash = ?", (name,))
    db.commit()
    assert verify(db) == [name]
