"""The Automations window on a real kernel: the form restates the schedule live and shows the kernel's
refusal, the list shows words, next run and last outcome, Run now / Pause / Delete, a run opens
read-only, the Inbox count in the status line and adding a refused scope after a confirmation."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from kernel.api import Automation, PolicyItem
from kernel.providers.scripted import reply


def _automation(main, **changes) -> Automation:
    a = Automation(id="", name="Notes digest", objective="Summarise notes/", schedule="0 7 * * 1-5",
                   timezone="Europe/Berlin", workspace=str(main.workspace), provider=main.scripted("scripted-auto")[0],
                   model="test-model", **changes)
    return main.kernel.automations.add(a)


def test_the_form_restates_the_schedule_as_the_user_types_and_saves_through_the_kernel(main, qtbot):
    window = main.window.open_automations()
    assert window.empty.isVisible()
    form = window.new()
    qtbot.keyClicks(form.name, "Digest")
    form.objective.setPlainText("Summarise notes/")
    form.schedule.clear()
    qtbot.keyClicks(form.schedule, "*/30 * * * *")
    assert "less than one hour apart" in form.words.text()
    form.schedule.clear()
    qtbot.keyClicks(form.schedule, "0 7 * * 1-5")
    form.timezone.setCurrentText("Europe/Berlin")
    assert form.words.text() == "every weekday at 07:00 (Europe/Berlin)"
    form.schedule.setText("every 30m")
    form.save()
    assert form.isVisible() and "less than one hour apart" in form.error.text()  # the kernel refused it
    assert main.kernel.automations.list() == []
    form.schedule.setText("every 2h")
    qtbot.keyClick(form, Qt.Key.Key_Return)  # Save is the default button
    main.until(lambda: not form.isVisible())
    [view] = main.kernel.automations.list()
    assert view.automation.name == "Digest" and [p.scope for p in view.automation.policy] == ["fs.read"]
    main.until(lambda: window.list.rowCount() == 1)
    assert window.list.item(0, 1).text() == "every 2 hours"
    assert "(in 2 h)" in window.list.item(0, 2).text() and window.list.item(0, 3).text() == "never run"


def test_the_form_picks_a_timezone_and_an_expiry_in_that_zone(main, qtbot):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from PySide6.QtCore import QDate, QDateTime, QTime

    from desktop.automation_fields import local_zone

    window = main.window.open_automations()
    form = window.new()
    assert form.timezone.currentText() == local_zone() and not form.expires_on.isChecked()  # never, by default
    assert not form.expires.isEnabled()
    assert form.timezone.findText("Europe/Berlin") >= 0 and form.timezone.isEditable()
    form.timezone.completer().setCompletionPrefix("berl")  # searchable: any part of the name
    assert form.timezone.completer().currentCompletion() == "Europe/Berlin"
    form.name.setText("Digest")
    form.objective.setPlainText("Summarise notes/")
    form.schedule.setText("0 7 * * 1-5")
    form.timezone.setCurrentText("Mars/Olympus")
    assert form.words.text() == "'Mars/Olympus' is not a timezone this computer knows (try Europe/Berlin or UTC)."
    form.save()
    assert form.isVisible() and "not a timezone" in form.error.text() and main.kernel.automations.list() == []
    form.timezone.setCurrentText("Asia/Tokyo")
    past = datetime.fromtimestamp(main.kernel.now() - 86400, ZoneInfo("Asia/Tokyo"))
    qtbot.keyClick(form.expires_on, Qt.Key.Key_Space)  # keyboard: tick it, the time becomes editable
    assert form.expires_on.isChecked() and form.expires.isEnabled()
    form.expires.setDateTime(QDateTime(QDate(past.year, past.month, past.day), QTime(9, 0)))
    form.save()
    assert "already past" in form.error.text() and main.kernel.automations.list() == []
    later = datetime.fromtimestamp(main.kernel.now() + 40 * 86400, ZoneInfo("Asia/Tokyo"))
    form.expires.setDateTime(QDateTime(QDate(later.year, later.month, later.day), QTime(18, 30)))
    assert form.words.text().startswith("every weekday at 07:00 (Asia/Tokyo), until ")
    assert form.words.text().endswith(f"{later:%d %b %Y} 18:30 JST")
    form.save()
    main.until(lambda: not form.isVisible())
    [view] = main.kernel.automations.list()
    expected = datetime(later.year, later.month, later.day, 18, 30, tzinfo=ZoneInfo("Asia/Tokyo")).timestamp()
    assert view.automation.timezone == "Asia/Tokyo" and view.automation.expires == expected
    again = window.edit()  # the stored expiry comes back as the same wall time in its zone
    assert again.expires_on.isChecked() and again.expiry() == expected
    again.reject()


def test_run_now_pause_history_run_window_and_the_inbox(main, qtbot):
    _name, provider = main.scripted("scripted-auto")
    a = _automation(main, policy=(PolicyItem("fs.read", 600.0),))
    window = main.window.open_automations()
    assert not main.window.inbox_label.isVisible()
    provider.script(reply(tools=(("fs_write", {"path": "x.md", "content": "x"}),)), reply("Could not write x.md."))
    window.buttons["run"].click()
    main.until(lambda: window.history.rowCount() == 1)
    assert window.history.item(0, 2).text() == "blocked"  # its only action was refused
    assert window.list.item(0, 3).text() == "blocked"
    main.until(lambda: main.window.inbox_label.isVisible())
    assert main.window.inbox_label.text() == "Inbox: 1 item"
    assert "outside the automation's policy" in window.inbox.item(0, 2).text()
    window.history.setCurrentCell(0, 0)
    run = window.open_run()
    assert run is not None and "Could not write x.md." in run.text.toPlainText()
    assert run.text.isReadOnly()
    run.close()
    box = window.add_to_policy()
    assert isinstance(box, QMessageBox) and "fs.write" in box.text()
    box.button(QMessageBox.StandardButton.Yes).click()
    main.until(lambda: not main.window.inbox_label.isVisible())
    assert [p.scope for p in main.kernel.automations.get(a.id).policy] == ["fs.read", "fs.write"]
    window.buttons["pause"].click()
    main.until(lambda: "paused" in window.list.item(0, 2).text())
    assert window.buttons["pause"].text() == "Res&ume"  # Alt+U: Alt+R is Run now
    box = window.delete()
    assert box is not None
    box.button(QMessageBox.StandardButton.Yes).click()
    main.until(lambda: window.empty.isVisible())
    provider.assert_done()


def test_automation_create_shows_the_whole_definition_and_the_user_confirms(main, qtbot):
    agent = main.spawn("helper")
    main.provider(agent).script(
        reply(tools=(("automation_create", {"name": "Digest", "objective": "Summarise notes/",
                                            "schedule": "0 7 * * 1-5", "timezone": "Europe/Berlin",
                                            "policy": [{"scope": "fs.read", "minutes": 30}]}),)),
        reply("Created."))
    main.kernel.leases.grant(agent, "automation.create", 300)  # no lease stands in for the confirmation
    main.kernel.agents.send(agent, "make a weekday digest")
    main.until(lambda: main.desk.lease_dialogs.request_for(agent) is not None)
    dialog = main.desk.lease_dialogs.bring_up(agent)  # the one one-off confirmation, as for any outward call
    assert dialog.request.once and dialog.scope_field.text() == "automation.create"
    shown = dialog.detail_label.text()
    assert "Runs: every weekday at 07:00 (Europe/Berlin)" in shown and "Each run may use: fs.read for 30 min" in shown
    assert "no lease or policy covers it" in dialog.reason_label.text()
    assert [b.text() for b in dialog.grant_buttons.values()] == ["Allow once"]
    assert main.kernel.automations.list() == []
    dialog.grant_buttons[0.0].click()
    main.until(lambda: main.kernel.agents.get(agent).state == "idle")
    [view] = main.kernel.automations.list()
    assert view.automation.name == "Digest"


def test_escape_on_the_confirmation_declines(main, qtbot):
    agent = main.spawn("helper")
    main.provider(agent).script(
        reply(tools=(("automation_create", {"name": "D", "objective": "o", "schedule": "every 1d",
                                            "policy": []}),)),
        reply("OK, not created."))
    main.kernel.agents.send(agent, "go")
    main.until(lambda: main.desk.lease_dialogs.request_for(agent) is not None)
    dialog = main.desk.lease_dialogs.bring_up(agent)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    main.until(lambda: main.kernel.agents.get(agent).state == "idle")
    assert main.kernel.automations.list() == []


def test_the_automations_shortcut_opens_the_window_and_clashes_with_no_other(main, qtbot):
    from desktop.lease_dialog import ANSWER_SHORTCUT

    keys = main.window.automations_action.shortcut().toString()
    assert keys == "Ctrl+Shift+O" and keys != ANSWER_SHORTCUT
    assert keys not in main.window.shortcuts
    main.window.automations_action.trigger()
    main.until(lambda: main.window.automations_window is not None and main.window.automations_window.isVisible())


def test_the_local_zone_comes_from_tz_then_etc_localtime_else_utc(tmp_path):
    from desktop.automation_fields import local_zone

    link = tmp_path / "localtime"
    link.symlink_to("/usr/share/zoneinfo/America/Sao_Paulo")  # need not exist: only its name is read
    assert local_zone({"TZ": "Asia/Tokyo"}, link) == "Asia/Tokyo"
    assert local_zone({"TZ": ":Nowhere/Else"}, link) == "America/Sao_Paulo"
    assert local_zone({}, tmp_path / "missing") == "UTC"
