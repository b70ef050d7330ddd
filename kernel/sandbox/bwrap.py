"""The bubblewrap sandbox a shell command runs in, and the environment it gets.

A command sees only what ``kernel.sandbox.view`` plans — the system
read-only, the workspace writable, private size-capped scratch folders, an
empty home with the PATH toolchains and the user's chosen folders read-only,
and never ``$AGENTDESK_HOME``, credentials or host sockets — within the
bounds of ``kernel.sandbox.limits``. It has its own PID namespace (so every
process it starts dies with it), no network unless the call was granted one,
and no capabilities even when Agentdesk runs as root (without ``--cap-drop
ALL`` root could simply remount its binds read-write). Its environment is
built fresh from an allowlist and then scrubbed of anything that looks like a
secret, so provider keys never reach a command.

This module only builds command lines and checks that bubblewrap works here;
running and killing the process is ``kernel.sandbox.supervisor``'s job.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .limits import LimitSupport, SandboxLimits, detect
from .view import SCRATCH_DIRS, SYSTEM_DIRS, TOO_WIDE, HostPaths, View, plan

DEBIAN_PACKAGE = "bubblewrap"
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Variables a command may inherit (when they hold no secret); everything else is dropped.
ENV_ALLOW = ("PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TERM", "USER",
             "LOGNAME", "TZ", "COLUMNS", "LINES")
# Names that look like secrets: never passed on, even if allowlisted by a later change.
SECRET_PATTERNS = ("*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*", "*AUTH*",
                   "*COOKIE*", "*SESSION*", "ANTHROPIC_*", "OPENAI_*", "GEMINI_*", "GOOGLE_*", "AWS_*",
                   "AZURE_*", "GCP_*", "GH_*", "GITHUB_*", "HF_*", "HUGGING*", "AGENTDESK_*", "SSH_*",
                   "GPG_*", "DBUS_*", "XDG_RUNTIME_DIR", "DISPLAY", "WAYLAND_*", "NPM_*", "PYPI_*")


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_PATTERNS)


def scrubbed_env(source: Mapping[str, str] | None = None, *, sandboxed: bool = True) -> dict[str, str]:
    """A fresh environment for a command: allowlisted, secret-free, with sane defaults."""
    source = os.environ if source is None else source
    env = {name: source[name] for name in ENV_ALLOW if source.get(name) and not is_secret_name(name)}
    env.setdefault("PATH", DEFAULT_PATH)
    env.setdefault("HOME", str(Path.home()))
    env.setdefault("LANG", "C.UTF-8")
    env["TERM"] = "dumb"
    env["SHELL"] = "/bin/bash"
    env["TMPDIR"] = "/tmp"
    env["PAGER"] = "cat"
    env["GIT_PAGER"] = "cat"
    env["AGENTDESK_SANDBOX"] = "bwrap" if sandboxed else "none"  # a marker, not a secret
    return env


@dataclass(frozen=True)
class SandboxCheck:
    """Whether bubblewrap can run here (``reason`` says why not) and how limits are enforced."""

    ok: bool
    reason: str = ""
    support: LimitSupport = LimitSupport(tmp_size=False, processes="")


class Sandbox:
    """Builds bubblewrap command lines; ``check()`` tries bwrap once and remembers the answer."""

    def __init__(self, bwrap: str = "bwrap", bash: str | None = None) -> None:
        self.bwrap = bwrap
        self.bash = bash or shutil.which("bash") or "/bin/bash"
        self._check: SandboxCheck | None = None
        self._lock = threading.Lock()

    def check(self) -> SandboxCheck:
        """Run a trivial command in the sandbox (blocking; call it off the event loop)."""
        with self._lock:
            if self._check is None:
                self._check = self._probe()
            return self._check

    def _probe(self) -> SandboxCheck:
        exe = shutil.which(self.bwrap)
        if exe is None:
            return SandboxCheck(False, f"bubblewrap ({self.bwrap}) is not installed; install the Debian "
                                       f"package `{DEBIAN_PACKAGE}` (apt install {DEBIAN_PACKAGE})")
        try:
            shown = subprocess.run([exe, "--help"], stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
            support = detect(shown.stdout.decode("utf-8", "replace"))
            with tempfile.TemporaryDirectory(prefix="agentdesk-probe-") as probe_root:
                view = plan(Path(probe_root), HostPaths(home=Path.home(), path=DEFAULT_PATH))
                argv = self.argv(view, "true", network=False, limits=SandboxLimits(), support=support)
                done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=20,
                                      env=scrubbed_env())
        except (OSError, subprocess.TimeoutExpired) as exc:
            return SandboxCheck(False, f"bubblewrap ({exe}) could not start: {exc}")
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
            return SandboxCheck(False, f"bubblewrap ({exe}) cannot create its namespaces here: {detail}. "
                                       f"It needs unprivileged user namespaces (kernel.unprivileged_userns_clone=1"
                                       f", or AppArmor allowing bwrap) or to run as root; package `{DEBIAN_PACKAGE}`")
        return SandboxCheck(True, support=support)

    def argv(self, view: View, command: str, *, network: bool, limits: SandboxLimits, support: LimitSupport,
             info_fd: int | None = None, cgroup_procs: Path | None = None) -> list[str]:
        """The full command line that runs ``command`` with bash inside ``view.workspace``.

        ``info_fd``: an inherited fd on which bwrap writes JSON naming the sandbox init's host pid.
        ``cgroup_procs``: the ``cgroup.procs`` file bwrap joins before it starts (the process limit, as root).
        """
        root = str(view.workspace)
        size = ["--size", str(limits.tmp_bytes)] if support.tmp_size else []
        args = [self.bwrap, *_system_args(), "--dev", "/dev", "--proc", "/proc"]
        for scratch in _scratch_dirs():
            args += [*size, "--tmpfs", scratch]
        args += [*size, "--tmpfs", "/run"]
        if view.home is not None:
            args += [*size, "--tmpfs", str(view.home)]
        for source, dest in view.read_only:
            args += ["--ro-bind", str(source), str(dest)]
        args += ["--bind", root, root]
        for pinned in view.pinned:
            args += ["--bind", str(pinned), str(pinned)]
        for locked in view.locked:
            args += ["--ro-bind", str(locked), str(locked)]
        for path, is_dir in view.masked:
            args += ["--size", "4096", "--tmpfs", str(path), "--remount-ro", str(path)] if is_dir and size else \
                ["--tmpfs", str(path), "--remount-ro", str(path)] if is_dir else ["--ro-bind", "/dev/null", str(path)]
        # --as-pid-1: the command is the namespace's first process and bwrap's own child, which bwrap waits
        # for; bwrap's reaper init would outlive bwrap by a moment, an orphan the kernel (a child subreaper,
        # kernel.service.peers) adopted and never waited for: one zombie per command (issue 23)
        args += ["--unshare-pid", "--as-pid-1", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session",
                 "--cap-drop", "ALL", "--chdir", root]
        if not network:
            args.append("--unshare-net")
        if info_fd is not None:
            args += ["--info-fd", str(info_fd)]
        # Limits are set inside, after bwrap made its user namespace: see kernel.sandbox.limits.
        prelude = (f"{limits.ulimits(processes=support.processes == 'rlimit')} || exit 126; "
                   f'exec {self.bash} --noprofile --norc -c "$1"')
        args += ["--", self.bash, "--noprofile", "--norc", "-c", prelude, "agentdesk-sandbox", command]
        if cgroup_procs is not None:
            join = ('echo $$ > "$0" || { echo "agentdesk: cannot join the process-limit cgroup" >&2; exit 126; }; '
                    'exec "$@"')
            args = ["/bin/sh", "-c", join, str(cgroup_procs), *args]
        return args

    def plain_argv(self, command: str) -> list[str]:
        """How to run ``command`` without a sandbox (only when settings allow it)."""
        return [self.bash, "--noprofile", "--norc", "-c", command]


def host_paths(environ: Mapping[str, str], secrets: Sequence[Path], read_only: Sequence[object]) -> HostPaths:
    """What the view of a command is built from: the command's HOME and PATH, the secrets (with the kernel's
    socket folder and runtime folder: ``runtime_folders``), Settings' folders."""
    env = scrubbed_env(environ)
    hidden = (*secrets, *runtime_folders(environ))
    return HostPaths(home=Path(env["HOME"]), path=env["PATH"], secrets=tuple(hidden), read_only=read_only)


