"""Running a command on an overlay of the workspace, and finding out once whether that works here.

A command's changes used to be found by photographing the whole workspace
before and after it (``kernel.workspace.snapshot``), which costs what the
workspace holds: measured 2026-12 at 100,000 files, 17 s for the first
command and 0.7 s for every later one. On an overlay the real workspace is
the lower layer (the command never writes it) and a staging folder is the
upper layer: when the command ends, the upper layer holds exactly what it
created, changed or deleted, and nothing else had to be read
(``kernel.workspace.upper`` applies it through the ledger).

Two ways to mount it, tried in this order on the workspace's own filesystem:

- ``bwrap``'s own ``--overlay-src``/``--overlay`` (bubblewrap 0.10 and later);
- ``unshare --user --map-root-user --mount`` mounting ``overlay`` over the
  workspace path in a private mount namespace, with bwrap run inside it
  (bubblewrap 0.8.0 here has no overlay option; Linux 6.18, ext4, measured
  2026-12-01). The mount uses ``userxattr`` (opaque folders are marked with
  ``user.overlay.opaque``), ``redirect_dir=nofollow`` (a folder rename is a
  copy and a whiteout, never a redirect we would have to follow) and
  ``metacopy=off`` (a chmod copies the whole file up, so the upper file is
  complete). bwrap then maps the command back to the caller's uid, so files
  it creates are owned by the user and ``id -u`` is unchanged.

The upper and work folders live in ``.agentdesk-overlay/`` beside the
workspace (same filesystem, so changes land by rename; outside the workspace,
so the command never sees them), kept and reused per workspace
(``kernel.sandbox.stages``). Where neither way works — no unprivileged
user namespaces, a filesystem overlayfs refuses, a parent folder we cannot
write — commands fall back to snapshots, and ``OverlayStatus.reason`` says why.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .safe_remove import remove_tree

STAGE_DIR = ".agentdesk-overlay"
MOUNT_OPTIONS = "userxattr,redirect_dir=nofollow,metacopy=off,volatile"
USERNS = "userns-mount"        # unshare + mount -t overlay, bwrap inside
USERNS_DIRECT = "userns-mount-direct"  # the same namespace and mount made by one small perl program
BWRAP = "bwrap-overlay"        # bwrap --overlay-src/--overlay
SNAPSHOTS = "snapshots"        # no overlay: before/after snapshots


@dataclass(frozen=True)
class OverlayStatus:
    """How commands in one workspace are captured: ``method`` is USERNS(_DIRECT), BWRAP or SNAPSHOTS."""

    method: str
    reason: str = ""

    @property
    def overlay(self) -> bool:
        return self.method != SNAPSHOTS

    @property
    def mode(self) -> str:
        """Short words for ``agentdesk status``: "overlay (user-namespace mount)", "snapshots (no overlay: …)"."""
        if self.method == BWRAP:
            return "overlay (bwrap --overlay)"
        if self.overlay:
            return "overlay (user-namespace mount)"
        return f"snapshots (no overlay: {self.reason})"

    def describe(self) -> str:
        """One sentence for the desktop."""
        if self.overlay:
            how = "bubblewrap's overlay" if self.method == BWRAP else "a user-namespace overlay mount"
            if self.method == USERNS_DIRECT:
                how += ", made directly"
            return f"shell commands run on an overlay ({how}): changes are captured exactly and land when they end"
        return f"shell commands are captured by workspace snapshots (no overlay: {self.reason})"


@dataclass(frozen=True)
class Stage:
    """The upper and work folders of one command."""

    folder: Path
    upper: Path
    work: Path


def stage_parent(root: Path) -> Path:
    return root.parent / STAGE_DIR


def wrap_argv(method: str, argv: Sequence[str], root: Path, stage: Stage, *, bwrap: str,
              unshare: str = "unshare") -> list[str]:
    """``argv`` (a bwrap command line that binds ``root`` writable) made to run on the overlay."""
    root_s = str(root)
    if method == USERNS_DIRECT:
        return [*argv[:argv.index(bwrap)], *direct_userns_argv(root_s, stage), *_inside(argv, bwrap)]
    if method == BWRAP:
        out: list[str] = []
        i = 0
        while i < len(argv):  # replace the workspace's writable bind with the overlay
            if argv[i] == "--bind" and i + 2 < len(argv) and argv[i + 1] == root_s and argv[i + 2] == root_s:
                out += ["--overlay-src", root_s, "--overlay", str(stage.upper), str(stage.work), root_s]
                i += 3
                continue
            out.append(argv[i])
            i += 1
        return out
    bwrap_at = list(argv).index(bwrap)
    inside = _inside(argv, bwrap)
    mount = ('mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3,' + MOUNT_OPTIONS + '" "$1" '
             '|| { echo "agentdesk: could not mount the overlay" >&2; exit 126; }; shift 3; exec "$@"')
    inner = [unshare, "--user", "--map-root-user", "--mount", "/bin/sh", "-c", mount, "agentdesk-overlay",
             root_s, str(stage.upper), str(stage.work), *inside]
    return [*argv[:bwrap_at], *inner]


def _inside(argv: Sequence[str], bwrap: str) -> list[str]:
    """The bwrap part of ``argv``, mapping the command back to the caller's uid inside the namespace."""
    at = list(argv).index(bwrap)
    return [*argv[at:at + 1], "--unshare-user", "--uid", str(os.getuid()), "--gid", str(os.getgid()), *argv[at + 1:]]


