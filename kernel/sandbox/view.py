"""What a sandboxed command sees of the host: an explicit list of mounts, checked against secrets.

A command's output goes to the model and so to the provider, so whatever a
command can read is as good as sent. Binding ``/`` read-only (what the
sandbox did until 2026-12) let ``cat ~/.ssh/id_rsa`` or ``sqlite3
$AGENTDESK_HOME/ledger.db`` through, and ``connect()`` reach any host Unix
socket in a visible folder. The view is therefore built up from nothing:

1. the system folders that exist, read-only (``/usr``, ``/etc``, ``/opt``,
   ``/var`` …; a usr-merged ``/bin`` becomes the same symlink), a new
   ``/dev`` and ``/proc``, and fresh size-capped tmpfs scratch folders
   (``/tmp``, ``/var/tmp``, ``/dev/shm``, an empty ``/run``);
2. an empty tmpfs over the home folder, so ``$HOME`` exists but holds nothing;
3. read-only, the toolchains PATH points into outside the system folders
   (``~/.pyenv``, ``~/.cargo`` and its ``~/.rustup``, ``~/.nvm/versions/node/vX``,
   ``~/.local/bin`` with ``~/.local/lib``), so ``python``, ``cargo`` or a
   workspace venv still run; then the folders the user lists in
   ``Settings.sandbox_read_only``;
4. the workspace, writable, with its ``.git/hooks`` and ``.git/config`` bound
   read-only over it (code that later runs on the host, outside any sandbox);
5. last, masks (an empty read-only tmpfs, or ``/dev/null``) over every
   never-visible path that any of the above would show.

Never visible, whatever PATH or Settings say: ``$AGENTDESK_HOME`` and the
ledger files, the credential and key folders in ``HOME_SECRETS``, and the host
socket folders (``/run``, ``/var/run``, X11's). A bind whose source lies in
one of them, or that would show the whole home (``/``, ``/home``, ``~``), is
skipped and reported; a workspace there is refused.

This module only plans; ``kernel.sandbox.bwrap`` turns the plan into bwrap flags.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..core.errors import ToolFailure

# System folders bound read-only when they exist (a symlink is recreated as the same symlink).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/srv", "/var",
               "/nix", "/snap", "/gnu", "/sys")
# Fresh tmpfs over these when they are real folders (not symlinks into /run or /tmp).
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
# Under the home folder: credentials, keys, keyrings and browser profiles.
HOME_SECRETS = (
    ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".git-credentials", ".npmrc", ".pypirc",
    ".vault-token", ".password-store", ".pki", ".config/gcloud", ".config/gh", ".config/hub",
    ".config/git/credentials", ".config/op", ".config/rclone", ".terraform.d", ".cargo/credentials",
    ".cargo/credentials.toml", ".local/share/keyrings", ".local/share/kwalletd", ".kde/share/apps/kwallet",
    ".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
    ".config/microsoft-edge", ".config/vivaldi", ".config/opera", ".var/app", ".local/share/agentdesk",
)
# Host folders that hold sockets of other programs (dbus, docker, the display, ssh-agent).
HOST_SOCKET_DIRS = ("/run", "/var/run", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/dev/shm")
# Folders too wide to show as a whole (they hold other programs' sockets or other users' files).
TOO_WIDE = ("/", "/home", "/tmp", "/var/tmp", "/var", "/usr", "/dev", "/proc")
# A PATH entry with one of these names is a toolchain's bin folder: its parent is the toolchain.
BIN_NAMES = ("bin", "sbin", "shims")
# Shared folders under home whose bin folder is bound alone, plus these companions.
SHARED_HOME_DIRS = {".local": (".local/lib",), ".config": (), ".cache": (), ".var": ()}
# A toolchain that needs another folder under home to run (rustup's proxies in ~/.cargo/bin).
COMPANIONS = {".cargo": (".rustup",)}


@dataclass(frozen=True)
class Skipped:
    """A folder the view does not show, and why (for the lease dialog and the tool result)."""

    path: str
    reason: str


@dataclass(frozen=True)
class HostPaths:
    """The host facts a view is built from; passed in, so tests use a fake home."""

    home: Path
    path: str = ""                             # the PATH the command gets
    secrets: tuple[Path, ...] = ()             # more never-visible paths: $AGENTDESK_HOME, the ledger files
    read_only: Sequence[object] = ()           # Settings.sandbox_read_only (hostile until checked)


@dataclass(frozen=True)
class View:
    """The mounts of one command, in the order bwrap must make them."""

    workspace: Path
    home: Path | None                           # the tmpfs over the home folder (None: home is a system folder)
    read_only: tuple[tuple[Path, Path], ...]    # (source, destination): toolchains, then Settings folders
    pinned: tuple[Path, ...]                    # git folders bound writable over themselves (so never renamed)
    locked: tuple[Path, ...]                    # in the workspace, bound read-only over itself
    masked: tuple[tuple[Path, bool], ...]       # (path, is a folder): covered by an empty mount
    skipped: tuple[Skipped, ...]


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def _norm(path: Path | str) -> Path:
    return Path(os.path.normpath(path))


def _within(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it (both normalised and absolute); plain string work, it is hot."""
    inner, outer = str(path), str(folder)
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (OSError, ValueError):
        return None


