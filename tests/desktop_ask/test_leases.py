"""The lease dialog end to end: grant, deny, Esc, expiry, kill while open, other windows unaffected."""

from __future__ import annotations

import pytest

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.theme import ERROR, shade
from kernel.core.events import LeaseGranted, LeaseRequestResolved
from kernel.providers.scripted import reply
from ledger import Expired
from tests.service.attached import WAIT_MS

TODO = "- [x] call the bank\n- [ ] water the plants\n"


def ask_to_write(desk, qtbot, name="scribe", path="notes/todo.md", content=TODO, then="Done."):
    win = desk.open(name)
    steps = [reply("I'll write the list.", tools=(("fs_write", {"path": path, "content": content}),))]
    if then is not None:
        steps.append(reply(then))
    desk.provider_of(win).script(*steps)
    qtbot.keyClicks(win.input, "tidy the notes")
    qtbot.keyClick(win.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: desk.dialogs.request_for(win.agent_id) is not None, timeout=WAIT_MS)
    return win, desk.dialogs.bring_up(win.agent_id)


def test_grant_five_minutes_writes_the_file_and_the_card_expands_to_its_diff(desk, qtbot):
    (desk.workspace / "notes").mkdir()
    (desk.workspace / "notes" / "todo.md").write_text("- [ ] call the bank\n")
    win, dialog = ask_to_write(desk, qtbot)

    assert dialog.parent() is win
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    assert dialog.windowTitle() == f"scribe ({win.agent_id}) asks for a lease"
    assert dialog.scope_field.text() == "fs.write"
    assert not hasattr(dialog.scope_field, "setReadOnly")  # a label: nothing to edit
    assert dialog.action_label.text() == "to call fs_write on notes/todo.md"
    assert "-- [ ] call the bank" in dialog.diff_view.diff and "+- [x] call the bank" in dialog.diff_view.diff
    labels = [b.text() for b in dialog.grant_buttons.values()]
    assert labels == ["5 minutes", "15 minutes (default)", "1 hour", "Working day"]
    assert dialog.default_button.text() == "15 minutes (default)" and dialog.default_button.font().bold()
    assert not any(b.isDefault() or b.autoDefault() for b in (*dialog.grant_buttons.values(), dialog.deny_button))
    assert win.state_badge.state == "waiting" and not win.send_button.isEnabled()

    granted_from = desk.kernel.now()
    qtbot.mouseClick(dialog.grant_buttons[300.0], Qt.MouseButton.LeftButton)
    desk.until_state(win, "idle")

    assert (desk.workspace / "notes" / "todo.md").read_text() == TODO
    lease = desk.of(LeaseGranted)[0].lease
    assert lease.scope == "fs.write" and granted_from + 300 <= lease.until <= desk.kernel.now() + 300
    card = next(iter(win.transcript.cards.values()))
    assert card.outcome.kind == "ok" and card.status_label.text().startswith("\u2713")
    assert card.counts_label.text() == "+2 \u22121"
    assert not card.expanded
    qtbot.mouseClick(card.details_button, Qt.MouseButton.LeftButton)
    assert card.expanded and card.details_button.text() == "\u25be details"
    assert "+- [ ] water the plants" in card.diffs[0]
    assert desk.dialogs.open == {}


def test_deny_makes_an_error_card_with_the_reason(desk, qtbot):
    win, dialog = ask_to_write(desk, qtbot, then="I could not write it.")
    qtbot.mouseClick(dialog.deny_button, Qt.MouseButton.LeftButton)
    desk.until_state(win, "idle")
    card = next(iter(win.transcript.cards.values()))
    assert card.outcome.kind == "denied"
    assert card.reason_label.text() == "permission denied: the user did not grant fs.write"
    assert card.reason_label.isVisibleTo(card)
    assert shade(ERROR, card.palette()) in card.styleSheet()
    assert not (desk.workspace / "notes" / "todo.md").exists()
    assert desk.of(LeaseGranted) == []


def test_escape_is_deny(desk, qtbot):
    win, dialog = ask_to_write(desk, qtbot, then="Understood.")
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    desk.until_state(win, "idle")
    assert [e.outcome for e in desk.of(LeaseRequestResolved)] == ["denied"]


