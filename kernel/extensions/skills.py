"""Skills: folders with ``SKILL.md`` and Agentdesk's ``manifest.json``, found, checked and pinned.

A skill is the Agent Skills format (``SKILL.md``: YAML front matter with ``name`` and
``description``, instructions below) plus our ``manifest.json``: the scopes the skill may use,
optional workspace-relative path allowlists for ``fs.read``/``fs.write``, optional domains for
``net.fetch``. They live in ``$AGENTDESK_HOME/skills/`` and ``<workspace>/.agentdesk/skills/``.

Every file is hostile: bad YAML or JSON, a huge file, a link (a skill that points outside itself
could make its hash lie), too many files: the skill is skipped with a clear reason, the others
still load. A skill is usable only when the user enabled it and it is unchanged since: enabling
pins the hash of the whole folder (``skills.json`` in the home), and a changed skill is disabled
until enabled again. ``allowed-tools`` in the front matter is read as text and never grants
anything; only the manifest, intersected with the agent's leases, does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping

from ..config.private import make_home, write_private
from ..config.settings import _read_json
from ..core.errors import ConfigError
from ..leases.lease import SCOPE_PATTERN

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
DESCRIPTION_MAX = 1024        # what the format allows
PROMPT_DESCRIPTION_MAX = 200  # what one skill may put in the system prompt
SKILL_MD_MAX = 256 * 1024
MANIFEST_MAX = 64 * 1024
FOLDER_MAX_BYTES = 4 << 20
FOLDER_MAX_FILES = 200
MAX_SKILLS = 100
PINS_FILE = "skills.json"
_SCOPE = re.compile(rf"^(\*|{SCOPE_PATTERN})$")
_DOMAIN = re.compile(r"^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$")
Source = Literal["home", "workspace"]


@dataclass(frozen=True)
class Manifest:
    scopes: tuple[str, ...] = ()
    paths: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # "fs.read"/"fs.write" → patterns
    domains: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    folder: str
    source: Source
    body: str
    sha256: str
    manifest: Manifest | None  # None: no manifest.json, so no tools at all under this skill


@dataclass(frozen=True)
class Pin:
    sha256: str
    mine: bool = False  # the user wrote it: loading it does not taint


@dataclass(frozen=True)
class SkillState:
    """A found skill and what the user decided about it."""

    skill: Skill
    pin: Pin | None

    @property
    def enabled(self) -> bool:
        return self.pin is not None and self.pin.sha256 == self.skill.sha256

    @property
    def changed(self) -> bool:
        return self.pin is not None and self.pin.sha256 != self.skill.sha256


@dataclass(frozen=True)
class Catalog:
    skills: tuple[SkillState, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()   # (folder, why)

    def enabled(self) -> tuple[SkillState, ...]:
        return tuple(s for s in self.skills if s.enabled)

    def get(self, name: str) -> SkillState | None:
        return next((s for s in self.skills if s.skill.name == name), None)


class SkillProblem(Exception):
    """Why one folder is not a usable skill (the catalog lists it, skipped)."""


def skill_dirs(home: Path | None, workspace: Path | None) -> list[tuple[Path, Source]]:
    out: list[tuple[Path, Source]] = []
    if home is not None:
        out.append((home / "skills", "home"))
    if workspace is not None:
        out.append((workspace / ".agentdesk" / "skills", "workspace"))
    return out


SkillCache = dict[str, tuple[tuple[Any, ...], "Skill | str"]]


def find_skills(home: Path | None, workspace: Path | None, cache: SkillCache | None = None) -> Catalog:
    """Every skill in the two places, with the user's pins; a bad folder is skipped with its reason.
    ``cache`` (kept by the caller) skips reading and hashing folders whose files' metadata did not
    change, ctime included, which no one can set back; 20 skills cost ~114 ms a prompt without it
    (2026-12-01, loaded 2-core machine, benchmarks/extensions_bench.py)."""
    pins = load_pins(home) if home is not None else {}
    found: list[SkillState] = []
    skipped: list[tuple[str, str]] = []
    names: set[str] = set()
    for base, source in skill_dirs(home, workspace):
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)[:MAX_SKILLS]
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            skipped.append((str(base), f"cannot be listed ({exc.strerror or exc})"))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                skill = _cached(Path(entry.path), source, cache)
            except SkillProblem as exc:
                skipped.append((entry.path, str(exc)))
                continue
            if skill.name in names:
                skipped.append((entry.path, f"another skill is already called {skill.name}"))
                continue
            names.add(skill.name)
            found.append(SkillState(skill, pins.get(skill.folder)))
    return Catalog(tuple(found), tuple(skipped))


def _cached(folder: Path, source: Source, cache: SkillCache | None) -> Skill:
    if cache is None:
        return read_skill(folder, source)
    key = f"{source}:{folder}"
    try:
        signature = _signature(folder)
    except OSError as exc:
        raise SkillProblem(f"cannot be read ({exc.strerror or exc})") from None
    hit = cache.get(key)
    if hit is not None and hit[0] == signature:
        if isinstance(hit[1], str):
            raise SkillProblem(hit[1])
        return hit[1]
    if len(cache) > 4 * MAX_SKILLS:
        cache.clear()
    try:
        skill = read_skill(folder, source)
    except SkillProblem as exc:
        cache[key] = (signature, str(exc))
        raise
    cache[key] = (signature, skill)
    return skill


def _signature(folder: Path) -> tuple[Any, ...]:
    """Every entry's metadata under ``folder`` (not followed), bounded; equal means unchanged."""
    out: list[Any] = []
    stack = [folder]
    st = os.lstat(folder)
    out.append(("", st.st_mode, st.st_ino, st.st_mtime_ns, st.st_ctime_ns))
    while stack and len(out) <= FOLDER_MAX_FILES + 1:
        current = stack.pop()
        for entry in os.scandir(current):
            st = entry.stat(follow_symlinks=False)
            out.append((entry.path, st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
    return tuple(sorted(out, key=lambda item: item[0]))


def read_skill(folder: Path, source: Source) -> Skill:
    """One skill folder, checked (SkillProblem with the reason)."""
    st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode):
        raise SkillProblem("is a link; a skill must be a real folder")
    if not stat.S_ISDIR(st.st_mode):
        raise SkillProblem("is not a folder")
    files = _walk(folder)
    contents = dict(files)
    if "SKILL.md" not in contents:
        raise SkillProblem("has no SKILL.md")
    if len(contents["SKILL.md"]) > SKILL_MD_MAX:
        raise SkillProblem(f"SKILL.md is larger than {SKILL_MD_MAX // 1024} KiB")
    front, body = _front_matter(contents["SKILL.md"])
    name, description = front.get("name"), front.get("description")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise SkillProblem("SKILL.md needs a name: 1 to 64 lower-case letters, digits or hyphens")
    if not isinstance(description, str) or not description.strip():
        raise SkillProblem("SKILL.md needs a description")
    manifest = None
    if "manifest.json" in contents:
        manifest = parse_manifest(contents["manifest.json"])
    digest = hashlib.sha256()
    for rel, data in files:
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(data).digest())
    return Skill(name, " ".join(description.split())[:DESCRIPTION_MAX], str(folder), source, body,
                 digest.hexdigest(), manifest)


