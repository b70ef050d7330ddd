"""Settings → MCP servers on a desktop attached to a real kernel process: each server's state as the
kernel says it (connected with its tool count, failed with the reason), and a change saved on the
page applied in the running kernel at once. pytest-qt over ``attach_desktop``; the stdio server is
tests/extensions/mcp_test_server.py, started by the kernel process."""

from __future__ import annotations

import asyncio
from typing import Callable

import pytest
import shiboken6
from PySide6.QtCore import Qt

from kernel.extensions.mcp_config import McpServerConfig, McpStore
from kernel.config.secrets import usable_keyring
from tests.extensions.conftest import SERVER
from tests.fakes import FakeProviderServer
from tests.service.conftest import KernelProcess, clean_env
from tests.extensions.mcp_zygote import server_command


@pytest.fixture
def attached(qtbot, qloop, agentdesk_home, monkeypatch):
    """The desktop attached to a kernel process whose mcp.json lists the test server ``t``."""
    from desktop.app import attach_desktop

    monkeypatch.setenv("AGENTDESK_KEYRING", "off")  # a test never writes a real keyring
    usable_keyring.cache_clear()
    command, args = server_command(SERVER)
    McpStore(agentdesk_home).add(McpServerConfig("t", command=command, args=args, timeout_s=30))
    with FakeProviderServer() as srv:
        env = clean_env(agentdesk_home, {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url,
                                         "AGENTDESK_KEYRING": "off"})
        proc = KernelProcess(agentdesk_home, env).start()
        try:
            task = asyncio.ensure_future(attach_desktop(agentdesk_home, grant_delay_ms=0))
            qtbot.waitUntil(task.done, timeout=30_000)
            desk = task.result()
            ready = asyncio.ensure_future(desk.kernel.extensions.mcp_reload())  # the kernel's own start of mcp.json is done
            qtbot.waitUntil(ready.done, timeout=60_000)
            assert ready.result().problems == ()
            yield desk
            window = desk.window
            window.close()
            window.deleteLater()  # its status line asks the kernel on repaint: gone before the kernel is
            qtbot.waitUntil(lambda: not shiboken6.isValid(window), timeout=10_000)
            closing = asyncio.ensure_future(desk.kernel.aclose())
            qtbot.waitUntil(closing.done, timeout=30_000)
        finally:
            proc.stop()
    usable_keyring.cache_clear()


def _about(verb: str, name: str) -> Callable[[object], bool]:
    """The page's ``applied`` word saying ``verb`` (started, stopped) names exactly ``name``."""
    return lambda reload: getattr(reload, verb, None) == (name,)


def test_the_mcp_page_shows_the_kernel_services_word_and_applies_changes_at_once(attached, qtbot, tmp_path):
    attached.window.settings_action.trigger()
    dialog = attached.extras["settings_dialog"]
    page = dialog.open_page["mcp"]().page
    [t] = attached.kernel.extensions.mcp_status()
    state = page.table.item(0, 3).text()
    assert page.table.item(0, 0).text() == "t" and state == f"connected · {len(t.tools)} tools" and len(t.tools) > 5
    assert "Changes apply at once" in page.note.text()

    # a server that cannot start: saved with the keyboard, applied, shown failed with the reason
    page.name.setFocus()
    qtbot.keyClicks(page.name, "gone")
    qtbot.keyClicks(page.target, str(tmp_path / "no-such-server"))
    page.timeout.setText("10")
    # the kernel's word comes twice when its watcher reads the save before the page's request does (the edit
    # event and the reply, in either order, saying the same): the waits are for the word about this change
    with qtbot.waitSignal(page.applied, timeout=60_000, check_params_cb=_about("started", "gone")) as applied:
        qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    assert applied.args[0].problems
    rows = {page.table.item(r, 0).text(): page.table.item(r, 3) for r in range(page.table.rowCount())}
    assert rows["gone"].text().startswith("failed · 0 tools · ") and "error:" in rows["gone"].toolTip()
    assert "started gone" in page.note.text() and page.problem.isVisible()

    # removed: stopped in the kernel, gone from the table
    with qtbot.waitSignal(page.applied, timeout=60_000, check_params_cb=_about("stopped", "gone")):
        assert page.remove()
    assert [s.name for s in attached.kernel.extensions.mcp_status()] == ["t"] and page.table.rowCount() == 1
    dialog.reject()


def test_a_hand_edit_of_mcp_json_shows_on_the_open_page(attached, qtbot, agentdesk_home):
    import json

    attached.window.settings_action.trigger()
    dialog = attached.extras["settings_dialog"]
    opened = dialog.open_page["mcp"]()
    page = opened.page
    path = agentdesk_home / "mcp.json"
    entry = json.loads(path.read_text())["servers"]["t"]

    def edit(servers: dict) -> None:  # as an editor saves: a new file renamed over the old one
        tmp = path.with_name("mcp.json.swp")
        tmp.write_text(json.dumps({"servers": servers}))
        tmp.replace(path)

    # a bad field: t keeps running as it was, and the page says why
    with qtbot.waitSignal(page.applied, timeout=60_000) as applied:
        edit({"t": {**entry, "timeout_s": "soon"}})
    assert applied.args[0].in_words() == "no change" and "timeout_s must be a number" in applied.args[0].problems[0]
    assert "mcp.json was edited" in page.note.text()
    row = page.table.item(0, 3)
    assert page.table.item(0, 0).text() == "t" and row.text().startswith("connected · ")
    assert row.text().endswith(" · as before the edit") and "mcp.json: " in row.toolTip()
    assert page.problem.isVisible() and "timeout_s must be a number" in page.problem.text()

    # fixed, and a second server added by hand: started, shown
    with qtbot.waitSignal(page.applied, timeout=90_000) as applied:
        edit({"t": entry, "u": entry})
    assert applied.args[0].started == ("u",)
    rows = {page.table.item(r, 0).text(): page.table.item(r, 3).text() for r in range(page.table.rowCount())}
    assert set(rows) == {"t", "u"} and all(text.startswith("connected · ") and "before the edit" not in text
                                           for text in rows.values())
    assert not page.problem.isVisible()
    opened.reject()
    dialog.reject()
