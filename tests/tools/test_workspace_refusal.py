"""No workspace is `/`, the home folder, a system folder, or a folder holding Agentdesk's own files.

An agent holding only ``fs`` in such a workspace could read keys.json and
replace ledger.db. One function decides (``check_workspace``); the kernel at
spawn, ``agentdesk ask`` (exit 2, one line) and the Settings form all ask it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.settings_form import apply_form, check_form, values_from
from kernel.core.errors import ConfigError
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.workspace.root import Workspace, check_workspace
from ledger import Ledger

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def homes(tmp_path: Path) -> tuple[Path, Path]:
    """A user home and an AGENTDESK_HOME inside it, as on a real machine."""
    user = tmp_path / "users" / "ada"
    own = user / ".local" / "share" / "agentdesk"
    own.mkdir(parents=True)
    (user / "proj").mkdir()
    return user, own


REFUSED = [
    ("/", "root folder"),
    ("{user}", "your home folder"),
    ("{user}/..", "holds your home folder"),
    ("{own}", "Agentdesk's own files"),
    ("{user}/.local/share", "Agentdesk's own files"),
    ("{own}/snapshots", "inside Agentdesk's own folder"),
    ("{user}/.ssh", "credentials"),
    ("{user}/.gnupg/private", "credentials"),
    ("{user}/.config", "data of many programs"),
    ("{user}/.config/gh/proj", "credentials"),  # what the shell sandbox never shows is refused at spawn too
    ("{user}/.mozilla/firefox", "browser profile"),
    ("/etc", "system folder"),
    ("/usr/share/doc", "system folder"),
    ("/proc/self", "system folder"),
    ("/var/lib/dpkg", "system folder"),
    ("/tmp", "system folder"),
    ("/var", "system folder"),
    ("/srv", "system folder"),
    ("/opt", "system folder"),
    ("/home", "system folder"),
]


@pytest.mark.parametrize("path, why", REFUSED)
def test_dangerous_workspaces_are_refused_with_one_sentence(path: str, why: str) -> None:
    user = Path("/nonexistent/users/ada")  # not under /tmp, so /tmp is refused as what it is
    own = user / ".local/share/agentdesk"
    problem = check_workspace(path.format(user=user, own=own), own, user)
    assert problem is not None and why in problem and "\n" not in problem


@pytest.mark.parametrize("path", ["{user}/proj", "{user}/proj/sub", "{tmp}/scratch", "/srv/site", "/opt/project",
                                  "{user}/.config/myapp"])
def test_project_folders_are_fine(homes, tmp_path: Path, path: str) -> None:
    user, own = homes
    assert check_workspace(path.format(user=user, tmp=tmp_path), own, user) is None


def test_links_are_resolved_before_deciding(homes, tmp_path: Path) -> None:
    user, own = homes
    (tmp_path / "to_root").symlink_to("/")
    (tmp_path / "to_home").symlink_to(user)
    assert "root folder" in (check_workspace(tmp_path / "to_root", own, user) or "")
    assert "your home folder" in (check_workspace(tmp_path / "to_home", own, user) or "")


def test_workspace_at_refuses_and_makes_no_folder(homes) -> None:
    user, own = homes
    with pytest.raises(ConfigError) as info:
        Workspace.at(user / ".ssh" / "new", agentdesk_home=own, user_home=user, create=True)
    assert info.value.variable == "workspace" and "credentials" in str(info.value)
    assert not (user / ".ssh").exists()
    assert Workspace.at(user / "proj", agentdesk_home=own, user_home=user).root == (user / "proj").resolve()


def test_the_kernel_refuses_to_spawn_an_agent_in_a_folder_holding_the_ledger(tmp_path: Path) -> None:
    own = tmp_path / "home"
    ledger = Ledger(own / "ledger.db")

    async def spawn(**kw):
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(tmp_path / "ws")), providers=lambda n: None)
        try:
            return kernel.agents.spawn(**kw)
        finally:
            await kernel.aclose()

    try:
        with pytest.raises(ConfigError, match="the ledger"):
            asyncio.run(spawn(workspace=str(tmp_path)))
        assert ledger.page(kind="agent.spawn") == []
        assert asyncio.run(spawn()).workspace == str((tmp_path / "ws").resolve())  # made on first use
    finally:
        ledger.close()


def _ask(args: list[str], home: Path, cwd: Path, user_home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    env.update({"AGENTDESK_HOME": str(home), "PYTHONPATH": str(ROOT), "HOME": str(user_home),
                "ANTHROPIC_API_KEY": "k"})
    return subprocess.run([sys.executable, "-m", "desktop.launcher", "ask", "hi", *args], env=env,
                          capture_output=True, text=True, timeout=60, cwd=cwd)


@pytest.mark.parametrize("where, why", [
    (["--workspace", "/"], "root folder"),
    (["--workspace", "{own}/.."], "Agentdesk's own files"),
    ([], "your home folder"),  # the default: the current folder, here the home folder
])
def test_ask_refuses_with_exit_2_and_one_line(homes, where: list[str], why: str) -> None:
    user, own = homes
    done = _ask([w.format(own=own) for w in where], own, user, user)
    assert done.returncode == 2, done.stderr
    assert why in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (own / "ledger.db").exists()  # refused before anything started


def test_the_settings_form_says_why(homes, monkeypatch: pytest.MonkeyPatch) -> None:
    user, own = homes
    monkeypatch.setenv("HOME", str(user))
    base = Settings(user_name="Ada", workspace=str(user / "proj"))
    values = values_from(base)
    assert check_form(values, own) == []
    bad = values_from(Settings(user_name="Ada", workspace=str(user)))
    [(field, message)] = check_form(bad, own)
    assert field == "workspace" and message.startswith("Your home folder") and message.endswith(".")
    holding = values_from(Settings(user_name="Ada", workspace=str(own.parent)))
    assert "Agentdesk's own files" in check_form(holding, own)[0][1]
    with pytest.raises(ConfigError):
        apply_form(holding, base, own)
