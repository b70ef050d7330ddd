"""The Inbox's outward calls whose outcome is unknown, on a real kernel and ledger: listed with the exact
message, counted in the status line, "Check again" answers in words, and "It was not sent" records the
user's word (nothing retried) and clears it."""

from __future__ import annotations

import pytest

from PySide6.QtCore import Qt

from ledger import USER
from tests.mail.test_unknown_outward import seed_unknown


@pytest.mark.in_process  # seeds the ledger directly
def test_unknown_outward_calls_in_the_inbox_and_the_status_line(main, qtbot):
    u = seed_unknown(main.ledger, "k-desk", "Quarterly numbers")
    main.window._update_inbox()
    window = main.window.open_automations()
    panel = window.outward
    assert panel.isVisibleTo(window) and panel.table.rowCount() == 1
    assert f"#{u.seq} mail_send by a-1" == panel.table.item(0, 1).text()
    assert "Subject: Quarterly numbers" in panel.message.toPlainText()
    assert f"Message-ID: {u.target}" in panel.message.toPlainText()
    assert main.window.inbox_label.text() == "Inbox: 1 item" and main.window.inbox_label.isVisibleTo(main.window)
    panel.buttons["recheck"].click()  # this kernel has no mail account: said in words, nothing recorded
    main.until(lambda: panel.pending is None and "no account set up" in panel.status.text())
    assert panel.table.rowCount() == 1
    button = panel.buttons["not_sent"]
    assert button.focusPolicy() & Qt.FocusPolicy.TabFocus and "n&ot" in button.text()  # Alt+O (Alt+N is New…)
    button.setFocus()
    qtbot.keyClick(button, Qt.Key.Key_Space)  # "It was not sent", from the keyboard
    main.until(lambda: panel.table.rowCount() == 0)
    assert "was not sent" in panel.status.text()
    [said] = [o for o in main.ledger.page(kind="outcome") if o.actor == USER]
    assert said.status == "failed" and said.cause == u.seq
    main.until(lambda: not main.window.inbox_label.isVisibleTo(main.window))
