"""settings.json and keys.json are checked value by value: a bad value is a ConfigError with fields, never a
traceback, never a silent coercion; keys are never quoted; restoring a default rewrites only that field."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from kernel.core.errors import ConfigError
from kernel.config.settings import KeySource, Settings, SettingsStore, with_overrides
from kernel.config.schema import SETTINGS_RULES, check_settings, found

SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"


def store_with(home: Path, settings: object = None, keys: object = None, raw: str | None = None) -> SettingsStore:
    if raw is not None:
        (home / "settings.json").write_text(raw)
    elif settings is not None:
        (home / "settings.json").write_text(json.dumps(settings))
    if keys is not None:
        (home / "keys.json").write_text(json.dumps(keys))
    return SettingsStore(home)


def load_error(home: Path, settings: object) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        store_with(home, settings).load()
    return info.value


# The values: each crashed (TypeError) or was taken silently before.
@pytest.mark.parametrize("field, value, allowed", [
    ("default_lease_s", "x", "a number of seconds between 1 and 28800"),
    ("default_budget", None, "a whole number of tokens between 1 and 2,000,000,000"),
    ("models", "x", "an object mapping provider names to model names"),
    ("shell_timeout_s", -1, "a number of seconds between 1 and 28800"),
    ("max_tokens", "many", "a whole number of tokens between 1 and 1,000,000"),
    ("blob_max_bytes", "big", "a whole number of bytes between 1 and 1,000,000,000,000"),
    ("base_urls", [], "an object mapping provider names to http:// or https:// URLs"),
    ("provider", "mistral", "one of anthropic, openai, openai-chat, gemini"),
    ("allow_unsandboxed_shell", "yes", "true or false"),
    ("user_name", "", "a name of 1 to 200 characters on one line"),
    ("workspace", "relative/folder", "a folder path, absolute or starting with ~"),
    ("sandbox_read_only", ["ok/relative"], "a list of folder paths, each absolute or starting with ~"),
    ("request_timeout_s", 0, "a number of seconds between 1 and 3600"),
    ("max_retries", 11, "a whole number of retries between 0 and 10"),
])
def test_each_bad_value_is_a_sentence_with_file_field_and_what_is_allowed(agentdesk_home, field, value, allowed):
    exc = load_error(agentdesk_home, {field: value})
    assert (exc.file, exc.field, exc.allowed) == ("settings.json", field, allowed)
    assert exc.message == f"settings.json: {field} must be {allowed} (found {json.dumps(value)})"
    assert str(exc) == exc.message and "\n" not in exc.message


@pytest.mark.parametrize("field, value", [
    ("default_budget", True),          # a bool is not a number
    ("default_budget", 2.5),           # nor is a fraction a whole number
    ("default_budget", "200000"),      # no coercion from text
    ("default_lease_s", float("nan")),
    ("default_lease_s", float("inf")),
    ("max_tokens", 1_000_001),
    ("allow_unsandboxed_shell", 1),
])
def test_no_coercion_and_every_number_has_a_range(field, value):
    checked = check_settings({field: value})
    assert [e.field for e in checked.errors] == [field] and field not in checked.values


def test_mapping_entries_are_checked_one_by_one(agentdesk_home):
    store = store_with(agentdesk_home, {"models": {"anthropic": "claude-x", "gemini": 5, "mistral": "m"},
                                        "base_urls": {"openai": "localhost:8080"}})
    result = store.check()
    assert [e.field for e in result.errors] == ["models.gemini", "models.mistral", "base_urls.openai"]
    assert "names no provider" in result.errors[1].message
    assert result.settings.model_for("anthropic") == "claude-x"      # the good entry is kept
    assert result.settings.model_for("gemini") == "gemini-2.5-flash"  # the bad one falls back
    assert result.settings.base_urls == {}


def test_unknown_settings_are_reported_and_ignored(agentdesk_home):
    store = store_with(agentdesk_home, {"default_lease": 60, "max_tokens": 100})
    result = store.check()
    assert result.errors == () and result.unknown == ("default_lease",)
    assert store.load().max_tokens == 100


def test_lenient_check_keeps_good_values_and_defaults_bad_ones(agentdesk_home):
    result = store_with(agentdesk_home, {"default_lease_s": "x", "default_budget": 5000, "max_tokens": 0}).check()
    assert [e.field for e in result.errors] == ["default_lease_s", "max_tokens"]
    assert result.settings.default_budget == 5000
    assert result.settings.default_lease_s == Settings().default_lease_s
    assert result.settings.max_tokens == Settings().max_tokens


def test_valid_files_round_trip_with_sandbox_folders(agentdesk_home, tmp_path):
    store = SettingsStore(agentdesk_home)
    settings = Settings(workspace=str(tmp_path), sandbox_read_only=("~/src", "/opt/data"), default_lease_s=600)
    store.save(settings)
    assert store.load() == settings
    assert json.loads(store.settings_path.read_text())["sandbox_read_only"] == ["~/src", "/opt/data"]


def test_save_and_overrides_refuse_what_the_file_could_not_hold(agentdesk_home):
    store = SettingsStore(agentdesk_home)
    with pytest.raises(ConfigError) as info:
        store.save(Settings(max_tokens=0))
    assert info.value.field == "max_tokens" and not store.settings_path.exists()
    with pytest.raises(ConfigError):
        with_overrides(Settings(), provider="mistral")


@pytest.mark.parametrize("raw, why", [
    ("{nope", "is not valid JSON (Expecting property name enclosed in double quotes at line 1, column 2)"),
    ("[" * 100_000 + "]" * 100_000, "is not valid JSON"),
    ("[1, 2]", None),
])
def test_a_file_that_cannot_be_used_is_one_sentence(agentdesk_home, raw, why):
    store = store_with(agentdesk_home, raw=raw)
    with pytest.raises(ConfigError) as info:
        store.load()
    exc = info.value
    assert exc.file == "settings.json" and exc.field is None and "\n" not in exc.message
    if why:
        assert why in exc.message
    else:
        assert exc.message == "settings.json must be a JSON object of settings (found a list)"
    assert store.check().settings == Settings()


def test_not_utf8_too_large_a_folder_and_a_fifo_are_refused_without_hanging(agentdesk_home):
    store = SettingsStore(agentdesk_home)
    store.settings_path.write_bytes(b'{"user_name": "\xff"}')
    assert "is not UTF-8 text" in store.check().errors[0].message
    store.settings_path.write_text('{"user_name": "' + "a" * (1 << 20) + '"}')
    assert "is larger than 1024 KiB" in store.check().errors[0].message
    store.settings_path.unlink()
    store.settings_path.mkdir()
    assert "is not a regular file" in store.check().errors[0].message
    store.settings_path.rmdir()
    os.mkfifo(store.settings_path)  # a writer-less FIFO blocked open() for ever
    assert "is not a regular file" in store.check().errors[0].message


@pytest.mark.parametrize("keys, field, message", [
    ([], None, "keys.json must be a JSON object mapping provider names to API keys (found a list)"),
    ("x", None, "keys.json must be a JSON object mapping provider names to API keys (found a string)"),
    ({"anthropic": 5}, "anthropic", "keys.json: anthropic must be an API key string (found a number)"),
    ({"anthropic": [SECRET]}, "anthropic", "keys.json: anthropic must be an API key string (found a list)"),
    ({"openai": SECRET + " x"}, "openai", "keys.json: openai must be an API key without spaces or line breaks "
                                          "(found a string with spaces or control characters)"),
    ({SECRET: "k"}, SECRET, "keys.json: a string of 49 characters names no provider "
                            "(allowed: one of anthropic, openai, openai-chat, gemini, brave, tavily, searxng)"),
])
def test_keys_json_problems_never_quote_a_key(agentdesk_home, keys, field, message):
    store = store_with(agentdesk_home, keys=keys)
    with pytest.raises(ConfigError) as info:
        store.api_key("anthropic", env={})
    assert (info.value.file, info.value.field, info.value.message) == ("keys.json", field, message)
    assert SECRET not in info.value.message


def test_found_hides_secret_looking_strings_and_stays_on_one_printable_line():
    assert found(SECRET) == "a string of 49 characters"
    assert found("line\nbreak\x1b[31m") == '"line\\nbreak\\u001b[31m"'
    assert found("\u202eevil") == '"\\u202eevil"'
    assert len(found("x" * 10 + " " + "y" * 500)) == 60


def test_restore_default_rewrites_only_that_field(agentdesk_home):
    store = store_with(agentdesk_home, {"default_lease_s": "x", "max_tokens": 100, "models": {"gemini": 5,
                                        "anthropic": "claude-x"}, "extra": "kept"})
    first, second = store.check().errors
    store.restore_default(first)
    data = json.loads(store.settings_path.read_text())
    assert "default_lease_s" not in data and data["max_tokens"] == 100 and data["extra"] == "kept"
    assert second.field == "models.gemini"
    store.restore_default(second)
    assert json.loads(store.settings_path.read_text())["models"] == {"anthropic": "claude-x"}
    assert store.problems() == ()
    assert store.load().max_tokens == 100


def test_restore_default_for_an_unusable_file_keeps_it_aside(agentdesk_home):
    store = store_with(agentdesk_home, raw="{nope", keys=[])
    settings_problem, keys_problem = store.problems()
    store.restore_default(settings_problem)
    store.restore_default(keys_problem)
    assert store.problems() == () and store.load() == Settings() and store.keys() == {}
    assert (agentdesk_home / "settings.json.broken").read_text() == "{nope"
    assert (agentdesk_home / "keys.json.broken").read_text() == "[]"


def test_restoring_a_key_entry_keeps_keys_json_private(agentdesk_home):
    store = SettingsStore(agentdesk_home)
    store.save_key("openai", "sk-good")
    data = json.loads(store.keys_path.read_text())
    store.keys_path.write_text(json.dumps({**data, "anthropic": 7}))
    [problem] = store.problems()
    store.restore_default(problem)
    assert store.keys() == {"openai": "sk-good"}
    assert stat.S_IMODE(store.keys_path.stat().st_mode) == 0o600


def test_key_source_says_where_the_key_comes_from(agentdesk_home):
    store = SettingsStore(agentdesk_home)
    assert store.key_source("anthropic", env={}) == KeySource(None, "ANTHROPIC_API_KEY")
    store.save_key("openai", "sk-saved")
    assert store.key_source("openai", env={}) == KeySource("keys.json", "openai")
    assert store.key_source("openai-chat", env={}) == KeySource("keys.json", "openai")
    env = {"OPENAI_API_KEY": "sk-env", "GOOGLE_API_KEY": "g"}
    assert store.key_source("openai", env=env) == KeySource("environment", "OPENAI_API_KEY")
    assert store.api_key("openai", env=env) == "sk-env"
    assert store.key_source("gemini", env=env) == KeySource("environment", "GOOGLE_API_KEY")


def test_every_settings_field_has_a_rule():
    from dataclasses import fields

    assert {f.name for f in fields(Settings)} == set(SETTINGS_RULES)
    assert check_settings(Settings().to_json()).errors == ()