def _system_dirs() -> list[Path]:
    """The system folders that exist here as real folders (links become ``--symlink``)."""
    out = []
    for name in SYSTEM_DIRS:
        st = _lstat(Path(name))
        if st is not None and stat.S_ISDIR(st.st_mode):
            out.append(Path(name))
    return out


class _Planner:
    """Collects the read-only binds of one view, refusing those that would show a secret."""

    def __init__(self, host: HostPaths) -> None:
        self.home = _real(host.home) if host.home.is_absolute() else None
        literal = [host.home / rel for rel in HOME_SECRETS] if host.home.is_absolute() else []
        literal += [p for p in (*host.secrets, *map(Path, HOST_SOCKET_DIRS)) if p.is_absolute()]
        # A secret reached through a symlink is hidden at both ends.
        self.secrets = sorted({*map(_norm, literal), *map(_real, literal)})
        self.system = _system_dirs()
        self.system_names = [Path(d) for d in SYSTEM_DIRS if _lstat(Path(d)) is not None]
        self.binds: list[tuple[Path, Path]] = []
        self.skipped: list[Skipped] = []

    def refusal(self, source: Path) -> str | None:
        """Why ``source`` may not be shown, or None."""
        if any(_within(source, secret) for secret in self.secrets):
            return "it is, or is inside, a folder commands may never see"
        if source.as_posix() in TOO_WIDE or (self.home is not None and _within(self.home, source)):
            return "it would show the whole home folder or a shared system folder"
        return None

    def shown_by_system(self, path: Path) -> bool:
        scratch = [Path(d) for d in SCRATCH_DIRS]
        return (any(_within(path, d) for d in self.system_names) and not any(_within(path, d) for d in scratch)
                and (self.home is None or not _within(path, self.home)))

    def add(self, literal: Path, *, origin: str) -> None:
        """Bind ``literal`` read-only, at its own path (its real place is what is read)."""
        literal = _norm(literal)
        source = _real(literal)
        if not source.exists() or (self.shown_by_system(literal) and self.shown_by_system(source)):
            return
        reason = self.refusal(source) or self.refusal(literal)
        if reason is not None:
            self.skipped.append(Skipped(str(literal), f"{origin}: {reason}"))
            return
        self.binds.append((source, literal))
        if source != literal and not self.shown_by_system(source):
            self.binds.append((source, source))  # links inside it may name the real place

    def toolchains(self, path_env: str) -> None:
        """The folders PATH points into that the system folders do not already show."""
        for entry in path_env.split(":"):
            if not entry.startswith("/") or "\0" in entry:
                continue
            literal = _norm(entry)
            if self.shown_by_system(literal) and self.shown_by_system(_real(literal)):
                continue
            for root in self._roots_of(literal):
                self.add(root, origin=f"PATH entry {entry}")

    def _roots_of(self, entry: Path) -> list[Path]:
        """A bin folder's toolchain (its parent), with what it needs; shared folders' bin alone."""
        real = _real(entry)
        parent = entry.parent if entry.name in BIN_NAMES else entry
        if self.home is None or not _within(real, self.home) or real == self.home:
            return [parent]
        top = real.relative_to(self.home).parts[0]
        if top in SHARED_HOME_DIRS:
            return [entry, *(self.home / extra for extra in SHARED_HOME_DIRS[top])]
        root = entry if _real(parent) == self.home else parent
        return [root, *(self.home / extra for extra in COMPANIONS.get(top, ()))]

    def settings_folders(self, folders: Sequence[object]) -> None:
        if isinstance(folders, (str, bytes)) or not isinstance(folders, (list, tuple)):
            self.skipped.append(Skipped(repr(folders)[:200], "sandbox_read_only must be a list of folders"))
            return
        for item in folders:
            if not isinstance(item, str) or not item or "\0" in item:
                self.skipped.append(Skipped(repr(item)[:200], "not a folder path"))
                continue
            path = Path(item)
            if item == "~" or item.startswith("~/"):
                if self.home is None:
                    self.skipped.append(Skipped(item, "there is no home folder to expand ~ in"))
                    continue
                path = self.home / item[2:]
            if not path.is_absolute():
                self.skipped.append(Skipped(item, "Settings folders must be absolute paths"))
            elif not path.exists():
                self.skipped.append(Skipped(item, "no such folder"))
            else:
                self.add(path, origin="Settings folder")

    def tidy(self) -> list[tuple[Path, Path]]:
        """Binds in mount order (outer first), without those an earlier one already shows."""
        out: list[tuple[Path, Path]] = []
        for source, dest in sorted(dict.fromkeys(self.binds), key=lambda b: (len(b[1].parts), b[1])):
            covered = any(_within(dest, d) and _within(source, s) and dest.relative_to(d) == source.relative_to(s)
                          for s, d in out)
            if not covered:
                out.append((source, dest))
        return out

    def masks(self, shown: Iterable[tuple[Path, Path]], covered: Iterable[Path] = ()) -> dict[Path, bool]:
        """Where each never-visible path would appear inside a shown (source, destination) pair.

        ``covered``: destinations a later tmpfs hides anyway (the scratch folders, the home).
        """
        out: dict[Path, bool] = {}
        hidden = list(covered)
        for source, dest in shown:
            for secret in self.secrets:
                if secret == source or not _within(secret, source):
                    continue
                if any(_within(dest / secret.relative_to(source), h) for h in hidden):
                    continue
                st = _lstat(secret)
                if st is None or stat.S_ISLNK(st.st_mode):  # a link's target is a secret of its own
                    continue
                out.setdefault(dest / secret.relative_to(source), stat.S_ISDIR(st.st_mode))
        return out