def _walk(folder: Path) -> list[tuple[str, bytes]]:
    """Every file under ``folder`` (relative path, bytes), sorted; links and special files refused."""
    out: list[tuple[str, bytes]] = []
    total = 0
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError as exc:
            raise SkillProblem(f"cannot be read ({exc.strerror or exc})") from None
        for entry in entries:
            rel = os.path.relpath(entry.path, folder)
            if entry.is_symlink():
                raise SkillProblem(f"holds a link ({rel}); links are not allowed in a skill")
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
                continue
            if not entry.is_file(follow_symlinks=False):
                raise SkillProblem(f"holds {rel}, which is not a regular file")
            if len(out) >= FOLDER_MAX_FILES:
                raise SkillProblem(f"holds more than {FOLDER_MAX_FILES} files")
            data = _read_file(Path(entry.path), FOLDER_MAX_BYTES - total, rel)
            total += len(data)
            out.append((rel.replace(os.sep, "/"), data))
    return sorted(out)


def _read_file(path: Path, room: int, rel: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise SkillProblem(f"holds {rel}, which is not a regular file")
        data = fh.read(room + 1)
    if len(data) > room:
        raise SkillProblem(f"is larger than {FOLDER_MAX_BYTES // (1 << 20)} MiB")
    return data


def _front_matter(raw: bytes) -> tuple[dict[str, Any], str]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillProblem("SKILL.md is not UTF-8 text") from None
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise SkillProblem("SKILL.md must start with front matter between --- lines (name, description)")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise SkillProblem("SKILL.md's front matter has no closing --- line") from None
    import yaml

    try:
        front = yaml.safe_load("\n".join(lines[1:end]))
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 2}" if where is not None else ""
        raise SkillProblem(f"SKILL.md's front matter is not valid YAML{at}") from None
    if not isinstance(front, dict):
        raise SkillProblem("SKILL.md's front matter must be a mapping with name and description")
    return front, "\n".join(lines[end + 1:]).strip()


