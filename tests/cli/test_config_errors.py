"""Configuration errors through the real ``agentdesk`` entry point: one sentence, exit 2, never a traceback.

Each case ran into a TypeError traceback (exit 1) or was accepted silently before settings.json and
keys.json were checked value by value; ``--grant`` stripped spaces and took scopes no tool uses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.inproc import agentdesk
from tests.cli.test_ask import ROOT, anthropic_env, ask
from tests.fakes import FakeProviderServer, Text, Turn


def one_error_line(done: subprocess.CompletedProcess, expected: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr == expected + "\n"


@pytest.mark.parametrize("settings, sentence", [
    ({"default_lease_s": "x"}, 'default_lease_s must be a number of seconds between 1 and 28800 (found "x")'),
    ({"default_budget": None}, "default_budget must be a whole number of tokens between 1 and 2,000,000,000 "
                               "(found null)"),
    ({"models": "x"}, 'models must be an object mapping provider names to model names (found "x")'),
    ({"shell_timeout_s": -1}, "shell_timeout_s must be a number of seconds between 1 and 28800 (found -1)"),
    ({"max_tokens": "many"}, 'max_tokens must be a whole number of tokens between 1 and 1,000,000 (found "many")'),
    ({"blob_max_bytes": "big"}, "blob_max_bytes must be a whole number of bytes between 1 and "
                                '1,000,000,000,000 (found "big")'),
])
def test_a_bad_settings_value_is_one_line_naming_file_field_and_allowed(agentdesk_home, tmp_path, settings, sentence):
    (agentdesk_home / "settings.json").write_text(json.dumps(settings))
    done = ask(["hi", "--workspace", str(tmp_path)], agentdesk_home, {"ANTHROPIC_API_KEY": "k"})
    one_error_line(done, f"agentdesk ask: settings.json: {sentence}")


@pytest.mark.parametrize("keys, sentence", [
    ([], "keys.json must be a JSON object mapping provider names to API keys (found a list)"),
    ("x", "keys.json must be a JSON object mapping provider names to API keys (found a string)"),
    ({"anthropic": 12345}, "keys.json: anthropic must be an API key string (found a number)"),
    ({"anthropic": {"key": "sk-ant-hidden"}}, "keys.json: anthropic must be an API key string (found an object)"),
])
def test_a_bad_keys_file_is_one_line_that_never_shows_a_key(agentdesk_home, tmp_path, keys, sentence):
    (agentdesk_home / "keys.json").write_text(json.dumps(keys))
    done = ask(["hi", "--workspace", str(tmp_path)], agentdesk_home)
    one_error_line(done, f"agentdesk ask: {sentence}")
    assert "hidden" not in done.stderr


def test_garbage_and_unreadable_settings_are_one_line(agentdesk_home, tmp_path):
    path = agentdesk_home / "settings.json"
    path.write_bytes(b"\x00\x01 not json")
    done = ask(["hi", "--workspace", str(tmp_path)], agentdesk_home, {"ANTHROPIC_API_KEY": "k"})
    one_error_line(done, f"agentdesk ask: settings.json cannot be used: {path} is not valid JSON "
                         "(Expecting value at line 1, column 1)")
    path.unlink()
    path.mkdir()  # the tests run as root, for whom no mode makes a file unreadable
    done = ask(["hi", "--workspace", str(tmp_path)], agentdesk_home, {"ANTHROPIC_API_KEY": "k"})
    one_error_line(done, f"agentdesk ask: settings.json cannot be used: {path} is not a regular file")


def test_ledger_and_undo_do_not_read_settings_so_a_bad_file_cannot_block_recovery(agentdesk_home):
    (agentdesk_home / "settings.json").write_text('{"default_lease_s": "x"}')
    (agentdesk_home / "keys.json").write_text("[]")
    for args, code in ((["ledger"], 0), (["undo", "--after", "0"], 2)):
        done = agentdesk(args, agentdesk_home)
        assert done.returncode == code and "Traceback" not in done.stderr
        assert "no ledger yet" in done.stderr.lower()


@pytest.mark.parametrize("grant", [" fs.write", "fs.write ", "fs.write= 5m", "fs.write=", "FS.write", "fs..write"])
def test_a_grant_with_spaces_or_a_malformed_scope_is_refused(agentdesk_home, tmp_path, grant):
    done = ask(["hi", "--workspace", str(tmp_path), "--grant", grant], agentdesk_home, {"ANTHROPIC_API_KEY": "k"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"agentdesk ask: bad --grant {grant!r}: ")


def test_a_grant_no_tool_uses_is_a_warning_and_the_run_goes_on(agentdesk_home, tmp_path):
    with FakeProviderServer() as srv:
        srv.script(Turn(parts=(Text("hello"),)))
        (agentdesk_home / "settings.json").write_text(json.dumps({"default_lease": 60}))
        done = ask(["hi", "--workspace", str(tmp_path), "--grant", "fs.wirte=5m", "--grant", "fs",
                    "--grant", "*=1m"], agentdesk_home, anthropic_env(srv))
        srv.assert_done()
    assert done.returncode == 0, done.stderr
    assert "hello" in done.stdout
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == [
        'agentdesk ask: warning: settings.json: unknown setting "default_lease" is ignored',
        "agentdesk ask: warning: no tool uses the scope fs.wirte (known scopes: automation.create, fs.read, fs.write, "
        "net.fetch, net.search, shell.exec, shell.exec.net); granted anyway",
    ]
    assert "granted fs.wirte for 5 minutes" in done.stderr and "granted * for 1 minute" in done.stderr


def test_the_desktop_starts_over_a_bad_setting_and_says_what_is_wrong(agentdesk_home):
    (agentdesk_home / "settings.json").write_text('{"max_tokens": "many"}')
    (agentdesk_home / "keys.json").write_text('"x"')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    env.update({"AGENTDESK_HOME": str(agentdesk_home), "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
                "AGENTDESK_EXIT_WHEN_SHOWN": "1"})
    try:
        done = subprocess.run([sys.executable, "-m", "desktop.launcher"], capture_output=True, text=True,
                              timeout=120, cwd=ROOT, env=env)
    finally:  # the desktop started the home's kernel service, which outlives it: stop it
        subprocess.run([sys.executable, "-m", "desktop.launcher", "kernel", "--stop"], capture_output=True,
                       timeout=60, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert "shown_at=" in done.stdout and "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("agentdesk:")]
    assert lines == [
        'agentdesk: settings.json: max_tokens must be a whole number of tokens between 1 and 1,000,000 '
        '(found "many")',
        "agentdesk: keys.json must be a JSON object mapping provider names to API keys (found a string)",
    ]


def test_config_error_carries_fields_for_callers(tmp_path: Path) -> None:
    from kernel.cli.grants import parse_grants
    from kernel.core.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        parse_grants([" fs.write"], 900.0)
    assert (info.value.field, info.value.file) == ("--grant", None) and "fs.write" in info.value.allowed
    assert parse_grants(["fs.write=5m", "*", "shell.exec.net=1h"], 900.0) == [
        ("fs.write", 300.0), ("*", 900.0), ("shell.exec.net", 3600.0)]
