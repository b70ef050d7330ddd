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


@pytest.mark.in_process  # seeds the ledger directly; detach/reattach are what the desktop does when the link drops
def test_while_the_kernel_is_detached_the_inbox_buttons_and_the_row_menu_are_off_and_come_back(main, qtbot):
    seed_unknown(main.ledger, "k-detach", "Board minutes")
    a = main.spawn("scribe")
    window = main.window.open_automations()
    panel = window.outward
    view = main.window.process_view
    assert all(b.isEnabled() for b in panel.buttons.values())
    assert any(act.isEnabled() for act in view.build_menu(a).actions() if act.text().startswith("Kill"))

    main.window.detach()
    assert not any(b.isEnabled() for b in panel.buttons.values())
    assert "kernel detached" in panel.status.text()
    panel.settle(False)  # a shortcut that slipped through: nothing recorded
    assert panel.recheck() is None
    assert [o for o in main.ledger.page(kind="outcome") if o.actor == USER] == []
    menu = view.build_menu(a, main.kernel.agents.get(a))  # (the row's last known info; the kernel is not asked)
    actions = [act for act in menu.actions() if not act.isSeparator()]
    assert actions[0].text().startswith("\u26a0 kernel detached")
    assert not any(act.isEnabled() for act in actions)
    assert f"Kill {a} scribe\u2026" in [act.text() for act in actions]
    view.setCurrentIndex(main.window.processes.index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_Delete)  # Delete (kill) from the keyboard: nothing to confirm
    assert view.kill_prompt is None

    main.window.reattach()
    assert all(b.isEnabled() for b in panel.buttons.values()) and "kernel detached" not in panel.status.text()
    menu = view.build_menu(a)
    assert [act.text() for act in menu.actions()][:1] == ["Open window"]
    assert any(act.isEnabled() for act in menu.actions() if act.text().startswith("Kill"))
