"""shell_exec end to end: real bubblewrap, real ledger, real workspace. No mocks, no sleeps."""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from kernel.core.errors import ToolFailure
from kernel.sandbox.bwrap import Sandbox
from kernel.config.settings import Settings
from ledger import FileChange, Snapshot

from .conftest import Env, alive, group_members, tree_of, wait_fifo


def test_bubblewrap_works_here() -> None:
    """The sandbox tests need a working bwrap: fail loudly, never skip, when it is missing."""
    check = Sandbox().check()
    assert check.ok, check.reason


def test_changes_are_recorded_and_undo_restores_byte_for_byte(env: Env) -> None:
    (env.root / "edit.txt").write_bytes(b"line one\n")
    (env.root / "gone.bin").write_bytes(bytes(range(256)) * 4)
    (env.root / "sub").mkdir()
    (env.root / "sub" / "old-name.txt").write_bytes(b"move me\n")
    os.chmod(env.root / "gone.bin", 0o640)
    before = env.files()
    mark = env.ledger.last_seq()
    command = ("echo created > new.txt && mkdir -p deep/er && printf 'x\\0y' > deep/er/bin.dat && "
               "echo appended >> edit.txt && rm gone.bin && mv sub/old-name.txt sub/new-name.txt && echo done")
    out, ctx = asyncio.run(env.run({"command": command}))

    assert out.data["exit_code"] == 0 and "done" in out.content
    assert out.data["sandboxed"] is True
    changes = [e for e in env.ledger.caused_by(ctx.cause) if isinstance(e, FileChange)]
    got = {(os.path.relpath(c.path, env.root), c.before is None, c.after is None) for c in changes}
    assert got == {("new.txt", True, False), ("deep/er/bin.dat", True, False), ("edit.txt", False, False),
                   ("gone.bin", False, True), ("sub/old-name.txt", False, True), ("sub/new-name.txt", True, False)}
    assert all(c.actor == "a1" and c.cause == ctx.cause and c.stored for c in changes)
    snaps = [e for e in env.ledger.caused_by(ctx.cause) if isinstance(e, Snapshot)]
    assert len(snaps) == 1 and snaps[0].changed == 6 and snaps[0].root == str(env.root)
    assert "created new.txt" in out.content and "deleted gone.bin" in out.content

    report = env.ledger.undo(mark)
    assert report.ok, report.conflicts
    assert env.files() == before
    assert oct(os.stat(env.root / "gone.bin").st_mode & 0o777) == oct(0o640)


def test_exit_code_and_output_are_returned(env: Env) -> None:
    out, _ = asyncio.run(env.run({"command": "echo to-out; echo to-err >&2; exit 7"}))
    assert out.data["exit_code"] == 7
    assert out.content.startswith("exit code: 7")
    assert "to-out" in out.content and "to-err" in out.content


def test_network_is_cut_unless_granted(env: Env) -> None:
    # bash's /dev/tcp: no interpreter needed inside the sandbox (whose /tmp hides a venv kept there).
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        port = server.getsockname()[1]
        command = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
        denied, _ = asyncio.run(env.run({"command": command}))
        assert denied.data["exit_code"] != 0 and "connected" not in denied.content
        assert "/dev/tcp/127.0.0.1" in denied.content  # bash says why it could not connect
        granted, _ = asyncio.run(env.run({"command": command, "network": True}))
        assert granted.data["exit_code"] == 0 and "connected" in granted.content


def test_writes_outside_the_workspace_fail(env: Env, tmp_path) -> None:
    host_tmp = f"/tmp/agentdesk-host-{uuid.uuid4().hex}"
    home = os.environ.get("HOME", "/root")
    assert not home.startswith(str(env.root))
    command = (f"touch /etc/agentdesk-x; echo etc=$?; touch \"$HOME/agentdesk-x\"; echo home=$?; "
               f"touch {host_tmp}; echo tmp=$?; touch ../sibling.txt; echo sib=$?; touch inside.txt; echo ws=$?")
    out, _ = asyncio.run(env.run({"command": command}))
    assert "etc=1" in out.content and "ws=0" in out.content
    assert "tmp=0" in out.content and "home=0" in out.content  # the private /tmp and $HOME are writable, and vanish
    assert not os.path.exists("/etc/agentdesk-x")
    assert not os.path.exists(os.path.join(home, "agentdesk-x"))
    assert not os.path.exists(host_tmp)
    assert not (tmp_path / "sibling.txt").exists()
    assert (env.root / "inside.txt").exists()


def test_root_in_the_sandbox_cannot_remount(env: Env) -> None:
    out, _ = asyncio.run(env.run({"command": "mount -o remount,rw / 2>&1; touch /etc/agentdesk-y; echo etc=$?"}))
    assert "etc=1" in out.content and not os.path.exists("/etc/agentdesk-y")


