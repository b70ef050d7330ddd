"""The Ask window's ``@`` picker and ``/server:prompt`` commands on a desktop attached to a real kernel process
whose mcp.json lists the resource server (tests/extensions/mcp_resource_server.py): a resource chosen with the
keyboard goes with the next message as untrusted context (the agent tainted); a prompt's name and argument
values are offered as they are typed; a missing argument is said in the window and the line stays."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Iterator

import pytest
import qasync
from PySide6.QtCore import Qt

from kernel.extensions.mcp_config import McpServerConfig, McpStore
from kernel.providers.scripted import reply
from tests.extensions.test_mcp_resources import RESOURCE_SERVER
from tests.service.attached import WAIT_MS

from .conftest import Desk, _attached_desk


@pytest.fixture
def mcp_desk(tmp_path: Path, qloop: qasync.QEventLoop, qtbot) -> Iterator[Desk]:
    McpStore(tmp_path / "home").add(McpServerConfig("r", command=sys.executable, args=(str(RESOURCE_SERVER),),
                                                    timeout_s=30))
    ws = tmp_path / "ws"
    ws.mkdir()
    for desk in _attached_desk(tmp_path, ws, qtbot):
        ready = asyncio.ensure_future(desk.kernel.extensions.mcp_reload())  # the kernel's own start of mcp.json
        qtbot.waitUntil(ready.done, timeout=WAIT_MS)
        assert ready.result().problems == ()
        yield desk


def _last_message(desk: Desk) -> str:
    assert desk.server is not None
    content = desk.server.srv.requests[-1].body["messages"][-1]["content"]
    return content if isinstance(content, str) else "\n".join(str(b.get("text", "")) for b in content)


def test_at_attaches_a_resource_and_a_slash_command_sends_a_prompt_with_completion(mcp_desk: Desk, qtbot) -> None:
    desk = mcp_desk
    window = desk.open("reader")
    box, choices = window.input, window.mcp.choices

    # @ lists the servers' resources; Enter attaches the one highlighted, and the @ goes
    qtbot.keyClicks(box, "@")
    qtbot.waitUntil(choices.isVisible, timeout=WAIT_MS)
    rows = [choices.item(i).text() for i in range(choices.count())]
    assert any("note://today" in r and "(r)" in r for r in rows), rows
    while "note://today" not in choices.currentItem().text():
        qtbot.keyClick(box, Qt.Key.Key_Down)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(window.mcp.attached), timeout=WAIT_MS)
    assert box.toPlainText() == "" and window.mcp.attached_label.isVisible()
    assert "note://today" in window.mcp.attached_label.text() and "kept current" in window.mcp.attached_label.text()

    desk.provider_of(window).script(reply("Plants, then."))
    qtbot.keyClicks(box, "what is on today?")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    desk.until_state(window, "idle")
    sent = _last_message(desk)
    assert sent.startswith("what is on today?")
    assert '<untrusted source="MCP server r, resource note://today"' in sent and "water the plants" in sent
    assert not window.mcp.attached_label.isVisible()
    qtbot.waitUntil(window.taint_notice.isVisible, timeout=WAIT_MS)

    # a prompt missing its required argument: said in the window, the line kept to fix
    box.setPlainText("/r:review tone=stern")
    qtbot.waitUntil(lambda: not choices.isVisible(), timeout=WAIT_MS)
    window.send()
    qtbot.waitUntil(lambda: "needs path=" in window.status_label.text(), timeout=WAIT_MS)
    assert box.toPlainText() == "/r:review tone=stern"

    # typed from scratch: the prompt's name, then the values the server suggests for path
    box.clear()
    qtbot.keyClicks(box, "/r:re")
    qtbot.waitUntil(lambda: choices.isVisible() and "/r:review path=" in choices.item(0).text(), timeout=WAIT_MS)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert box.toPlainText() == "/r:review "
    qtbot.keyClicks(box, "path=n")
    qtbot.waitUntil(lambda: choices.isVisible() and choices.count() == 2, timeout=WAIT_MS)
    assert [choices.item(i).text() for i in range(2)] == ["notes.md", "news.md"]
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert box.toPlainText() == "/r:review path=notes.md "
    qtbot.waitUntil(lambda: not choices.isVisible(), timeout=WAIT_MS)
    desk.provider_of(window).script(reply("Reviewed."))
    assert desk.server is not None
    asked = len(desk.server.srv.requests)
    qtbot.keyClick(box, Qt.Key.Key_Return)  # the kernel gets the prompt, then the message goes
    qtbot.waitUntil(lambda: len(desk.server.srv.requests) > asked, timeout=WAIT_MS)
    desk.until_state(window, "idle")
    sent = _last_message(desk)
    assert '<untrusted source="MCP server r, prompt review"' in sent and "Please review notes.md" in sent