def parse_manifest(raw: bytes) -> Manifest:
    """``manifest.json`` (SkillProblem naming what is wrong)."""
    if len(raw) > MANIFEST_MAX:
        raise SkillProblem(f"manifest.json is larger than {MANIFEST_MAX // 1024} KiB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SkillProblem("manifest.json is not valid JSON") from None
    if not isinstance(data, dict):
        raise SkillProblem("manifest.json must be an object with \"scopes\"")
    scopes = data.get("scopes", [])
    if not isinstance(scopes, list) or len(scopes) > 64 or not all(isinstance(s, str) and _SCOPE.match(s)
                                                                    for s in scopes):
        raise SkillProblem("manifest.json: scopes must be a list of dotted scopes like fs.read")
    paths_in = data.get("paths", {})
    if not isinstance(paths_in, dict) or not set(paths_in) <= {"fs.read", "fs.write"}:
        raise SkillProblem("manifest.json: paths maps fs.read and/or fs.write to lists of workspace paths")
    paths: dict[str, tuple[str, ...]] = {}
    for scope, patterns in paths_in.items():
        if not isinstance(patterns, list) or len(patterns) > 64 or not all(_relative(p) for p in patterns):
            raise SkillProblem(f"manifest.json: paths.{scope} must list paths relative to the workspace "
                               "(no .., not absolute)")
        paths[scope] = tuple(patterns)
    domains = data.get("domains")
    if domains is not None and (not isinstance(domains, list) or len(domains) > 64 or
                                not all(isinstance(d, str) and _DOMAIN.match(d) for d in domains)):
        raise SkillProblem("manifest.json: domains must be a list of host names like example.com")
    return Manifest(tuple(scopes), paths, tuple(domains) if domains is not None else None)


def _relative(pattern: Any) -> bool:
    return (isinstance(pattern, str) and 0 < len(pattern) <= 512 and not pattern.startswith(("/", "~"))
            and ".." not in pattern.split("/") and "\x00" not in pattern)


# ---- pins: which skills the user enabled, at which hash ----------------------------------------

def load_pins(home: Path) -> dict[str, Pin]:
    try:
        data = _read_json(home / PINS_FILE, PINS_FILE)
    except ConfigError:
        return {}
    enabled = data.get("enabled") if isinstance(data, dict) else None
    if not isinstance(enabled, dict):
        return {}
    out: dict[str, Pin] = {}
    for folder, pin in enabled.items():
        if isinstance(pin, dict) and isinstance(pin.get("sha256"), str):
            out[folder] = Pin(pin["sha256"], pin.get("mine") is True)
    return out


def set_pin(home: Path, skill: Skill, enabled: bool, mine: bool = False) -> None:
    """Enable ``skill`` at its current hash (or disable it)."""
    pins = load_pins(home)
    if enabled:
        pins[skill.folder] = Pin(skill.sha256, mine)
    else:
        pins.pop(skill.folder, None)
    make_home(home)
    data = {"enabled": {f: {"sha256": p.sha256, "mine": p.mine} for f, p in sorted(pins.items())}}
    write_private(home / PINS_FILE, json.dumps(data, indent=2))
