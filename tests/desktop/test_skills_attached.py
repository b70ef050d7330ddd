"""Settings → Skills on a desktop attached to a real kernel process: the page lists what the kernel
finds for the dialog's workspace (the home's skills and the workspace's own, the folders skipped with
why), enables one with the keyboard at the hash it showed (the kernel pins it), and a skill changed
after it was listed is refused and shown again as it is now. pytest-qt over ``attach_desktop``."""

from __future__ import annotations

import asyncio
import json

import pytest
import shiboken6
from PySide6.QtCore import Qt

from tests.extensions.test_skills import make_skill
from tests.fakes import FakeProviderServer
from tests.service.conftest import KernelProcess, clean_env


@pytest.fixture
def attached(qtbot, qloop, agentdesk_home):
    from desktop.app import attach_desktop

    with FakeProviderServer() as srv:
        env = clean_env(agentdesk_home, {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url,
                                         "AGENTDESK_KEYRING": "off"})
        proc = KernelProcess(agentdesk_home, env).start()
        try:
            task = asyncio.ensure_future(attach_desktop(agentdesk_home, grant_delay_ms=0))
            qtbot.waitUntil(task.done, timeout=30_000)
            desk = task.result()
            yield desk
            window = desk.window
            window.close()
            window.deleteLater()
            qtbot.waitUntil(lambda: not shiboken6.isValid(window), timeout=10_000)
            closing = asyncio.ensure_future(desk.kernel.aclose())
            qtbot.waitUntil(closing.done, timeout=30_000)
        finally:
            proc.stop()


def test_the_skills_page_shows_the_kernels_catalogue_and_enables_through_it(attached, agentdesk_home, tmp_path, qtbot):
    ws = tmp_path / "ws"
    make_skill(agentdesk_home / "skills", "notes", "Keeps notes.", manifest={"scopes": ["fs.read", "fs.write"]})
    local = make_skill(ws / ".agentdesk" / "skills", "local", "The project's own.")
    (agentdesk_home / "skills" / "odd").mkdir()
    (agentdesk_home / "skills" / "odd" / "SKILL.md").write_text("---\nname: Not Valid\ndescription: x\n---\n")

    attached.window.settings_action.trigger()
    dialog = attached.extras["settings_dialog"]
    dialog.workspace.setText(str(ws))
    opened = dialog.open_page["skills"]()
    page = opened.page
    with qtbot.waitSignal(page.loaded, timeout=30_000) as first:
        pass
    catalog = first.args[0]
    assert [(s.name, s.source) for s in catalog.skills] == [("notes", "home"), ("local", "workspace")]
    rows = [[page.table.item(r, c).text() for c in range(4)] for r in range(page.table.rowCount())]
    assert rows == [["notes", "home", "off", "fs.read, fs.write"],
                    ["local", "workspace", "off", "no tools (no manifest.json)"]]
    assert page.skipped.isVisible() and "Skipped odd: SKILL.md needs a name" in page.skipped.text()

    # keyboard only: into the table, down to notes, then Enable; the kernel pins the hash the page showed
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_Home)
    assert page.selected() is not None and page.selected().name == "notes"
    page.enable_button.setFocus()
    with qtbot.waitSignal(page.loaded, timeout=30_000):
        qtbot.keyClick(page.enable_button, Qt.Key.Key_Space)
    assert page.table.item(0, 2).text() == "enabled (untrusted text)"
    pins = json.loads((agentdesk_home / "skills.json").read_text())["enabled"]
    assert pins == {catalog.skills[0].folder: {"sha256": catalog.skills[0].sha256, "mine": False}}

    # the workspace's skill changes after it was listed: enabling it is refused, and the page shows it again
    (local / "SKILL.md").write_text("---\nname: local\ndescription: Something else now.\n---\nRun it.\n")
    page.table.selectRow(1)
    with qtbot.waitSignal(page.loaded, timeout=30_000) as refused:
        page.enable_button.click()
    assert isinstance(refused.args[0], Exception) and "changed since it was listed" in page.skipped.text()
    with qtbot.waitSignal(page.loaded, timeout=30_000) as again:
        pass
    assert [s.description for s in again.args[0].skills] == ["Keeps notes.", "Something else now."]
    assert page.table.item(1, 2).text() == "off" and page.table.item(1, 0).toolTip() == "Something else now."
    assert page.skipped.text().startswith("Not changed: the skill local changed since it was listed")
    assert "Skipped odd" in page.skipped.text()
    assert catalog.skills[1].folder not in json.loads((agentdesk_home / "skills.json").read_text())["enabled"]
    opened.reject()
    dialog.reject()
