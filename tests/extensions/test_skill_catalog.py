"""The skill catalogue on the facade (``skills``, ``set_skill_enabled``): what a real kernel finds for a
workspace, from the same reading its agents' prompts use; enabling pins the hash the user was shown and
is refused when the skill changed since; a client's bad workspace is a clear error, never a crash."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from kernel.core.clock import ManualClock
from kernel.core.errors import ConfigError
from kernel.facade import Kernel
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from ledger import Ledger

from .test_skills import make_skill


@pytest.fixture
def kernel_on(tmp_path: Path):
    ledgers: list[Ledger] = []

    def make(home: Path) -> Kernel:
        home.mkdir(exist_ok=True)
        ledger = Ledger(home / "ledger.db", clock=ManualClock().now)  # the kernel's home is its ledger's folder
        ledgers.append(ledger)
        return build_kernel(ledger=ledger, settings=Settings(), providers=lambda _n: None)

    yield make
    for ledger in ledgers:
        ledger.close()


def test_the_catalogue_is_the_kernels_reading_and_enabling_pins_the_hash_shown(kernel_on, tmp_path):
    home, ws = tmp_path / "home", tmp_path / "ws"
    kernel = kernel_on(home)
    make_skill(home / "skills", "notes", manifest={"scopes": ["fs.read"]})
    local = make_skill(ws / ".agentdesk" / "skills", "local")
    (home / "skills" / "broken").mkdir()

    async def main() -> None:
        catalog = await kernel.extensions.skills(str(ws))
        assert [(s.name, s.source, s.state, s.scopes) for s in catalog.skills] == \
            [("notes", "home", "off", ("fs.read",)), ("local", "workspace", "off", None)]
        assert [(Path(f).name, why) for f, why in catalog.skipped] == [("broken", "has no SKILL.md")]
        assert [s.name for s in (await kernel.extensions.skills()).skills] == ["notes"]  # no workspace: the home's only

        notes, local_info = catalog.skills
        after = await kernel.extensions.set_skill_enabled(notes.folder, notes.sha256, True, mine=True, workspace=str(ws))
        assert [(s.name, s.state, s.mine) for s in after.skills] == [("notes", "enabled", True),
                                                                      ("local", "off", False)]
        assert json.loads((home / "skills.json").read_text())["enabled"] == \
            {notes.folder: {"sha256": notes.sha256, "mine": True}}

        # the workspace's skill changed after the page listed it: what the user saw is not what would load
        (local / "SKILL.md").write_text("---\nname: local\ndescription: Now it does something else.\n---\nRun it.\n")
        with pytest.raises(ConfigError, match="changed since it was listed"):
            await kernel.extensions.set_skill_enabled(local_info.folder, local_info.sha256, True, workspace=str(ws))
        assert notes.folder in json.loads((home / "skills.json").read_text())["enabled"]
        assert local_info.folder not in json.loads((home / "skills.json").read_text())["enabled"]

        # a changed enabled skill says so; disabling needs no hash
        (home / "skills" / "notes" / "SKILL.md").write_text("---\nname: notes\ndescription: Edited.\n---\nNew.\n")
        [changed] = [s for s in (await kernel.extensions.skills(str(ws))).skills if s.name == "notes"]
        assert changed.state == "changed" and changed.sha256 != notes.sha256
        off = await kernel.extensions.set_skill_enabled(notes.folder, "", False)
        assert [s.state for s in off.skills] == ["off"]

        # hostile params: a clear error each time
        for bad in ("relative/ws", "/tmp/a\x00b", "/" + "x" * 5000):
            with pytest.raises(ConfigError, match="absolute path"):
                await kernel.extensions.skills(bad)
        with pytest.raises(ConfigError, match="no such skill"):
            await kernel.extensions.set_skill_enabled(str(tmp_path / "elsewhere"), notes.sha256, True)
        await kernel.aclose()

    asyncio.run(main())
