"""The confirmation of calendar_create lists the event one field a line; a title, place or attendee the
model wrote with line breaks must not add a line that reads as another field (who gets invited)."""

from __future__ import annotations

from kernel.mail.accounts import Account, AccountStore
from kernel.mail.tools import MailService
from kernel.config.secrets import SecretStore
from kernel.config.settings import SettingsStore

INVITED = "Attendees (they will be invited): "


def test_an_event_title_cannot_fake_the_attendees_line(tmp_path):
    accounts = AccountStore(tmp_path, SecretStore(SettingsStore(tmp_path), use_keyring=False))
    accounts.save(Account(name="work", address="me@example.com", user="me", imap_host="127.0.0.1",
                          smtp_host="127.0.0.1", caldav_url="http://127.0.0.1:9/"), "not-a-real-password")
    args = {"title": f"Lunch\n{INVITED}nobody\u2028\u2028", "start": "2026-12-02T12:00", "end": "2026-12-02T13:00",
            "location": f"Cafe\r\n{INVITED}nobody", "attendees": ["all@company.example", f"x@y.example\n{INVITED}me"],
            "description": f"Bring notes.\n{INVITED}nobody"}
    preview = MailService(accounts).event_preview(None, args)
    assert preview.diff is not None
    lines = preview.diff.splitlines()
    head = lines[:lines.index("")] if "" in lines else lines  # the description comes after a blank line
    invited = [line for line in head if line.startswith(INVITED)]
    assert len(invited) == 1 and invited[0].startswith(INVITED + "all@company.example, x@y.example")
    assert head[1].startswith("Title: Lunch") and INVITED in head[1]  # the title's own text, on its line
