"""The workspace root, which folders may be one, and the rule that file tools stay inside it.

A workspace is never the root folder, the home folder itself (or a folder
holding it), a system folder, a folder of credentials, or a folder that holds
Agentdesk's own files (``$AGENTDESK_HOME``: the ledger, settings and keys) or
lies inside them: an agent holding only ``fs`` there could read the keys or
replace the ledger. ``check_workspace`` says why in one sentence; the CLI, the
kernel (at spawn) and the Settings dialog all ask it. System trees that hold
no projects (``/usr``, ``/etc``, ``/proc`` ...) are refused with everything
inside them; shared roots where projects do live (``/tmp``, ``/srv``,
``/opt``, ``/mnt``, ``/var``, ``/home``) are refused only themselves, so
``/srv/site`` or ``/tmp/scratch`` is fine. Links are resolved first.

A path from the model is taken relative to the root, resolved (``a/../b`` is
fine), and refused if it lands outside: through ``..``, as an absolute path
elsewhere, or through a symlink that points out. The last component is
resolved too, so a link inside the workspace that points outside is refused.
A plain relative path with no symlink in it (the usual case) is checked one
component at a time below the root instead of through ``realpath``.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import ConfigError, ToolFailure
from ..sandbox.view import HOME_SECRETS

# Refused with everything inside them: the system's own files, never a project.
SYSTEM_TREES = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run", "/sbin",
                "/sys", "/usr", "/var/lib", "/var/log", "/var/cache", "/var/spool", "/var/run", "/var/lock",
                "/var/mail", "/nix/store", "/snap", "/System", "/Library", "/private/etc", "/private/var/db")
# Refused themselves only: shared roots whose subfolders are often projects.
SYSTEM_FOLDERS = ("/", "/home", "/root", "/tmp", "/var", "/var/tmp", "/opt", "/srv", "/mnt", "/media", "/nix",
                  "/Users", "/Volumes", "/Applications", "/private", "/private/tmp", "/private/var")
# Below the home folder: credentials (refused with their insides) and folders of every program's data.
# The same list the shell sandbox never shows, so a workspace it would refuse is refused here, at spawn.
SECRET_TREES = HOME_SECRETS
DATA_FOLDERS = (".config", ".local", ".local/share", ".cache")


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def _within(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or below it (both absolute: ``_real`` made them so). By parts, not by walking
    ``path.parents`` (a new Path per parent: check_workspace runs on every spawn, and ask's way to it)."""
    return path.parts[:len(folder.parts)] == folder.parts


def check_workspace(path: str | os.PathLike[str], agentdesk_home: str | os.PathLike[str],
                    user_home: str | os.PathLike[str], *, holding: tuple[str | os.PathLike[str], ...] = ()
                    ) -> str | None:
    """Why ``path`` cannot be a workspace, in one sentence; None when it can (existing or not).
    ``holding``: more folders of Agentdesk's it must not contain (the ledger's, if kept elsewhere)."""
    ws, own, home = _real(path), _real(agentdesk_home), _real(user_home)
    for folder in map(_real, holding):
        if folder != own and _within(folder, ws) and ws != Path("/"):
            return (f"{ws} cannot be a workspace: it holds Agentdesk's own files ({folder}: the ledger); "
                    "choose a folder that does not contain them")
    if ws == Path("/"):
        return "the root folder / cannot be a workspace: choose a project folder"
    if ws == home:
        return f"your home folder {ws} cannot be a workspace: choose a folder inside it, such as {home / 'Agentdesk'}"
    if _within(home, ws):
        return f"{ws} cannot be a workspace: it holds your home folder {home}; choose a folder inside it"
    if _within(own, ws):
        return (f"{ws} cannot be a workspace: it holds Agentdesk's own files ({own}: the ledger, settings and "
                "keys); choose a folder that does not contain them")
    if _within(ws, own):
        return f"{ws} cannot be a workspace: it is inside Agentdesk's own folder {own}; choose a folder elsewhere"
    for name in SECRET_TREES:
        if _within(ws, home / name):
            return f"{ws} cannot be a workspace: {home / name} holds credentials, keys or a browser profile"
    if ws in {home / name for name in DATA_FOLDERS}:
        return f"{ws} cannot be a workspace: it holds the data of many programs; choose a project folder"
    for tree in SYSTEM_TREES:
        if _within(ws, Path(tree)):
            return f"{ws} cannot be a workspace: it is a system folder ({tree}); choose a project folder"
    if str(ws) in SYSTEM_FOLDERS:
        return f"{ws} cannot be a workspace: it is a system folder; choose a project folder inside it"
    return None


@dataclass(frozen=True)
class Workspace:
    root: Path

    @classmethod
    def at(cls, root: str | os.PathLike[str], *, agentdesk_home: str | os.PathLike[str] | None = None,
           user_home: str | os.PathLike[str] | None = None, holding: tuple[str | os.PathLike[str], ...] = (),
           create: bool = False) -> "Workspace":
        """The workspace at ``root`` (made first when ``create``); ConfigError when it is not a folder
        or may not be a workspace (``check_workspace``). The homes default to ``$AGENTDESK_HOME``
        and the user's home."""
        path = Path(root).expanduser().resolve()
        if agentdesk_home is None:
            from ..config.settings import home

            agentdesk_home = home()
        problem = check_workspace(path, agentdesk_home, Path.home() if user_home is None else user_home,
                                  holding=holding)
        if problem is not None:
            raise ConfigError(problem, "workspace")
        if create:
            path.mkdir(parents=True, exist_ok=True)
        if not path.is_dir():
            raise ConfigError(f"the workspace {path} is not a folder", "workspace")
        return cls(path)

    def resolve(self, rel: str | None) -> Path:
        """The absolute, resolved path for ``rel``; ToolFailure when it leaves the workspace."""
        rel = "." if rel in (None, "") else rel
        if "\x00" in rel:
            raise ToolFailure("a path cannot contain a NUL character")
        plain = _plain_below(self.root, rel)
        if plain is not None:
            return plain
        candidate = Path(rel).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        resolved = Path(os.path.realpath(candidate))
        if resolved != self.root and self.root not in resolved.parents:
            raise ToolFailure(f"{rel} is outside the workspace ({self.root}); use a path inside it")
        return resolved

    def relative(self, path: Path) -> str:
        """How to show ``path`` to the model and the user: relative to the root."""
        try:
            rel = path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)
        return rel or "."


def _plain_below(root: Path, rel: str) -> Path | None:
    """The resolved path for a plain relative ``rel`` (no ``~``, no ``..``) when no component of it
    is a symlink: what realpath would give, with one lstat per component below the (already
    resolved) root instead of one per component from ``/``. None: take the general way."""
    if rel.startswith(("/", "~")):
        return None
    parts = [p for p in rel.split("/") if p and p != "."]
    if ".." in parts:
        return None
    path = str(root)
    exists = True
    for part in parts:
        path = os.path.join(path, part)
        if exists:
            try:
                if stat.S_ISLNK(os.lstat(path).st_mode):
                    return None
            except (FileNotFoundError, NotADirectoryError):
                exists = False  # the rest is taken as named, as realpath does
            except OSError:
                return None
    return Path(path)
