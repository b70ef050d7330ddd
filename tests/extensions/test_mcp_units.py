"""MCP names, hostile listings and the config files, without a server."""

from __future__ import annotations

import json
import stat

import pytest

from kernel.core.errors import RegistryError
from kernel.extensions.mcp_config import McpSecrets, McpServerConfig, McpStore, parse_servers
from kernel.extensions.mcp_names import scope_name, tool_scope_problem, wire_name
from kernel.extensions.mcp_tools import ListedTool, describe, result_text
from kernel.tools.descriptor import ToolOutput
from kernel.tools.registry import NAME_RE, SCOPE_RE
from kernel.config.secrets import SecretStore
from kernel.config.settings import SettingsStore


async def _never(_ctx, _input) -> ToolOutput:  # the descriptors here are never run
    raise AssertionError("not run")


@pytest.mark.parametrize("tool", ["echo", "read-file", "Fetch.URL", "ünïcode", "x" * 200, "9lives", "a b/c"])
def test_names_fit_the_wire_and_the_scope_vocabulary(tool):
    wire, scope = wire_name("srv-1", tool), scope_name("srv-1", tool)
    assert NAME_RE.match(wire) and wire.startswith("mcp__srv_1__")
    if tool_scope_problem(tool) is None:  # the others are refused (tests/extensions/test_mcp_scope_names.py)
        assert SCOPE_RE.match(scope) and scope == f"mcp.srv-1.{tool}"


def test_sanitised_names_stay_apart():
    assert wire_name("s", "a-b") != wire_name("s", "a_b") != wire_name("s", "a.b")
    assert wire_name("s", "x" * 100 + "1") != wire_name("s", "x" * 100 + "2")
    assert wire_name("s", "plain") == "mcp__s__plain" and scope_name("s", "plain") == "mcp.s.plain"


@pytest.mark.parametrize("schema, why", [
    ("object", "not a JSON object"),
    ({"type": "string"}, '"type": "object"'),
    ({"type": "object", "properties": {"a": {"type": "nonsense"}}}, "not a valid JSON Schema"),
    ({"type": "object", "description": "x" * 70_000}, "at most 65,536"),
    ({"type": "object", "properties": {"a": {"not": {"not": {"not": {}}}}}, "x": float("nan")}, "NaN"),
])
def test_a_bad_schema_disables_the_tool_with_a_reason(schema, why):
    with pytest.raises(RegistryError) as caught:
        describe("s", ListedTool("t", "d", schema, read_only=True), _never, 30.0)
    assert caught.value.reason == "schema" and why in caught.value.detail


def test_deeply_nested_schema_is_refused():
    deep: dict = {"type": "object"}
    for _ in range(100):
        deep = {"type": "object", "properties": {"a": deep}}
    with pytest.raises(RegistryError, match="nested more than"):
        describe("s", ListedTool("t", "d", deep), _never, 30.0)


def test_hints_set_the_risk_and_never_trust():
    read = describe("s", ListedTool("r", "reads", {"type": "object"}, read_only=True), _never, 5.0)
    other = describe("s", ListedTool("w", "x" * 5000, {"type": "object"}, read_only=False, destructive=False),
                     _never, 5.0)
    assert (read.risk, read.tool_class, read.trusted, read.timeout_s) == ("R2", "read", False, 5.0)
    assert (other.risk, other.tool_class, other.trusted) == ("R3", "execute", False)
    assert len(other.description) <= 1024  # capped


def test_result_text_names_media_and_caps():
    class Block:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    text = result_text([Block(type="text", text="hi"), Block(type="image", data="AAAA", mime_type="image/png")], None)
    assert text.startswith("hi\n[image image/png, 4 base64 characters, not shown]")
    assert result_text([], {"a": 1}) == '{"a": 1}'
    assert len(result_text([Block(type="text", text="y" * 500_000)], None)) <= 100_000


def test_config_files_are_hostile_input(tmp_path):
    data = {"servers": {
        "good": {"command": "/bin/x", "args": ["-v"], "env": {"A": "1"}},
        "web": {"url": "https://example.test/mcp", "headers": {"X-Team": "a"}},
        "Bad Name": {"command": "x"},
        "both": {"command": "x", "url": "http://h/"},
        "neither": {},
        "newline": {"url": "http://h/", "headers": {"A": "x\r\nInjected: 1"}},
        "slow": {"command": "x", "timeout_s": 1e9},
        "odd": ["not", "an", "object"],
    }}
    loaded = parse_servers(data)
    assert [s.name for s in loaded.servers] == ["good", "web"]
    reasons = " | ".join(p.message for p in loaded.problems)
    for bad in ("Bad Name", "both", "neither", "newline", "slow", "odd"):
        assert repr(bad) in reasons
    assert parse_servers([1, 2]).problems and parse_servers(None).servers == ()


def test_secrets_live_apart_owner_only_and_never_in_mcp_json(tmp_path):
    store = McpStore(tmp_path, SecretStore(SettingsStore(tmp_path), use_keyring=False))
    store.add(McpServerConfig("api", url="https://example.test/mcp", headers={"X-Team": "a"}),
              McpSecrets(headers={"Authorization": "Bearer sekrit-token-123"}))
    assert "sekrit" not in store.path.read_text()
    keys = SettingsStore(tmp_path).keys_path  # where provider keys are (kernel/extensions/mcp_secrets.py)
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600 and not store.keys_path.exists()
    assert store.secrets("api").headers == {"Authorization": "Bearer sekrit-token-123"}
    assert [s.name for s in store.load().servers] == ["api"]
    assert store.remove("api") and not store.remove("api")
    assert store.load().servers == () and json.loads(keys.read_text()) == {}


def test_an_unreadable_mcp_json_is_a_problem_not_a_crash(tmp_path):
    store = McpStore(tmp_path)
    store.path.write_text("{not json")
    loaded = store.load()
    assert loaded.servers == () and "not valid JSON" in loaded.problems[0].message


def test_servers_past_the_most_are_left_out_in_words_not_in_silence():
    from kernel.extensions.mcp_config import MAX_SERVERS

    listed = parse_servers({"servers": {f"s{i:03d}": {"command": "/bin/true"} for i in range(MAX_SERVERS + 3)}})
    assert len(listed.servers) == MAX_SERVERS
    [problem] = listed.problems
    assert f"only the first {MAX_SERVERS} are used (3 left out, from 's{MAX_SERVERS:03d}')" in problem.message
    assert parse_servers({"servers": {"one": {"command": "/bin/true"}}}).problems == ()