def runtime_folders(environ: Mapping[str, str]) -> tuple[Path, ...]:
    """The folder of the kernel's socket and the kernel's whole ``$XDG_RUNTIME_DIR``, wherever they are.

    The socket folder is hidden by place alone in the usual set-up (``/run/user/UID`` under the hidden
    ``/run``, or ``/tmp`` under the private scratch one), but a custom runtime folder under ``/opt``,
    ``/srv`` or ``/var`` is shown read-only with the system, and a command could ``connect()`` to the
    kernel there (or to dbus, the keyring, the display). A runtime folder that would hide too much
    (``/``, a system folder, the home or above it) is left out: its socket folder is still hidden.
    """
    from ..config.home import home as agentdesk_home, socket_path

    out: list[Path] = []
    try:
        out.append(socket_path(agentdesk_home(environ), environ).parent)
    except (OSError, ValueError, RuntimeError):  # an unusable home: the shell refuses it elsewhere
        pass
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/") and "\0" not in runtime:
        folder = Path(os.path.normpath(runtime))
        home = os.path.normpath(environ.get("HOME") or str(Path.home()))
        wide = {*TOO_WIDE, *SYSTEM_DIRS, *SCRATCH_DIRS}
        if folder.as_posix() not in wide and not (home == folder.as_posix() or home.startswith(folder.as_posix() + "/")):
            out.append(folder)
    return tuple(out)


def _system_args() -> list[str]:
    args: list[str] = []
    for name in SYSTEM_DIRS:
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    return args


def _scratch_dirs() -> list[str]:
    """The scratch folders to cover with a private tmpfs (a link, as /var/tmp can be, is left alone)."""
    return [d for d in SCRATCH_DIRS if d == "/tmp" or d == "/dev/shm" or (os.path.isdir(d) and not os.path.islink(d))]
