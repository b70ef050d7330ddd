"""Secrets never reach the record: canaries in every text field of every entry kind are redacted
before the row is written (the raw database never holds them), the entry counts them, hashes and UUIDs
are left alone, and file contents keep their exact bytes."""

from __future__ import annotations

import dataclasses
import sqlite3
import typing
from pathlib import Path
from typing import Any

import pytest

from kernel.redaction import Redactor, SecretRegistry
from ledger import Ledger
from ledger.entries import COLUMN_FIELDS, ENTRY_TYPES, Entry, body_fields

HELD = "held-canary-8f3KqPz1vW"  # a value the kernel holds (a key from Settings, say)
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AWS = "AKIAZ3MQ7YB4TX2LPQ5W"
SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
URL_PASSWORD = "hunter2pass"
CANARIES = {
    HELD: "held-secret", GITHUB: "github-pat", AWS: "aws-access-token", SLACK: "slack-bot-token",
    URL_PASSWORD: "url-password",
}
TEXT = (f"config: {HELD} and push with {GITHUB}; aws {AWS}; slack {SLACK}; "
        f"db postgres://admin:{URL_PASSWORD}@db.example.com:5432/app")
NOT_SECRETS = ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
               "123e4567-e89b-12d3-a456-426614174000", "0123456789abcdef0123456789abcdef01234567")


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor(SecretRegistry([("test", HELD)]))


