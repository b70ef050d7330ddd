"""Settings → MCP servers and Settings → Skills, driven by keyboard and clicks through pytest-qt."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt

from desktop.extension_pages import McpServersPage, SkillsPage
from kernel import McpStore, find_skills
from kernel.config.secrets import SecretStore
from kernel.config.settings import SettingsStore


def test_settings_opens_both_pages(main, qtbot):
    main.window.settings_action.trigger()
    dialog = main.desk.extras["settings_dialog"]
    mcp = dialog.open_page["mcp"]()
    skills = dialog.open_page["skills"]()
    assert mcp.isVisible() and mcp.windowModality() == Qt.WindowModality.WindowModal and mcp.windowTitle() == "MCP servers"
    assert skills.isVisible() and skills.windowTitle() == "Skills"
    mcp.reject()
    skills.reject()


def test_the_mcp_page_adds_replaces_and_removes_with_secrets_kept_apart(tmp_path: Path, qtbot):
    store = McpStore(tmp_path, SecretStore(SettingsStore(tmp_path), use_keyring=False))  # never a real keyring
    page = McpServersPage(store)
    qtbot.addWidget(page)
    page.name.setFocus()
    qtbot.keyClicks(page.name, "git")
    qtbot.keyClicks(page.target, "mcp-server-git --repository '/tmp/my repo'")
    qtbot.keyClicks(page.plain, "LOG=1")
    qtbot.keyClicks(page.secret, "GIT_TOKEN=tok-123")
    assert page.add()
    [server] = store.load().servers
    assert (server.command, server.args, dict(server.env)) == ("mcp-server-git", ("--repository", "/tmp/my repo"),
                                                               {"LOG": "1"})
    assert "tok-123" not in store.path.read_text() and store.secrets("git").env == {"GIT_TOKEN": "tok-123"}
    assert page.table.rowCount() == 1 and page.table.item(0, 2).text() == "GIT_TOKEN"
    assert page.secret.text() == ""  # never shown back
    page.name.setText("Bad Name")
    assert not page.add() and "server 'Bad Name'" in page.problem.text()
    page.table.selectRow(0)  # selecting fills the form (secrets by name only)
    assert page.name.text() == "git" and page.secret.text() == ""
    page.kind.setCurrentIndex(1)
    page.target.setText("https://example.test/mcp")
    page.plain.setPlainText("X-Team=docs")
    assert page.add()
    [server] = store.load().servers
    assert server.url == "https://example.test/mcp" and store.secrets("git").env == {"GIT_TOKEN": "tok-123"}
    assert page.remove() and store.load().servers == () and page.table.rowCount() == 0


def test_the_skills_page_enables_pins_and_shows_changes_and_skips(main, qtbot):
    """The page asks the kernel (here in this process; tests/desktop/test_skills_attached.py: a kernel service)."""
    home = main.desk.store.root
    folder = home / "skills" / "notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Notes.\n---\nBody\n")
    (folder / "manifest.json").write_text(json.dumps({"scopes": ["fs.read"]}))
    broken = home / "skills" / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("no front matter")
    page = SkillsPage(main.kernel, home, None)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):  # asked at once; the table fills when the kernel answers
        pass
    assert page.table.item(0, 2).text() == "off" and page.table.item(0, 3).text() == "fs.read"
    assert "Skipped broken" in page.skipped.text()
    page.table.selectRow(0)
    page.mine.setChecked(True)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.enable_button.click()
    assert page.table.item(0, 2).text() == "enabled (yours)"
    assert [s.skill.name for s in find_skills(home, None).enabled()] == ["notes"]
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Notes, changed.\n---\nBody\n")
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.refresh()
    assert page.table.item(0, 2).text().startswith("changed since enabled")
    page.table.selectRow(0)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.disable_button.click()
    assert page.table.item(0, 2).text() == "off"