def test_secrets_do_not_reach_the_command(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {"ANTHROPIC_API_KEY": "sk-ant-secret-1", "MY_TOKEN": "tok-secret-2", "OPENAI_API_KEY": "sk-oa-3",
               "GEMINI_API_KEY": "gm-4", "AWS_SECRET_ACCESS_KEY": "aws-5", "DB_PASSWORD": "pw-6",
               "RANDOM_THING": "not-allowlisted-7"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    out, _ = asyncio.run(env.run({"command": "env"}))
    for name, value in secrets.items():
        assert value not in out.content and name not in out.content
    assert "PATH=" in out.content and "HOME=" in out.content


def test_output_keeps_head_and_tail(env: Env) -> None:
    tool = env.tool(output_max_bytes=1000)
    out, _ = asyncio.run(env.run({"command": "echo FIRST-LINE; seq 1 100000; echo LAST-LINE"}, tool))
    assert "FIRST-LINE" in out.content and "LAST-LINE" in out.content
    assert out.data["cut_bytes"] > 500_000 and out.data["output_bytes"] > 500_000
    assert "bytes cut" in out.content and len(out.content) < 2000


def test_agentdeskignore_and_defaults_are_honoured(env: Env) -> None:
    (env.root / ".agentdeskignore").write_text("build/\n*.log\n")
    command = ("mkdir -p build .git/objects node_modules/m __pycache__ .cache myenv && touch build/a.o x.log "
               ".git/objects/1 node_modules/m/i.js __pycache__/c.pyc .cache/z myenv/pyvenv.cfg myenv/lib.py "
               "keep.txt")
    out, ctx = asyncio.run(env.run({"command": command}))
    changes = {os.path.relpath(e.path, env.root): e for e in env.ledger.caused_by(ctx.cause)
               if isinstance(e, FileChange)}
    if env.overlay:  # the rules decide only what is kept with contents: every change is recorded
        assert set(changes) == {"keep.txt", "build/a.o", "x.log", ".git/objects/1", "node_modules/m/i.js",
                                "__pycache__/c.pyc", ".cache/z", "myenv/pyvenv.cfg", "myenv/lib.py"}, out.content
        assert [p for p, e in changes.items() if e.stored] == ["keep.txt"]
    else:
        assert set(changes) == {"keep.txt"}, out.content


def test_large_files_are_recorded_by_hash_only(env: Env) -> None:
    settings = Settings(blob_max_bytes=1000)
    from kernel.workspace.snapshot import SnapshotIndex

    env.index = SnapshotIndex(env.root, env.ledger, max_blob=settings.blob_max_bytes)
    (env.root / "big.bin").write_bytes(b"a" * 5000)
    out, ctx = asyncio.run(env.run({"command": "head -c 4000 /dev/zero > huge.bin; echo more >> big.bin; "
                                               "echo small > small.txt"}, env.tool(settings=settings)))
    by_name = {os.path.basename(e.path): e for e in env.ledger.caused_by(ctx.cause) if isinstance(e, FileChange)}
    assert not by_name["big.bin"].stored and not by_name["huge.bin"].stored and by_name["small.txt"].stored
    assert not env.ledger.has_blob(by_name["big.bin"].before)
    assert out.data["not_undoable"] == ["big.bin"]
    assert sorted(out.data["hash_only"]) == ["big.bin", "huge.bin"]
    assert "NOT undoable" in out.content and "big.bin" in out.content
    report = env.ledger.undo(ctx.cause - 1)
    assert [c.path for c in report.conflicts] == [str(env.root / "big.bin")]
    assert not (env.root / "huge.bin").exists() and not (env.root / "small.txt").exists()


def _runaway(marker: str, fifo: Path) -> str:
    # A bounded fork loop (ulimit -u does not bind root, so the loop bounds itself), orphans that let go
    # of the output pipe, and one that escapes into a session of its own: all must die with the command.
    return (f"ulimit -u 4096; for i in $(seq 20); do (sleep {marker} &); done; "
            f"(sleep {marker} >/dev/null 2>&1 &); setsid sleep {marker} >/dev/null 2>&1 & "
            f"sleep {marker} & sleep {marker} & echo started > {fifo}; wait")


def test_timeout_stops_the_whole_tree(env: Env) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    fifo = env.fifo("ready.fifo")

    async def scenario() -> None:
        task = asyncio.ensure_future(env.run({"command": _runaway(marker, fifo), "timeout": 5}))
        await wait_fifo(fifo)
        tree = tree_of(marker)
        assert len(alive(tree)) >= 24
        env.clock.advance(5)
        with pytest.raises(ToolFailure) as failure:
            await task
        assert "timed out after 5s" in failure.value.message
        assert alive(tree) == set() and tree_of(marker) == set()
        assert group_members(tree) == set()

    asyncio.run(scenario())


def test_cancel_kills_the_whole_tree_and_records_changes(env: Env) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    fifo = env.fifo("ready.fifo")
    command = "echo before-kill > partial.txt; " + _runaway(marker, fifo)

    async def scenario() -> int:
        ctx = env.call({"command": command})
        task = asyncio.ensure_future(env.tool().run(ctx, {"command": command}))
        await wait_fifo(fifo)
        tree = tree_of(marker)
        assert len(alive(tree)) >= 24
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert alive(tree) == set() and tree_of(marker) == set()
        assert group_members(tree) == set()
        return ctx.cause

    cause = asyncio.run(scenario())
    recorded = [os.path.basename(e.path) for e in env.ledger.caused_by(cause) if isinstance(e, FileChange)]
    assert recorded == ["partial.txt"]


def test_timeout_input_cannot_exceed_settings(env: Env) -> None:
    tool = env.tool(settings=replace(env.settings, shell_timeout_s=2))
    fifo = env.fifo("ready.fifo")

    async def scenario() -> None:
        task = asyncio.ensure_future(env.run({"command": f"echo s > {fifo}; sleep 1000", "timeout": 500}, tool))
        await wait_fifo(fifo)
        env.clock.advance(2)
        with pytest.raises(ToolFailure, match="timed out after 2s"):
            await task

    asyncio.run(scenario())


def test_missing_bwrap_is_refused_naming_the_package(env: Env) -> None:
    tool = env.tool(bwrap="/nonexistent/bwrap")
    with pytest.raises(ToolFailure) as failure:
        asyncio.run(env.run({"command": "touch nope.txt"}, tool))
    assert "bubblewrap" in failure.value.message and "apt install bubblewrap" in failure.value.message
    assert not (env.root / "nope.txt").exists()
    assert tool.notes_for({"command": "true"}) == ()


def test_unsandboxed_when_allowed(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-unsandboxed")
    tool = env.tool(bwrap="/nonexistent/bwrap", settings=Settings(allow_unsandboxed_shell=True))
    notes = tool.notes_for({"command": "true"})
    assert len(notes) == 1 and "WITHOUT a sandbox" in notes[0] and "bubblewrap" in notes[0]
    out, ctx = asyncio.run(env.run({"command": "echo hi > plain.txt; env"}, tool))
    assert out.data["sandboxed"] is False and "AGENTDESK_SANDBOX=none" in out.content
    assert "sk-ant-unsandboxed" not in out.content
    assert [os.path.basename(e.path) for e in env.ledger.caused_by(ctx.cause) if isinstance(e, FileChange)] == \
        ["plain.txt"]


def test_scope_preview_and_notes(env: Env) -> None:
    tool = env.tool()
    assert tool.scope == "shell.exec" and tool.tool_class == "execute"
    assert tool.scope_for({"command": "ls"}) == "shell.exec"
    assert tool.scope_for({"command": "curl x", "network": True}) == "shell.exec.net"
    preview = tool.preview(env.workspace, {"command": "make test", "network": True})
    assert "make test" in preview.summary and str(env.root) in preview.summary and "network" in preview.summary
    assert tool.notes_for({"command": "ls"}) == ()
    assert tool.notes_for({"command": "curl x", "network": True}) == ("The command may use the network.",)


def test_concurrent_commands_in_one_workspace_are_told_apart(env: Env) -> None:
    tool = env.tool()

    async def both() -> tuple[int, int]:
        first, second = env.call({"command": "a"}), env.call({"command": "b"})
        await asyncio.gather(tool.run(first, {"command": "for i in $(seq 50); do echo $i >> a.txt; done"}),
                             tool.run(second, {"command": "for i in $(seq 50); do echo $i >> b.txt; done"}))
        return first.cause, second.cause

    first, second = asyncio.run(both())
    for cause, name in ((first, "a.txt"), (second, "b.txt")):
        assert [os.path.basename(e.path) for e in env.ledger.caused_by(cause) if isinstance(e, FileChange)] == [name]


def test_settings_given_as_a_callable_apply_to_the_next_call(tmp_path) -> None:
    from dataclasses import replace

    from kernel.config.settings import Settings
    from kernel.tools.shell import shell_tool

    holder = [Settings(allow_unsandboxed_shell=False)]
    tool = shell_tool(lambda: holder[0], index=None, bwrap="/nonexistent/bwrap")
    assert not any("WITHOUT a sandbox" in n for n in tool.notes_for({"command": "true"}))
    holder[0] = replace(holder[0], allow_unsandboxed_shell=True)
    assert any("WITHOUT a sandbox" in n for n in tool.notes_for({"command": "true"}))
