"""``agentdesk channel`` with no kernel running: channels saved without their tokens, codes approved from the
record, tokens removed with their channel, refusals in one sentence."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from kernel.config.settings import SettingsStore
from ledger import Ledger, PairingGrant, PairingRequest

from .inproc import agentdesk

OFF = {"AGENTDESK_KEYRING": "off"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_telegram_channel_keeps_its_token_out_of_channels_json_and_rm_removes_it(tmp_path: Path):
    home = tmp_path / "home"
    url = f"http://127.0.0.1:{closed_port()}"
    added = agentdesk(["channel", "add", "tg", "--kind", "telegram", "--base-url", url, "--allow", "fs.read=1h"],
                      home, OFF, stdin="123456:SECRET-token-value\n")
    assert added.returncode == 0, added.stderr
    assert "added tg (telegram); not running: could not start" in added.stdout
    saved = (home / "channels.json").read_text()
    assert "SECRET" not in saved and json.loads(saved)[0]["policy"] == [["fs.read", 3600.0]]
    assert SettingsStore(home).keys()["channel:tg"] == "123456:SECRET-token-value"
    listed = agentdesk(["channel", "list"], home, OFF)
    assert listed.stdout.startswith("tg\ttelegram\tstopped") and "SECRET" not in listed.stdout
    assert agentdesk(["channel", "rm", "tg"], home, OFF).stdout == "removed tg\n"
    assert "channel:tg" not in SettingsStore(home).keys()
    assert agentdesk(["channel", "list"], home, OFF).stdout == ""


def test_a_code_on_the_record_is_approved_with_no_kernel_running_and_a_wrong_one_is_refused(tmp_path: Path):
    home = tmp_path / "home"
    assert agentdesk(["channel", "add", "web", "--kind", "webchat", "--listen", "127.0.0.1:0"], home, OFF).returncode == 0
    with Ledger(SettingsStore(home).ledger_path) as ledger:
        ledger.append(PairingRequest(actor="channel:web", channel="web", chat="web-1", chat_kind="dm",
                                     sender="web-1", code="K7MX4PWA", expires=time.time() + 600))
    pending = agentdesk(["channel", "pending"], home, OFF)
    assert pending.stdout.startswith("K7MX4PWA\tweb\tdm\tweb-1")
    wrong = agentdesk(["channel", "approve", "AAAAAAAA"], home, OFF)
    assert wrong.returncode == 1 and "no pending pairing code 'AAAAAAAA'" in wrong.stderr
    done = agentdesk(["channel", "approve", "k7mx-4pwa"], home, OFF)
    assert done.returncode == 0 and done.stdout == "paired web-1 on web (direct messages)\n"
    with Ledger(SettingsStore(home).ledger_path) as ledger:
        [grant] = ledger.scan((PairingGrant.KIND,))
    assert (grant.actor, grant.sender, grant.chat_kind) == ("user", "web-1", "dm")
    assert "paired\tweb\tdm\tweb-1" in agentdesk(["channel", "pending"], home, OFF).stdout
    assert agentdesk(["channel", "revoke", "web", "web-1"], home, OFF).stdout == "revoked\n"
    assert agentdesk(["channel", "revoke", "web", "web-1"], home, OFF).returncode == 1
    bad = agentdesk(["channel", "add", "Bad Name", "--kind", "webchat"], home, OFF)
    assert bad.returncode == 1 and "a channel name is" in bad.stderr


def test_an_open_channel_is_chosen_by_name_with_a_warning_and_listed_as_open(tmp_path: Path):
    home = tmp_path / "home"
    plain = agentdesk(["channel", "add", "web", "--kind", "webchat", "--listen", "127.0.0.1:0"], home, OFF)
    assert plain.returncode == 0 and "OPEN" not in plain.stderr
    opened = agentdesk(["channel", "add", "lobby", "--kind", "webchat", "--listen", "127.0.0.1:0", "--open"], home, OFF)
    assert opened.returncode == 0
    assert opened.stderr.startswith("warning: channel lobby is OPEN: anyone who can write to it reaches an agent")
    assert [c["access"] for c in json.loads((home / "channels.json").read_text())] == ["open", "pairing"]
    listed = agentdesk(["channel", "list"], home, OFF).stdout.splitlines()
    assert "OPEN to anyone (no pairing)" in listed[0] and "OPEN" not in listed[1]
