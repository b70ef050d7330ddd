"""A home is its owner's alone (issue 23): the folder 0700, the ledger, its WAL and -shm, the keys, the
accounts, the settings and the kernel's log 0600, whatever the umask; a home made 0755/0644 before is
repaired when a real kernel starts on it and when the command line opens it.

Real processes: ``agentdesk kernel`` on a tmp home, the ledger's WAL looked at while the kernel holds it
open, and ``agentdesk ps`` (in-process) on a home opened up again behind the kernel's back.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from kernel.config.private import open_private_log, write_private
from ledger import Ledger
from tests.cli.inproc import agentdesk
from tests.service.conftest import KernelProcess, clean_env, hello


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The usual umask (022): what a home got before issue 23 (a kernel process inherits it)."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def kernel_on(home: Path, srv: object) -> KernelProcess:
    env = clean_env(home, {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url,  # type: ignore[attr-defined]
                           "AGENTDESK_KEYRING": "off"})
    return KernelProcess(home, env).start()


def test_a_new_home_is_owner_only_with_its_ledger_wal_and_shm(tmp_path, srv, open_umask):
    home = tmp_path / "new" / "home"  # does not exist yet: the kernel makes it
    k = kernel_on(home, srv)
    try:
        assert hello(k.socket) is not None  # served: the ledger is open, in WAL mode
        names = {p.name for p in home.iterdir()}
        assert {"ledger.db", "ledger.db-wal", "ledger.db-shm", "kernel.lock"} <= names, names
        assert mode(home) == 0o700
        for name in ("ledger.db", "ledger.db-wal", "ledger.db-shm", "kernel.lock"):
            assert mode(home / name) == 0o600, (name, oct(mode(home / name)))
    finally:
        assert k.stop() == 0


def test_an_old_home_open_to_everyone_is_repaired_at_kernel_start_and_by_the_command_line(tmp_path, srv,
                                                                                         open_umask):
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)
    Ledger(home / "ledger.db").close()
    for name, text in (("settings.json", "{}"), ("accounts.json", "[]"), ("mcp.json", '{"servers": {}}'),
                       ("kernel.log", "old log\n")):
        (home / name).write_text(text)
    (home / "notes.txt").write_text("the user's own file")  # not Agentdesk's: its mode is left alone
    (home / "logs").mkdir()
    for p in home.iterdir():
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    assert mode(home / "ledger.db") == 0o644

    k = kernel_on(home, srv)
    try:
        assert hello(k.socket) is not None
        assert mode(home) == 0o700
        for name in ("ledger.db", "ledger.db-wal", "ledger.db-shm", "settings.json", "accounts.json", "mcp.json",
                     "kernel.log", "kernel.lock"):
            assert mode(home / name) == 0o600, (name, oct(mode(home / name)))
        assert mode(home / "logs") == 0o700
        assert mode(home / "notes.txt") == 0o644
    finally:
        assert k.stop() == 0

    os.chmod(home, 0o755)  # opened up again while no kernel runs: the next command closes it
    for name in ("ledger.db", "settings.json", "kernel.log"):
        os.chmod(home / name, 0o644)
    done = agentdesk(["ledger"], home)  # reads the ledger with no kernel running
    assert done.returncode == 0, done.stderr
    assert mode(home) == 0o700
    for name in ("ledger.db", "settings.json", "kernel.log"):
        assert mode(home / name) == 0o600, name
    assert mode(home / "notes.txt") == 0o644


def test_files_the_kernel_writes_in_a_home_are_0600_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        write_private(tmp_path / "settings.json", json.dumps({"user_name": "Ada"}))
        (tmp_path / "mcp.json.tmp").write_text("left over by a crash")  # O_CREAT keeps a leftover's mode
        os.chmod(tmp_path / "mcp.json.tmp", 0o666)
        write_private(tmp_path / "mcp.json", "{}")
        fd = open_private_log(tmp_path / "kernel.log")
        os.close(fd)
        (tmp_path / "old.log").write_text("")
        os.chmod(tmp_path / "old.log", 0o666)
        os.close(open_private_log(tmp_path / "old.log"))
        Ledger(tmp_path / "ledger.db").close()
    finally:
        os.umask(old)
    for name in ("settings.json", "mcp.json", "kernel.log", "old.log", "ledger.db"):
        assert mode(tmp_path / name) == 0o600, name
    assert json.loads((tmp_path / "settings.json").read_text()) == {"user_name": "Ada"}


def test_the_settings_keys_and_accounts_a_user_saves_are_0600(tmp_path, open_umask):
    from kernel.config.secrets import SecretStore
    from kernel.config.settings import Settings, SettingsStore
    from kernel.mail.accounts import Account, AccountStore

    home = tmp_path / "home"
    store = SettingsStore(home)
    store.save(Settings(user_name="Ada"))
    store.save_key("anthropic", "sk-test")
    assert mode(home) == 0o700
    assert mode(home / "settings.json") == 0o600 and mode(home / "keys.json") == 0o600
    accounts = AccountStore(home, SecretStore(store, use_keyring=False))
    accounts.save(Account(name="work", address="ada@example.org", user="ada", imap_host="127.0.0.1",
                          smtp_host="127.0.0.1"), "pw")
    assert mode(home / "accounts.json") == 0o600
