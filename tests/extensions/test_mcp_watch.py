"""A hand edit of mcp.json while the kernel runs: noticed on the kernel's clock and applied; a broken edit
(bad JSON, a bad field) keeps the running servers, says why in ``mcp_status`` and in the ``McpChanged``
event, and never ends the watch. A ``ManualClock`` moves time; real stdio MCP servers
(tests/extensions/mcp_test_server.py) through the real ``mcp`` SDK."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any, Callable

from kernel.core.clock import ManualClock
from kernel.core.events import McpChanged
from kernel.extensions.mcp_config import McpStore
from kernel.extensions.mcp_watch import McpFile, signature
from kernel.extensions.setup import start_configured_mcp
from kernel.compose import build_kernel
from kernel.config.secrets import SecretStore, usable_keyring
from kernel.config.settings import Settings, SettingsStore
from ledger import Ledger

from .conftest import SERVER
from .mcp_zygote import server_command

TICK = 2.0


def _entry(**changes: Any) -> dict[str, Any]:
    command, args = server_command(SERVER)
    return {"command": command, "args": list(args), "timeout_s": 30, **changes}


def _write(path: Path, text: str) -> None:
    """As an editor saves: a new file renamed over the old one."""
    tmp = path.with_name(path.name + ".swp")
    tmp.write_text(text)
    os.replace(tmp, path)


async def _until(cond: Callable[[], bool]) -> None:
    """Give the loop turns until ``cond`` holds (the watch goes back to sleep on the clock: no time passes)."""
    for _ in range(10_000):
        if cond():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never came true")


def test_the_file_signature_sees_a_rename_over_and_a_removal(tmp_path):
    path = tmp_path / "mcp.json"
    file = McpFile(path)
    assert not file.changed()  # no file, none seen
    _write(path, "{}")
    assert file.changed()
    file.mark()
    assert not file.changed() and file.seen == signature(path)
    _write(path, "{}")  # same size, same content: another inode
    assert file.changed()
    file.mark()
    path.unlink()
    assert file.changed()


def test_hand_edits_apply_and_a_broken_edit_keeps_the_servers_running(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_KEYRING", "off")
    usable_keyring.cache_clear()
    home = tmp_path / "home"
    home.mkdir()
    path = home / "mcp.json"
    _write(path, json.dumps({"servers": {"t": _entry()}}))
    ws = tmp_path / "ws"
    ws.mkdir()

    async def main() -> None:
        clock = ManualClock()
        ledger = Ledger(tmp_path / "ledger.db", clock=clock.now)
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: None, clock=clock)
        heard: asyncio.Queue[McpChanged] = asyncio.Queue()
        awake_sleepers: list[int] = []

        def on_event(event: object) -> None:
            if isinstance(event, McpChanged):
                awake_sleepers.append(clock.sleepers)  # the watch is awake while it reloads
                heard.put_nowait(event)

        kernel.subscribe(on_event)
        reports: list[Any] = []
        try:
            kernel.extensions.use_mcp_home(home)  # as the kernel service does: the home first, the start and the watch beside it
            kernel.extensions.watch_mcp(reports.append, interval_s=TICK)
            assert await start_configured_mcp(kernel.extensions, home) == []
            first = heard.get_nowait()
            assert not first.edited and first.reload.started == ("t",)
            agent = kernel.agents.spawn("a", workspace=str(ws))
            on_echo = kernel.leases.grant(agent.id, "mcp.t.echo", 3600)
            await _until(lambda: clock.sleepers == 2)  # the leases' expiry watch and the mcp.json watch

            async def tick() -> McpChanged:
                clock.advance(TICK)
                event = await asyncio.wait_for(heard.get(), timeout=60)
                await _until(lambda: clock.sleepers == awake_sleepers[-1] + 1)  # asleep again
                return event

            # an edit that adds a server: read at the next tick, published as a hand edit, reported
            _write(path, json.dumps({"servers": {"t": _entry(), "u": _entry()}}))
            added = await tick()
            assert added.edited and added.reload.started == ("u",) and added.reload.problems == ()
            assert reports == [added.reload]
            assert {s.name: (s.state, s.config_problem) for s in kernel.extensions.mcp_status()} == \
                {"t": ("connected", None), "u": ("connected", None)}

            # half a file (an editor's save seen midway): nothing stops, every server says why
            _write(path, '{"servers": {"t": ')
            broken = await tick()
            assert broken.edited and broken.reload.in_words() == "no change"
            assert len(broken.reload.problems) == 1 and "is not valid JSON" in broken.reload.problems[0]
            status = {s.name: s for s in kernel.extensions.mcp_status()}
            assert {n: s.state for n, s in status.items()} == {"t": "connected", "u": "connected"}
            for s in status.values():
                assert s.config_problem is not None and "is not valid JSON" in s.config_problem
                assert s.config_problem.endswith("running as before the edit")
            assert "mcp__u__echo" in {t.name for t in kernel.tools()}

            # a bad field in t and u taken out: u stops, t runs on as it was (its lease kept), and says why
            _write(path, json.dumps({"servers": {"t": _entry(timeout_s="soon")}}))
            bad_field = await tick()
            assert (bad_field.reload.stopped, bad_field.reload.restarted, bad_field.reload.started) == (("u",), (), ())
            assert len(bad_field.reload.problems) == 1 and "timeout_s must be a number" in bad_field.reload.problems[0]
            [t] = kernel.extensions.mcp_status()
            assert t.state == "connected" and t.config_problem == bad_field.reload.problems[0]
            assert on_echo.id in {lease.id for lease in kernel.leases.list(agent.id)}
            assert not any(name.startswith("mcp__u__") for name in (tool.name for tool in kernel.tools()))

            # fixed: t takes the file's entry again (a new timeout: restarted), the reason is gone
            _write(path, json.dumps({"servers": {"t": _entry(timeout_s=20)}}))
            fixed = await tick()
            assert fixed.reload.restarted == ("t",) and fixed.reload.problems == ()
            assert [(s.name, s.state, s.config_problem) for s in kernel.extensions.mcp_status()] == [("t", "connected", None)]
            assert on_echo.id in {lease.id for lease in kernel.leases.list(agent.id)}  # same tools: lease kept

            # a save through Settings (mcp_reload) is not read a second time by the watch
            store = McpStore(home, SecretStore(SettingsStore(home), use_keyring=False))
            store.remove("t")
            asked = await kernel.extensions.mcp_reload()
            assert asked.stopped == ("t",) and not heard.get_nowait().edited
            assert not kernel.extensions._file.changed()  # type: ignore[union-attr]
            assert len(reports) == 4

            # a save whose own reload comes after the watch already read that version: told what that reading
            # did (Settings would otherwise say "no change" for the server it just added), and told it once
            _write(path, json.dumps({"servers": {"t": _entry()}}))
            watched = await tick()
            assert watched.edited and watched.reload.started == ("t",)
            asked = await kernel.extensions.mcp_reload()
            assert asked.started == ("t",) and asked.problems == () and heard.get_nowait().reload == asked
            assert (await kernel.extensions.mcp_reload()).in_words() == "no change"
            heard.get_nowait()
            _write(path, json.dumps({"servers": {}}))  # another version: a reload of it says what it did itself
            assert (await kernel.extensions.mcp_reload()).stopped == ("t",)
        finally:
            await kernel.aclose()
            ledger.close()

    asyncio.run(asyncio.wait_for(main(), timeout=150))