def _outermost(masks: dict[Path, bool]) -> list[tuple[Path, bool]]:
    ordered = sorted(masks.items(), key=lambda m: (len(m[0].parts), m[0]))
    return [(p, d) for p, d in ordered if not any(_within(p, q) and p != q for q, _ in ordered)]


def git_locks(workspace: Path, *, limit: int = 64) -> tuple[list[Path], list[Path]]:
    """The git folders to pin, and the ``hooks``/``config`` in them to make read-only.

    Covers the workspace's repository and its submodules' git folders. A git
    folder is pinned (bound onto itself) because a mount point cannot be
    renamed: without it, ``mv .git old && cp -r old .git`` gave a command a
    writable copy of both. A missing ``hooks`` folder is created (empty) so it
    can be bound read-only; links are skipped (changes through them show in
    the snapshot).
    """
    out: list[Path] = []
    pinned: list[Path] = []
    queue = [workspace / ".git"]
    while queue and len(out) < limit:
        git = queue.pop(0)
        st = _lstat(git)
        if st is None or not stat.S_ISDIR(st.st_mode):
            continue
        pinned.append(git)
        hooks, config = git / "hooks", git / "config"
        if _lstat(hooks) is None:
            try:
                os.mkdir(hooks, 0o755)
            except OSError:
                pass
        for path, want_dir in ((hooks, True), (config, False)):
            st = _lstat(path)
            if st is not None and (stat.S_ISDIR(st.st_mode) if want_dir else stat.S_ISREG(st.st_mode)):
                out.append(path)
        modules = git / "modules"
        st = _lstat(modules)
        if st is not None and stat.S_ISDIR(st.st_mode):
            try:
                queue += sorted(p for p in modules.iterdir() if not p.is_symlink() and p.is_dir())
            except OSError:
                pass
    return pinned, out[:limit]


@dataclass(frozen=True)
class HostView:
    """The part of a view that depends on the host alone (not on the workspace): see ``plan``."""

    planner: _Planner
    home: Path | None
    binds: tuple[tuple[Path, Path], ...]
    masks: dict[Path, bool]


def host_view(host: HostPaths) -> HostView:
    """What every command on this host sees, whatever its workspace (about 5 ms of CPU: see ViewCache)."""
    planner = _Planner(host)
    planner.toolchains(host.path)
    planner.settings_folders(host.read_only)
    home = planner.home
    if home is not None and home.as_posix() in (*TOO_WIDE, *SYSTEM_DIRS):
        home = None
    binds = planner.tidy()
    covered = [Path(d) for d in SCRATCH_DIRS] + ([home] if home is not None else [])
    masks = {**planner.masks(((d, d) for d in planner.system), covered), **planner.masks(binds)}
    return HostView(planner, home, tuple(binds), masks)


def plan(workspace: Path, host: HostPaths, shown: HostView | None = None) -> View:
    """The view of one command in ``workspace``; refuses (ToolFailure) a workspace it may not show.

    ``shown``: ``host_view(host)`` made earlier and still valid (``kernel.sandbox.bwrap.view_cache``)."""
    shown = shown if shown is not None else host_view(host)
    planner = shown.planner
    root = _real(workspace)
    reason = planner.refusal(root)
    if reason is not None:
        raise ToolFailure(f"shell_exec refused: the workspace {root} cannot be shown to a command: {reason}")
    masks = _outermost({**shown.masks, **planner.masks([(root, root)])})
    pinned, locked = git_locks(root)
    locks = [p for p in locked if not any(_within(p, m) for m, _ in masks)]
    pins = [p for p in pinned if not any(_within(p, m) for m, _ in masks)]
    return View(root, shown.home, shown.binds, tuple(pins), tuple(locks), tuple(masks), tuple(planner.skipped))