def sample(cls: type[Entry]) -> Entry:
    """An entry of ``cls`` with the canary text in every text-like body field."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {"actor": "a1"}
    for f in dataclasses.fields(cls):
        if f.name in ("actor", "seq", "ts", "redacted"):
            continue
        hint = str(hints[f.name])
        textual = f.name not in COLUMN_FIELDS and ("str" in hint or "Mapping" in hint or "Any" in hint)
        if textual and "Mapping" in hint:
            values[f.name] = {"text": TEXT, "nested": [TEXT, {"k": TEXT}]}
        elif textual and "tuple" in hint:
            values[f.name] = (TEXT,)
        elif textual:
            values[f.name] = TEXT
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            values[f.name] = _plain(hint, f.name)
    return cls(**values)


def _plain(hint: str, name: str) -> Any:
    if name in ("before", "after"):
        return None
    if "float" in hint:
        return 1.0
    if "int" in hint:
        return 1
    if "str" in hint:
        return "x"
    if "tuple" in hint:
        return ()
    return None


def raw_rows(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return "\n".join(str(tuple(row)) for row in db.execute("SELECT * FROM entries"))


@pytest.mark.parametrize("kind", sorted(ENTRY_TYPES))
def test_every_kind_is_redacted_before_it_is_written(tmp_path, redactor, kind):
    cls = ENTRY_TYPES[kind]
    entry = sample(cls)
    textual = [n for n in body_fields(cls) if n != "redacted" and TEXT in repr(getattr(entry, n))]
    with Ledger(tmp_path / "l.db", redactor=redactor) as ledger:
        stored = ledger.append(entry)
        read = ledger.get(stored.seq)
    raw = raw_rows(tmp_path / "l.db")
    for canary, rule in CANARIES.items():
        assert canary not in raw
        assert canary not in repr(read)
        if textual:
            assert f"[REDACTED:{rule}]" in raw
    per_text = len(CANARIES)
    occurrences = sum(repr(getattr(entry, n)).count(TEXT) for n in textual)
    assert stored.redacted == read.redacted == per_text * occurrences
    if textual:
        assert read.to_json()["redacted"] == stored.redacted
    else:
        assert "redacted" not in read.to_json()


def test_a_kind_without_text_is_stored_as_before(tmp_path, redactor):
    with Ledger(tmp_path / "plain.db") as plain, Ledger(tmp_path / "red.db", redactor=redactor) as red:
        for ledger in (plain, red):
            ledger.append(ENTRY_TYPES["lease.grant"](actor="user", subject="a1", scope="fs", until=2.0,
                                                     duration_s=1.0, ts=1.0))
    assert raw_rows(tmp_path / "plain.db") == raw_rows(tmp_path / "red.db")


def test_hashes_and_uuids_are_not_secrets(redactor):
    text = " ".join(f'{{"sha": "{v}", "token_id": "{v}", "before": "{v}", "key": "{v}"}}' for v in NOT_SECRETS)
    assert redactor.redact(text) == (text, 0)


def test_file_contents_keep_their_exact_bytes(tmp_path, redactor):
    """Undo needs the exact bytes: blobs are never redacted, and undo restores the secret."""
    target = tmp_path / "ws" / "config.env"
    target.parent.mkdir()
    target.write_text("OLD=1\n")
    secret_bytes = f"TOKEN={GITHUB}\n".encode()
    with Ledger(tmp_path / "l.db", redactor=redactor) as ledger:
        change = ledger.write_file(actor="a1", path=target, content=secret_bytes, cause=None)
        assert ledger.blob(change.after) == secret_bytes
        ledger.write_file(actor="a1", path=target, content=b"replaced later\n", cause=None)
        ledger.undo(change.seq)  # reverses the later write: the secret comes back byte for byte
        assert target.read_bytes() == secret_bytes


def test_secrets_added_later_are_redacted_from_then_on(tmp_path):
    held = SecretRegistry()
    late = "late-added-secret-XYZ123"
    with Ledger(tmp_path / "l.db", redactor=Redactor(held)) as ledger:
        first = ledger.append(ENTRY_TYPES["agent.kill"](actor="user", subject="a1", reason=f"r {late}"))
        held.add(late, "mail account")
        second = ledger.append(ENTRY_TYPES["agent.kill"](actor="user", subject="a1", reason=f"r {late}"))
    assert first.redacted == 0 and second.redacted == 1
    assert second.reason == "r [REDACTED:held-secret]"


def test_short_values_are_not_held():
    held = SecretRegistry()
    assert not held.add("abc") and not held.add("") and not held.add(None)
    assert held.add("long-enough-1") and len(held) == 1


def test_environment_secrets_are_held_by_name():
    held = SecretRegistry()
    held.add_environment({"GITHUB_TOKEN": "tok-0123456789", "MY_API_KEY": "key-0123456789",
                          "DB_PASSWORD": "pw-0123456789", "HOME": "/home/someone-long", "PATH": "/usr/bin:/bin",
                          "DEPLOY_KEY": "production", "SSH_KEY": "/home/ada/.ssh/id_ed25519"})
    assert "tok-0123456789" in held and "key-0123456789" in held and "pw-0123456789" in held
    assert len(held) == 3  # not HOME or PATH (names), not a plain word or a path (values)


def test_a_url_password_is_taken_out_but_the_url_kept(redactor):
    text, n = redactor.redact("clone https://bob:s3cr3t-pw@git.example.com/repo.git and http://example.com:8080/x@y")
    assert n == 1
    assert text == "clone https://bob:[REDACTED:url-password]@git.example.com/repo.git and http://example.com:8080/x@y"


URL_CASES = [
    "https://bob:pw-1@h.example/x", "git+ssh://u:p@h", "1abc://u:p@h", "://u:p@h", "x1://u:p", "http://u@h",
    "a://b:c@", "see http://a:b@c and ftp://d:e@f, then ://g:h@i", "hTTp://Ünï:cödé@h", "s3://:p@h", "http://u:@h",
    "http://u:p/q@h", "http://u:p p@h", "a.b-c+d://u:p@h" * 3, "http://u:p@h://v:q@k", "naïve://u:p@h",
    "https://example.com:8080/x@y", "'http://u:\"p\"@h'", "\u00e9://u:p@h", "x" * 50 + "://u:p@h",
]


@pytest.mark.parametrize("text", URL_CASES)
def test_the_url_password_finder_agrees_with_its_regex(text):
    """Found from each "://" for speed; the spans must be exactly the regex's (run under RE2 as before)."""
    from kernel.redaction.patterns import _URL_PASSWORD, URL_PASSWORD_RULE, Rule, url_password_rule

    regex = Rule(id=URL_PASSWORD_RULE, regex=_URL_PASSWORD, keywords=("://",))
    assert list(url_password_rule().find(text)) == list(regex.find(text))


def test_the_keyword_set_runs_the_rules_a_search_per_keyword_would(redactor):
    """One RE2 set pass picks the same rules as a substring search per keyword, on text with and without."""
    rules = redactor.rules
    for text in ("", "nothing here at all", f"token {GITHUB}", "AKIA and xoxb- and TOKEN_ID and sk-ant- and ://",
                 "Ünïcode with a KEY in it", "aws_secret and heroku and private key and " * 3):
        low = text.lower()
        expected = [r.id for r in rules.rules if not r.keywords or any(k in low for k in r.keywords)]
        assert [r.id for r in rules.active(text)] == expected, text


def test_very_short_text_is_not_scanned(redactor):
    assert redactor.rules.find("a://b:c@") and redactor.rules.find("://b:c@") == []
    assert redactor.redact("tok") == ("tok", 0)
