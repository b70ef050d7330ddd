"""The skill catalogue as the kernel serves it: plain values for the facade and the socket.

Settings → Skills shows what the running kernel finds, from the same reading (and the same cache)
that builds agents' system prompts (``Extensions.catalog``), so the page and the agents never
disagree. A skill travels without its body: name, description, where it is, its hash, its state and
what its manifest allows. Enabling goes through the kernel too, and pins the hash the page showed:
a skill that changed since it was listed is refused, so what the user enabled is what agents load.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..core.errors import ConfigError
from .skills import Catalog, SkillState, set_pin

if TYPE_CHECKING:
    from .context import Extensions

MAX_PATH = 4096


@dataclass(frozen=True)
class SkillInfo:
    """One skill found in the home or a workspace, and what the user decided about it."""

    name: str
    description: str
    folder: str
    source: str                              # "home" · "workspace"
    sha256: str
    state: Literal["enabled", "changed", "off"]  # changed: edited since enabled, so off until enabled again
    mine: bool = False                       # enabled as the user's own: loading it does not taint
    scopes: tuple[str, ...] | None = None    # what its manifest allows; None: no manifest.json, no tools


@dataclass(frozen=True)
class SkillCatalog:
    """Every skill the kernel found, and each folder it skipped with why."""

    skills: tuple[SkillInfo, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (folder, why)


def info(state: SkillState) -> SkillInfo:
    skill = state.skill
    word: Literal["enabled", "changed", "off"] = "enabled" if state.enabled else "changed" if state.changed else "off"
    return SkillInfo(skill.name, skill.description, skill.folder, skill.source, skill.sha256, word,
                     state.pin is not None and state.pin.mine,
                     None if skill.manifest is None else tuple(skill.manifest.scopes))


def catalog_info(catalog: Catalog) -> SkillCatalog:
    return SkillCatalog(tuple(info(s) for s in catalog.skills), tuple(catalog.skipped))


def workspace_path(workspace: str | None) -> Path | None:
    """A client's workspace for the catalogue (ConfigError when it is not an absolute path)."""
    if workspace is None or not workspace.strip():
        return None
    if len(workspace) > MAX_PATH or "\x00" in workspace or not Path(workspace).is_absolute():
        raise ConfigError("the workspace for the skills must be an absolute path", "workspace")
    return Path(workspace)


def set_enabled(extensions: "Extensions", folder: str, sha256: str, enabled: bool, mine: bool,
                workspace: Path | None) -> SkillCatalog:
    """Pin (or unpin) the skill in ``folder`` at ``sha256``, the hash the user was shown; the catalogue after."""
    if extensions.home is None:
        raise ConfigError("this kernel has no home folder to keep the enabled skills in", "AGENTDESK_HOME")
    found = next((s for s in extensions.catalog(workspace).skills if s.skill.folder == folder), None)
    if found is None:
        raise ConfigError("there is no such skill any more; look again", "folder")
    if enabled and found.skill.sha256 != sha256:
        raise ConfigError(f"the skill {found.skill.name} changed since it was listed; look at it again before "
                          "enabling it", "sha256")
    set_pin(extensions.home, found.skill, enabled, mine=mine)
    return catalog_info(extensions.catalog(workspace))
