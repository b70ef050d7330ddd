"""Atomic writes: mode kept, no temp files left, recorded before landing."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ledger import Ledger


def test_write_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    f = tmp_path / "script.sh"
    f.write_bytes(b"#!/bin/sh\n")
    os.chmod(f, 0o751)
    with Ledger(tmp_path / "ledger.db") as ledger:
        change = ledger.write_file(actor="a", path=f, content=b"#!/bin/sh\necho hi\n", cause=None)
        assert stat.S_IMODE(f.stat().st_mode) == 0o751 and change.mode == 0o751
        ledger.write_file(actor="a", path=f, content=None, cause=None)
        ledger.undo(change.seq - 1)  # recreated, with the mode it had
    assert f.read_bytes() == b"#!/bin/sh\n" and stat.S_IMODE(f.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("ledger.db")) == ["script.sh"]


def test_unwritable_target_raises_and_records_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_bytes(b"")
    with Ledger(tmp_path / "ledger.db") as ledger:
        try:
            ledger.write_file(actor="a", path=blocker / "f.txt", content=b"x", cause=None)
        except OSError:
            pass
        else:
            raise AssertionError("writing under a file should fail")
        assert ledger.page(kind="fs.write") == []
