"""Settings → Accounts, driven by pytest-qt against the real loopback servers: a wrong password is
one line per server and nothing is saved; the right one saves, password kept out of accounts.json."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from desktop.accounts_dialog import AccountsDialog
from desktop.settings_dialog import SettingsDialog
from kernel.api import AccountStore, SecretStore, Settings
from kernel.config.settings import SettingsStore
from tests.fakes import mail_servers as ms


def _fill(dialog: AccountsDialog, servers, password: str, qtbot) -> None:
    dialog.name.setText("work")
    qtbot.keyClicks(dialog.address, ms.USER)
    qtbot.keyClicks(dialog.password, password)
    dialog.imap_host.setText("127.0.0.1")
    dialog.imap_port.setValue(servers.dovecot.port)
    dialog.imap_tls.setCurrentText("none")
    dialog.smtp_host.setText("127.0.0.1")
    dialog.smtp_port.setValue(servers.smtp.port)
    dialog.smtp_tls.setCurrentText("none")
    dialog.caldav_url.setText(servers.radicale.url)


def test_accounts_page_checks_before_saving(servers, agentdesk_home, qloop, qtbot):
    store = SettingsStore(agentdesk_home)
    settings_dialog = SettingsDialog(store, Settings(workspace=str(agentdesk_home)))
    qtbot.addWidget(settings_dialog)
    dialog = settings_dialog.open_accounts()
    assert isinstance(dialog, AccountsDialog)
    _fill(dialog, servers, "wrong", qtbot)
    qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Save), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.check_task is not None and dialog.check_task.done(), timeout=60_000)
    lines = dialog.status.text().splitlines()
    assert lines[0] == "Not saved:" and [line.split(":")[0] for line in lines[1:]] == ["IMAP", "SMTP", "CalDAV"]
    assert "wrong" not in dialog.status.text() and not (agentdesk_home / "accounts.json").exists()

    dialog.password.clear()
    qtbot.keyClicks(dialog.password, ms.PASSWORD)
    qtbot.keyClick(dialog.password, Qt.Key.Key_Return)  # keyboard only: Enter saves
    qtbot.waitUntil(lambda: "Saved work" in dialog.status.text(), timeout=60_000)
    saved = json.loads((agentdesk_home / "accounts.json").read_text())
    assert saved[0]["imap_port"] == servers.dovecot.port and ms.PASSWORD not in json.dumps(saved)
    accounts = AccountStore(agentdesk_home, SecretStore(store, use_keyring=False))
    assert accounts.credentials("work").password == ms.PASSWORD
    assert dialog.list.count() == 1 and dialog.password.text() == ""
