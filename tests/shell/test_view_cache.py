"""The host part of a command's view is reused only while nothing it was built from changed."""

from __future__ import annotations

import os
from pathlib import Path

from kernel.sandbox.view import HostPaths, plan
from kernel.sandbox.view_cache import ViewCache


def _host(tmp_path: Path) -> tuple[Path, Path, HostPaths]:
    home = tmp_path / "home"
    (home / ".cargo" / "bin").mkdir(parents=True)
    (home / ".pyenv" / "shims").mkdir(parents=True)
    root = tmp_path / "ws"
    root.mkdir()
    return home, root, HostPaths(home=home, path=f"{home}/.cargo/bin:{home}/.pyenv/shims:/usr/bin")


def test_a_secret_appearing_in_a_shown_toolchain_is_masked_at_the_next_command(tmp_path: Path) -> None:
    home, root, host = _host(tmp_path)
    cache = ViewCache()
    first = cache.plan(root, host)
    assert first == plan(root, host)
    assert not any(path == home / ".cargo/credentials.toml" for path, _ in first.masked)
    assert cache.plan(root, host) == first  # nothing changed: the same view
    (home / ".cargo" / "credentials.toml").write_text("token")
    second = cache.plan(root, host)
    assert (home / ".cargo/credentials.toml", False) in second.masked
    assert second == plan(root, host)


def test_a_link_retargeted_or_a_toolchain_added_rebuilds_the_view(tmp_path: Path) -> None:
    home, root, host = _host(tmp_path)
    (tmp_path / "elsewhere" / ".ssh").mkdir(parents=True)
    cache = ViewCache()
    cache.plan(root, host)
    (home / ".rustup").mkdir()  # cargo's companion: shown once it exists
    assert (home / ".rustup", home / ".rustup") in cache.plan(root, host).read_only
    os.rmdir(home / ".pyenv" / "shims")
    os.rmdir(home / ".pyenv")
    os.symlink(tmp_path / "elsewhere", home / ".pyenv")  # the toolchain is now a link to a folder with keys
    (tmp_path / "elsewhere" / "shims").mkdir()
    view = cache.plan(root, host)
    assert view == plan(root, host)
    assert view.read_only != ()


def test_the_workspace_part_is_planned_for_every_command(tmp_path: Path) -> None:
    _home, root, host = _host(tmp_path)
    cache = ViewCache()
    assert cache.plan(root, host).locked == ()
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    view = cache.plan(root, host)
    assert root / ".git" / "config" in view.locked and root / ".git" in view.pinned


def test_files_that_change_at_every_command_do_not_rebuild_it(tmp_path: Path) -> None:
    home, root, _ = _host(tmp_path)
    ledger = tmp_path / "l.db-wal"
    ledger.write_bytes(b"1")
    host = HostPaths(home=home, path=f"{home}/.cargo/bin", secrets=(ledger, tmp_path / ".agentdesk-overlay"))
    cache = ViewCache()
    for n in range(3):
        cache.plan(root, host)
        ledger.write_bytes(b"more" * n)  # the ledger grows, its times move
        (home / f"history-{n}").write_text("x")  # the home folder's own time moves
    assert cache.builds == 1
    (tmp_path / ".agentdesk-overlay").mkdir()  # a secret appearing is a change
    cache.plan(root, host)
    assert cache.builds == 2
