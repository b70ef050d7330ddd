"""Undo never follows a folder that became a link after the change it reverses: a file the agent
wrote and then deleted in ``ws/sub/`` must not be recreated in ``~/.ssh`` because ``ws/sub`` now
points there. The path on record is absolute and resolved; a path that resolves elsewhere now is a
conflict, and nothing outside is written."""

from __future__ import annotations

from pathlib import Path

from ledger import Ledger


def test_undo_does_not_follow_a_folder_replaced_by_a_link(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    outside = tmp_path / "dot-ssh"
    outside.mkdir()
    target = ws / "sub" / "authorized_keys"
    with Ledger(tmp_path / "ledger.db") as ledger:
        ledger.write_file(actor="a1", path=target, content=b"ssh-ed25519 ATTACKER\n", cause=None)
        mark = ledger.last_seq()
        ledger.write_file(actor="a1", path=target, content=None, cause=None)  # deleted
        (ws / "sub").rmdir()
        (ws / "sub").symlink_to(outside)  # planted by someone the undo does not cover
        report = ledger.undo(mark, only_actor="a1")
    assert not (outside / "authorized_keys").exists()
    assert [c.path for c in report.conflicts] == [str(target)]
    assert "link" in report.conflicts[0].reason


def test_undo_still_works_when_the_folders_are_as_they_were(tmp_path: Path) -> None:
    target = tmp_path / "ws" / "sub" / "notes.txt"
    target.parent.mkdir(parents=True)
    with Ledger(tmp_path / "ledger.db") as ledger:
        ledger.write_file(actor="a1", path=target, content=b"v1", cause=None)
        mark = ledger.last_seq()
        ledger.write_file(actor="a1", path=target, content=None, cause=None)
        report = ledger.undo(mark)
    assert report.conflicts == () and target.read_bytes() == b"v1"
