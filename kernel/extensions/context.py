"""What extensions add to an agent's context, and the one rule they add to the executor.

Per request (the system prompt is rebuilt each time): the workspace's AGENTS.md, recorded in the
ledger (``context`` entry, with its hash) whenever the version an agent is told changes (left out,
with a notice, when a tainted agent wrote its bytes: ``instructions``); and the
enabled skills, by name and a capped description only. ``skill_load`` (R0) brings one skill's
instructions into the conversation; from then on the agent works under it, and every call must
fit the manifest of every skill it loaded (``refusal``) as well as its leases: the intersection,
enforced here, before any lease is asked for. A skill without a manifest allows no tools at all;
loading another skill can only narrow what is allowed, never widen it. A skill the user did not
mark as their own is untrusted content: its text comes back with ``source`` set, which taints.
"""

from __future__ import annotations

import fnmatch
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol
from urllib.parse import urlparse

from ledger import KERNEL, ContextUsed, Ledger

from ..core.errors import ToolFailure
from ..leases.lease import scope_covers
from ..tools.descriptor import Risk, ToolContext, ToolDescriptor, ToolOutput
from ..trust.untrusted import capped, quoted
from ..workspace.root import Workspace
from ..trust.content_taint import content_taint
from .instructions import prompt_block, read_instructions, withheld_block
from .skills import PROMPT_DESCRIPTION_MAX, Catalog, Manifest, Skill, SkillCache, find_skills

if TYPE_CHECKING:
    from ..tools.registry import ToolRegistry


class AgentSeen(Protocol):
    """What the extensions read of an agent (an ``agents.process.AgentProcess``): which one, and where it works.
    Declared here so the extensions never import the agents they serve."""

    @property
    def id(self) -> str: ...

    @property
    def workspace(self) -> str: ...


SKILL_LOAD = "skill_load"
BODY_MAX_CHARS = 64_000
PATH_KEYS = ("path", "src", "dst")
FETCH_SCOPE = "net.fetch"
WITHHELD = "instructions withheld"  # a ``context`` entry's ``what`` when AGENTS.md was left out (tainted bytes)


@dataclass
class Extensions:
    home: Path | None
    ledger: Ledger
    tools: "ToolRegistry"
    _active: dict[str, list[Skill]] = field(default_factory=dict)   # agent id → skills loaded, in order
    _told: dict[str, str] = field(default_factory=dict)             # agent id → instructions hash recorded
    _cache: SkillCache = field(default_factory=dict)                 # folders read and hashed, by metadata

    def catalog(self, workspace: Path | None) -> Catalog:
        return find_skills(self.home, workspace, self._cache)

    def active(self, agent_id: str) -> tuple[Skill, ...]:
        return tuple(self._active.get(agent_id, ()))

    # ---- the system prompt -------------------------------------------------------------------

    def prompt_lines(self, agent: AgentSeen) -> list[str]:
        workspace = Path(agent.workspace)
        lines: list[str] = []
        found = read_instructions(workspace)
        if found is not None:
            taint = None if found.problem else content_taint(self.ledger, found.sha256, Path(found.path).name)
            what = "instructions" if taint is None else WITHHELD  # the ledger says which version, and how
            if found.problem is None and self._told.get(agent.id) != f"{what}:{found.sha256}":
                self.ledger.append(ContextUsed(actor=KERNEL, subject=agent.id, what=what,
                                               path=found.path, sha256=found.sha256))
                self._told[agent.id] = f"{what}:{found.sha256}"
            lines += prompt_block(found) if taint is None else withheld_block(found, taint.source)
        enabled = self.catalog(workspace).enabled()
        if enabled:
            self._ensure_tool()
            lines += ["", f"Skills you may load with {SKILL_LOAD} (name: what it is for); a skill's own text "
                          "never widens your permissions:"]
            lines += [f"- {s.skill.name}: {capped(s.skill.description, PROMPT_DESCRIPTION_MAX)}" for s in enabled]
        active = self.active(agent.id)
        if active:
            lines.append(f"You are working under the skill{'s' if len(active) > 1 else ''} "
                         f"{', '.join(s.name for s in active)}: only {_allowed_words(active)} may be used.")
        return lines

    def _ensure_tool(self) -> None:
        if SKILL_LOAD not in self.tools:
            self.tools.add(skill_load_tool(self))

    # ---- the executor's extra rule -----------------------------------------------------------

    def refusal(self, agent: AgentSeen, tool: ToolDescriptor, tool_input: Mapping[str, Any],
                scope: str) -> str | None:
        """Why a call is outside a loaded skill's manifest, or None (leases are checked after this)."""
        if tool.name == SKILL_LOAD:
            return None  # loading another skill only narrows
        for skill in self._active.get(agent.id, ()):
            why = manifest_refusal(skill.manifest, tool_input, scope, Path(agent.workspace))
            if why is not None:
                return f"refused by the skill {skill.name}: {why}"
        return None

    def url_refusal(self, agent_id: str, url: str) -> str | None:
        """Why a skill the agent works under may not fetch ``url`` (a redirect's target), or None."""
        for skill in self._active.get(agent_id, ()):
            why = manifest_refusal(skill.manifest, {"url": url}, FETCH_SCOPE, Path("/"))
            if why is not None:
                return f"refused by the skill {skill.name}: {why}"
        return None

    async def load(self, ctx: ToolContext, name: str) -> ToolOutput:
        state = self.catalog(ctx.workspace.root).get(name)
        if state is None or state.pin is None:
            raise ToolFailure(f"there is no enabled skill called {quoted(name, 64)}")
        if state.changed:
            raise ToolFailure(f"the skill {name} changed since the user enabled it; it stays off until they enable "
                              "it again in Settings → Skills")
        skill = state.skill
        loaded = self._active.setdefault(ctx.agent_id, [])
        if all(s.folder != skill.folder for s in loaded):
            loaded.append(skill)
        self.ledger.append(ContextUsed(actor=KERNEL, subject=ctx.agent_id, what="skill", path=skill.folder,
                                       sha256=skill.sha256, name=skill.name))
        text = (f"Skill {skill.name} loaded. From now on only {_allowed_words(self.active(ctx.agent_id))} "
                f"may be used.\n\n{capped(skill.body, BODY_MAX_CHARS)}")
        source = None if state.pin.mine else f"skill {skill.name} ({skill.folder})"
        return ToolOutput(text, data={"skill": skill.name, "sha256": skill.sha256, "folder": skill.folder},
                          source=source)