# unshare(2) and mount(2) by number, per machine (perl-base is on every Debian system; elsewhere USERNS is used).
_SYSCALLS = {"x86_64": (272, 165), "aarch64": (97, 40)}
# In a new user and mount namespace, as root of it: mounts private, the overlay over the workspace, then exec.
_DIRECT = r"""
my ($unshare, $mount, $lower, $upper, $work, $options, @cmd) = @ARGV;
my ($uid, $gid) = ($<, (split ' ', $()[0]);
sub put { my ($file, $text) = @_; open(my $fh, '>', $file) or die "$file: $!\n"; print $fh $text; close($fh) or die "$file: $!\n"; }
syscall($unshare, 0x10000000 | 0x00020000) == 0 or die "unshare: $!\n";
put('/proc/self/setgroups', 'deny');
put('/proc/self/uid_map', "0 $uid 1");
put('/proc/self/gid_map', "0 $gid 1");
my ($none, $root, $ovl) = ('none', '/', 'overlay');
syscall($mount, $none, $root, 0, 0x4000 | 0x40000, 0) == 0 or die "mount --make-rprivate /: $!\n";
my $data = "lowerdir=$lower,upperdir=$upper,workdir=$work,$options";
syscall($mount, $ovl, $lower, $ovl, 0, $data) == 0 or die "mount overlay: $!\n";
exec { $cmd[0] } @cmd or die "exec $cmd[0]: $!\n";
"""


def direct_userns_argv(root: str, stage: Stage) -> list[str]:
    """perl making the namespace and the overlay mount itself (one exec instead of unshare, sh and mount)."""
    numbers = _SYSCALLS.get(os.uname().machine)
    if numbers is None:
        raise OSError(f"no known syscall numbers for {os.uname().machine}")
    script = "eval {" + _DIRECT + "}; if ($@) { print STDERR \"agentdesk: could not mount the overlay: $@\"; exit 126; }"
    return ["perl", "-e", script, str(numbers[0]), str(numbers[1]), root, str(stage.upper), str(stage.work),
            MOUNT_OPTIONS]


