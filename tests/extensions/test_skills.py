"""Skills and project instructions through the real loop (the loopback fake provider through the
real Anthropic SDK): the prompt holds only names and capped descriptions, ``skill_load`` brings a
body in, the executor enforces leases ∩ manifest, no manifest means no tools, pins, taint, and
AGENTS.md joins the prompt with its version recorded."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from kernel.extensions.skills import find_skills, set_pin
from ledger import ContextUsed, ToolError
from tests.fakes import Text, ToolCall, Turn
from tests.providers.support import wire_conversation

from .conftest import McpEnv

BODY = "Step 1: read docs/guide.md. SECRET-BODY-MARKER"


def make_skill(base: Path, name: str, description: str = "Writes release notes.", manifest: object = None,
               body: str = BODY) -> Path:
    folder = base / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\nallowed-tools: [\"*\"]\n---\n"
                                     f"{body}\n")
    if manifest is not None:
        (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def enable(home: Path, workspace: Path | None, name: str, mine: bool = False) -> None:
    state = find_skills(home, workspace).get(name)
    assert state is not None
    set_pin(home, state.skill, True, mine=mine)


def _system(env: McpEnv, request: int = 0) -> str:
    system = env.srv.requests[request].body["system"]
    return system if isinstance(system, str) else "".join(block["text"] for block in system)


def _results(env: McpEnv, request: int) -> list[tuple[str, str, bool]]:
    _, items = wire_conversation("anthropic", env.srv.requests[request].body)
    return [item[2:] for item in items if item[1] == "result"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path  # the fixture's ledger is tmp_path/ledger.db: the kernel's home is its folder


def test_prompt_lists_only_enabled_names_and_capped_descriptions(mcp_kernel, home):
    make_skill(home / "skills", "notes", "Writes release notes. " + "long " * 200, {"scopes": ["fs.read"]})
    make_skill(home / "skills", "unpinned", "Never enabled.")
    changed = make_skill(home / "skills", "changed", "Changed after enabling.", {"scopes": []})
    enable(home, None, "notes")
    enable(home, None, "changed")
    (changed / "extra.md").write_text("added later")

    async def body(env: McpEnv) -> None:
        assert await env.ask(Turn(parts=(ToolCall("skill_load", {"name": "changed"}),)), Turn(parts=(Text("ok"),))) \
            == "idle"
        system = _system(env)
        assert "- notes: Writes release notes." in system and "unpinned" not in system and "- changed" not in system
        line = next(l for l in system.splitlines() if l.startswith("- notes:"))
        assert len(line) <= len("- notes: ") + 200
        assert "SECRET-BODY-MARKER" not in system  # the body comes only through skill_load
        [(_, text, is_error)] = _results(env, 1)
        assert is_error and "changed since the user enabled it" in text

    mcp_kernel([], body, approver=_granting())


def _granting():
    from kernel.leases.approver import Grant
    from tests.kernel.conftest import ScriptedApprover

    return ScriptedApprover().will(*[Grant(300.0)] * 5)


def test_under_a_skill_calls_are_leases_intersected_with_its_manifest(mcp_kernel, home, tmp_path):
    make_skill(home / "skills", "docs", manifest={"scopes": ["fs.read"], "paths": {"fs.read": ["docs/"]}})
    enable(home, None, "docs")

    async def body(env: McpEnv) -> None:
        (env.workspace / "docs").mkdir()
        (env.workspace / "docs" / "guide.md").write_text("the guide")
        (env.workspace / "secret.txt").write_text("s3cret")
        env.srv.script(
            Turn(parts=(ToolCall("skill_load", {"name": "docs"}),)),
            Turn(parts=(ToolCall("fs_read", {"path": "docs/guide.md"}), ToolCall("fs_read", {"path": "secret.txt"}),
                        ToolCall("fs_write", {"path": "docs/new.md", "content": "x"}))),
            Turn(parts=(Text("done"),)))
        agent = env.kernel.agents.spawn("skilled")
        for scope in ("skill", "fs"):
            env.kernel.leases.grant(agent.id, scope, 300)  # leases allow everything; the manifest does not
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        [(_, loaded, is_error)] = _results(env, 1)
        assert not is_error and "SECRET-BODY-MARKER" in loaded and "tools within fs.read" in loaded
        guide, secret, write = _results(env, 2)[-3:]
        assert not guide[2] and "the guide" in guide[1]
        assert secret[2] and "refused by the skill docs" in secret[1] and "outside the paths" in secret[1]
        assert write[2] and "fs.write is not among the scopes it may use (fs.read)" in write[1]
        assert "working under the skill docs" in _system(env, 2)
        assert (env.workspace / "docs" / "new.md").exists() is False
        refused = [e for e in env.ledger.page(kind="error") if isinstance(e, ToolError)]
        assert len(refused) == 2 and all("refused by the skill docs" in e.message for e in refused)
        [used] = [e for e in env.ledger.page(kind="context") if isinstance(e, ContextUsed)]
        assert (used.what, used.name, used.subject) == ("skill", "docs", agent.id) and len(used.sha256) == 64

    mcp_kernel([], body)


def test_a_skill_without_a_manifest_gets_no_tools(mcp_kernel, home):
    make_skill(home / "skills", "bare")
    enable(home, None, "bare")

    async def body(env: McpEnv) -> None:
        (env.workspace / "a.txt").write_text("a")
        env.srv.script(Turn(parts=(ToolCall("skill_load", {"name": "bare"}),)),
                       Turn(parts=(ToolCall("fs_read", {"path": "a.txt"}),)), Turn(parts=(Text("done"),)))
        agent = env.kernel.agents.spawn("bare")
        env.kernel.leases.grant(agent.id, "*", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        _, text, is_error = _results(env, 2)[-1]
        assert is_error and "has no manifest.json, so no tools may be used under it" in text

    mcp_kernel([], body)


def test_workspace_skills_are_found_and_untrusted_unless_the_user_wrote_them(mcp_kernel, home, tmp_path):
    import asyncio

    from kernel.extensions.context import Extensions
    from kernel.tools.descriptor import ToolContext
    from kernel.workspace.root import Workspace
    from ledger import Ledger

    ws = tmp_path / "ws2"
    make_skill(ws / ".agentdesk" / "skills", "theirs", manifest={"scopes": []})
    make_skill(home / "skills", "mine", manifest={"scopes": []})
    enable(home, ws, "theirs")
    enable(home, ws, "mine", mine=True)
    ledger = Ledger(tmp_path / "units.db")
    try:
        from kernel.tools.registry import ToolRegistry

        ext = Extensions(home, ledger, ToolRegistry())
        ctx = ToolContext("a1", Workspace(ws), ledger, 0, None)  # type: ignore[arg-type]
        theirs = asyncio.run(ext.load(ctx, "theirs"))
        mine = asyncio.run(ext.load(ctx, "mine"))
        assert theirs.source is not None and "theirs" in theirs.source  # untrusted: loading it taints
        assert mine.source is None
        assert [s.skill.source for s in find_skills(home, ws).skills] == ["home", "workspace"]
    finally:
        ledger.close()


def test_hostile_skill_folders_are_skipped_with_a_reason(home, tmp_path):
    base = home / "skills"
    make_skill(base, "good", manifest={"scopes": ["fs.read"]})
    bad_yaml = base / "bad-yaml"
    bad_yaml.mkdir()
    (bad_yaml / "SKILL.md").write_text("---\nname: [unclosed\n---\nbody")
    make_skill(base, "bad-json")
    (base / "bad-json" / "manifest.json").write_text("{nope")
    make_skill(base, "huge", body="x" * (300 * 1024))
    linked = make_skill(base, "linked", manifest={"scopes": []})
    outside = tmp_path / "outside.txt"
    outside.write_text("private")
    os.symlink(outside, linked / "notes.md")
    os.symlink(tmp_path, base / "folder-link")
    make_skill(base, "escape", manifest={"scopes": ["fs.read"], "paths": {"fs.read": ["../"]}})
    no_front = base / "no-front"
    no_front.mkdir()
    (no_front / "SKILL.md").write_text("just text")
    catalog = find_skills(home, None)
    assert [s.skill.name for s in catalog.skills] == ["good"]
    reasons = {Path(folder).name: why for folder, why in catalog.skipped}
    assert "not valid YAML" in reasons["bad-yaml"]
    assert "manifest.json is not valid JSON" in reasons["bad-json"]
    assert "larger than 256 KiB" in reasons["huge"]
    assert "links are not allowed" in reasons["linked"]
    assert "is a link" in reasons["folder-link"]
    assert "no .." in reasons["escape"]
    assert "front matter" in reasons["no-front"]


def test_pinning_follows_the_folder_hash(home):
    folder = make_skill(home / "skills", "pinned", manifest={"scopes": []})
    assert find_skills(home, None).enabled() == ()
    enable(home, None, "pinned")
    assert [s.skill.name for s in find_skills(home, None).enabled()] == ["pinned"]
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "\nmore\n")
    [state] = find_skills(home, None).skills
    assert state.changed and not state.enabled
    enable(home, None, "pinned")
    assert find_skills(home, None).enabled()


def test_agents_md_joins_the_prompt_and_its_version_is_recorded(mcp_kernel, tmp_path):
    async def body(env: McpEnv) -> None:
        agents_md = env.workspace / "AGENTS.md"
        agents_md.write_text("Run the tests with make check. PROJECT-RULE")
        (env.workspace / "CLAUDE.md").write_text("CLAUDE-ONLY")
        env.srv.script(Turn(parts=(ToolCall("fs_list", {}),)), Turn(parts=(Text("done"),)))
        agent = env.kernel.agents.spawn("reader")
        env.kernel.leases.grant(agent.id, "fs", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        first, second = _system(env, 0), _system(env, 1)
        assert "PROJECT-RULE" in first and str(agents_md) in first and "CLAUDE-ONLY" not in first
        [used] = [e for e in env.ledger.page(kind="context") if isinstance(e, ContextUsed)]  # once: same version
        assert used.what == "instructions" and used.path == str(agents_md)
        assert used.sha256 == hashlib.sha256(agents_md.read_bytes()).hexdigest() and "PROJECT-RULE" in second

        agents_md.unlink()  # CLAUDE.md is read when there is no AGENTS.md; a new version is recorded
        env.srv.script(Turn(parts=(Text("ok"),)))
        env.kernel.agents.send(agent.id, "again")
        await env.kernel.agents.wait(agent.id)
        assert "CLAUDE-ONLY" in _system(env, 2)
        assert len(env.ledger.page(kind="context")) == 2

    mcp_kernel([], body)


def test_a_linked_agents_md_is_not_followed(tmp_path):
    from kernel.extensions.instructions import prompt_block, read_instructions

    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    ws = tmp_path / "ws"
    ws.mkdir()
    os.symlink(secret, ws / "AGENTS.md")
    found = read_instructions(ws)
    assert found is not None and found.problem and "PRIVATE" not in "\n".join(prompt_block(found))
    (ws / "AGENTS.md").unlink()
    (ws / "AGENTS.md").write_text("y" * 40_000)
    found = read_instructions(ws)
    assert found is not None and found.cut and len(found.text) == 16_000


def test_the_metadata_cache_still_sees_every_change(home):
    folder = make_skill(home / "skills", "cached", manifest={"scopes": []})
    enable(home, None, "cached")
    cache: dict = {}
    assert find_skills(home, None, cache).enabled()
    stamp = os.stat(folder / "SKILL.md")
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text().replace("Step 1", "Step I"))  # same size
    os.utime(folder / "SKILL.md", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # and the old mtime: ctime moves
    [state] = find_skills(home, None, cache).skills
    assert state.changed