def skill_load_tool(extensions: Extensions) -> ToolDescriptor:
    async def run(ctx: ToolContext, tool_input: Mapping[str, Any]) -> ToolOutput:
        return await extensions.load(ctx, str(tool_input["name"]))

    return ToolDescriptor(
        name=SKILL_LOAD,
        description="Load one of the skills listed in your instructions by name: returns its instructions. "
                    "While you work under a skill, only the tools its manifest allows can be used.",
        input_schema={"type": "object", "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 64}},
                      "required": ["name"], "additionalProperties": False},
        output_schema={}, tool_class="read", scope="skill.load", run=run, risk=Risk.LOCAL_READ, trusted=True,
        timeout_s=10.0,
    )


def _allowed_words(skills: tuple[Skill, ...]) -> str:
    for skill in skills:
        if skill.manifest is None or not skill.manifest.scopes:
            return "no tools"
    scopes = [", ".join(s.manifest.scopes) for s in skills if s.manifest is not None]
    return " and ".join(f"({s})" for s in scopes) if len(scopes) > 1 else f"tools within {scopes[0]}"


def manifest_refusal(manifest: Manifest | None, tool_input: Mapping[str, Any], scope: str,
                     workspace: Path) -> str | None:
    """Why one call does not fit ``manifest``, or None."""
    if manifest is None:
        return "it has no manifest.json, so no tools may be used under it"
    if not any(scope_covers(allowed, scope) for allowed in manifest.scopes):
        return f"{scope} is not among the scopes it may use ({', '.join(manifest.scopes) or 'none'})"
    patterns = manifest.paths.get(scope)
    if patterns is not None:
        for key in PATH_KEYS:
            if key in tool_input or (key == "path" and not any(k in tool_input for k in PATH_KEYS)):
                path = _relative(tool_input.get(key, "."), workspace)
                if path is None or not any(_matches(path, p) for p in patterns):
                    return f"{quoted(str(tool_input.get(key, '.')), 120)} is outside the paths it may use for " \
                           f"{scope} ({', '.join(patterns)})"
    if manifest.domains is not None and scope.startswith(FETCH_SCOPE):
        host = (urlparse(str(tool_input.get("url", ""))).hostname or "").lower()
        if not any(host == d or (d.startswith("*.") and host.endswith(d[1:])) or host.endswith("." + d)
                   for d in manifest.domains):
            return f"{host or 'that address'} is not among the domains it may fetch ({', '.join(manifest.domains)})"
    return None


def _relative(path: Any, workspace: Path) -> str | None:
    """The path a call names, relative to the workspace, as the tool will reach it: links inside
    the workspace followed (``docs/notes`` → ``../private`` is ``private``); None when outside."""
    text = str(path)
    if text.startswith("/"):
        try:
            text = str(Path(text).relative_to(workspace))
        except ValueError:
            return None
    norm = posixpath.normpath(text or ".")
    if norm == ".." or norm.startswith("../"):
        return None
    try:
        resolved = Workspace(workspace).resolve(norm)
    except ToolFailure:
        return None
    return Workspace(workspace).relative(resolved)


def _matches(path: str, pattern: str) -> bool:
    if pattern in (".", "*", "**", "./"):
        return True
    base = pattern.rstrip("/").removesuffix("/**")
    if pattern.endswith("/") or pattern.endswith("/**"):
        return path == base or path.startswith(base + "/")
    return fnmatch.fnmatchcase(path, pattern) or path == posixpath.normpath(pattern)