@pytest.mark.in_process  # moves the kernel clock
def test_countdown_and_expiry_close_the_dialog_without_a_grant(desk, qtbot):
    win, dialog = ask_to_write(desk, qtbot, then="Nobody answered.")
    assert dialog.countdown_label.text() == "This request expires in 2:00 if unanswered."
    desk.clock.advance(18)
    with qtbot.waitSignal(desk.bridge.tick, timeout=WAIT_MS):
        pass
    assert dialog.countdown_label.text() == "This request expires in 1:42 if unanswered."

    desk.clock.advance(200)
    qtbot.waitUntil(lambda: desk.dialogs.dialog_for(win.agent_id) is None, timeout=WAIT_MS)
    desk.until_state(win, "idle")
    assert not dialog.isVisible() if _alive(dialog) else True
    card = next(iter(win.transcript.cards.values()))
    assert card.outcome.kind == "expired" and "expired" in card.reason_label.text()
    assert [e.outcome for e in desk.of(LeaseRequestResolved)] == ["expired"]
    assert desk.of(LeaseGranted) == []
    assert any(isinstance(e, Expired) for e in desk.ledger.page())


def test_kill_while_the_dialog_is_open_closes_it_and_grants_nothing(desk, qtbot):
    win, dialog = ask_to_write(desk, qtbot, then=None)
    request_id = dialog.request.id
    qtbot.mouseClick(win.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: desk.dialogs.dialog_for(win.agent_id) is None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: bool(desk.of(LeaseRequestResolved)), timeout=WAIT_MS)
    assert win.info.state == "killed" and win.state_badge.state == "killed"
    assert not win.input.isEnabled() and not win.stop_button.isEnabled()
    assert desk.of(LeaseGranted) == [] and desk.kernel.leases.list(win.agent_id) == []
    assert desk.kernel.leases.resolve(request_id, __import__("kernel.leases.approver").leases.approver.Grant(300)) is False
    assert not (desk.workspace / "notes" / "todo.md").exists()


def test_ctrl_period_in_the_dialog_asks_then_stops_the_agent(desk, qtbot):
    from PySide6.QtWidgets import QMessageBox

    win, dialog = ask_to_write(desk, qtbot, then=None)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=WAIT_MS)
    qtbot.keyClick(dialog, Qt.Key.Key_Period, Qt.KeyboardModifier.ControlModifier)
    box = dialog.findChild(QMessageBox)
    assert box is not None and f"scribe ({win.agent_id})" in box.text()
    next(b for b in box.buttons() if b.text() == "Stop scribe").click()
    desk.until_state(win, "killed")
    qtbot.waitUntil(lambda: desk.dialogs.dialog_for(win.agent_id) is None, timeout=WAIT_MS)
    assert desk.of(LeaseGranted) == []


@pytest.mark.in_process  # two agents' replies scripted out of turn: the fake server has one queue
def test_a_dialog_is_modal_to_its_window_only(desk, qtbot):
    win_a, dialog = ask_to_write(desk, qtbot, name="scribe", then="ok")
    win_b = desk.open("tester")
    desk.provider_of(win_b).script(reply("B answers while A waits."))
    assert dialog.windowModality() != Qt.WindowModality.ApplicationModal
    assert win_b.input.isEnabled()
    win_b.input.setPlainText("go")
    qtbot.mouseClick(win_b.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win_b.info.state == "idle" and win_b.transcript.current is None, timeout=WAIT_MS)
    assert "B answers while A waits." in win_b.transcript.blocks[-1].raw
    assert desk.dialogs.dialog_for(win_a.agent_id) is dialog and win_a.info.state == "waiting"
    qtbot.mouseClick(dialog.grant_buttons[300.0], Qt.MouseButton.LeftButton)
    desk.until_state(win_a, "idle")
    assert QApplication.activeModalWidget() is None


def _alive(widget) -> bool:
    try:
        widget.isVisible()
        return True
    except RuntimeError:
        return False


def test_requests_open_before_the_dialogs_attach_are_announced_and_answerable(desk, qtbot):
    from desktop.lease_dialog import LeaseDialogs

    win, dialog = ask_to_write(desk, qtbot, then="ok")
    late = LeaseDialogs(desk.kernel, desk.bridge, lambda agent_id, _activate: desk.windows.get(agent_id),
                        grant_delay_ms=0)
    assert late.dialog_for(win.agent_id) is None  # announced, not shown
    second = late.bring_up(win.agent_id)
    assert second is not None and second.request == dialog.request
    granted_from = desk.kernel.now()
    qtbot.mouseClick(second.grant_buttons[3600.0], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: desk.dialogs.dialog_for(win.agent_id) is None, timeout=WAIT_MS)  # the other one closes
    desk.until_state(win, "idle")
    assert granted_from + 3600 <= desk.of(LeaseGranted)[0].lease.until <= desk.kernel.now() + 3600