class OverlayProbe:
    """Finds, once per filesystem, which overlay method works (blocking; call it off the event loop)."""

    def __init__(self, bwrap: str = "bwrap", unshare: str = "unshare", *, allowed: bool = True,
                 only: tuple[str, ...] | None = None) -> None:
        self.bwrap = bwrap
        self.unshare = unshare
        self.allowed = allowed
        self.only = only  # try only these methods (tests run each one)
        self._known: dict[int, OverlayStatus] = {}
        self._lock = threading.Lock()

    def status(self, root: Path) -> OverlayStatus:
        if not self.allowed:
            return OverlayStatus(SNAPSHOTS, "overlays are turned off")
        try:
            dev = os.stat(_existing(root)).st_dev  # a workspace not made yet: the folder it will be made in
        except OSError as exc:
            return OverlayStatus(SNAPSHOTS, f"the workspace cannot be read: {exc}")
        with self._lock:
            if dev not in self._known:
                self._known[dev] = self._probe(root)
            return self._known[dev]

    def _probe(self, root: Path) -> OverlayStatus:
        parent = stage_parent(root)
        try:
            if root.exists() and os.stat(root.parent).st_dev != os.stat(root).st_dev:
                return OverlayStatus(SNAPSHOTS, "the workspace is a mount point of its own (no room beside it "
                                                "on the same filesystem)")
            probe_root = Path(tempfile.mkdtemp(prefix="probe-", dir=_made(parent)))
        except OSError as exc:
            return OverlayStatus(SNAPSHOTS, f"cannot make a staging folder beside the workspace: {exc}")
        try:
            reasons = []
            for method in self._methods():
                why = self._try(method, probe_root)
                if why is None:
                    return OverlayStatus(method)
                reasons.append(why)
            return OverlayStatus(SNAPSHOTS, "; ".join(reasons) or "neither bwrap --overlay nor unshare is available")
        finally:
            remove_tree(probe_root)
            try:
                parent.rmdir()
            except OSError:
                pass

    def _methods(self) -> list[str]:
        out: list[str] = []
        exe = shutil.which(self.bwrap)
        if exe is None:
            return out
        try:
            shown = subprocess.run([exe, "--help"], capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
            if b"--overlay-src" in shown.stdout:
                out.append(BWRAP)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if shutil.which("perl") and os.uname().machine in _SYSCALLS:
            out.append(USERNS_DIRECT)
        if shutil.which(self.unshare):
            out.append(USERNS)
        return [m for m in out if self.only is None or m in self.only]

    def _try(self, method: str, folder: Path) -> str | None:
        """Run a command that changes one file and deletes another; None when the upper layer shows both."""
        lower = folder / "lower"
        lower.mkdir()
        (lower / "kept").write_text("a")
        (lower / "gone").write_text("b")
        stage = Stage(folder, folder / "upper", folder / "work")
        stage.upper.mkdir()
        stage.work.mkdir()
        bwrap = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--bind", str(lower), str(lower),
                 "--unshare-pid", "--as-pid-1", "--cap-drop", "ALL", "--chdir", str(lower), "--",
                 "/bin/sh", "-c", "echo b >> kept && rm gone"]
        argv = wrap_argv(method, bwrap, lower, stage, bwrap=self.bwrap, unshare=self.unshare)
        try:
            done = subprocess.run(argv, capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{method}: {exc}"
        if done.returncode != 0:
            return f"{method}: " + (done.stderr.decode("utf-8", "replace").strip()[:300] or f"exit {done.returncode}")
        try:
            kept_ok = (stage.upper / "kept").read_text() == "ab\n" and (lower / "kept").read_text() == "a"
            gone = os.lstat(stage.upper / "gone")
            gone_ok = stat.S_ISCHR(gone.st_mode) and gone.st_rdev == 0 and (lower / "gone").exists()
        except OSError as exc:
            return f"{method}: the upper layer did not hold the change ({exc})"
        return None if kept_ok and gone_ok else f"{method}: the upper layer did not hold the change"


def _existing(path: Path) -> Path:
    while not os.path.lexists(path) and path.parent != path:
        path = path.parent
    return path


def _made(folder: Path) -> Path:
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


_DEFAULT = OverlayProbe()


def overlay_status(root: Path | str) -> OverlayStatus:
    """How shell commands in ``root`` are captured here (probes once per filesystem; blocking).

    For ``agentdesk status`` and the desktop: ``overlay_status(root).describe()``.
    """
    return _DEFAULT.status(Path(os.path.realpath(root)))
