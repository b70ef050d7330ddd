"""The bubblewrap sandbox a shell command runs in, and the environment it gets.

A command sees the whole filesystem read-only (``--ro-bind / /``) except the
workspace, which is bound writable, and a private ``/tmp``; it has its own PID
namespace (so every process it starts dies with it), no network unless the
call was granted one, and no capabilities even when Agentdesk runs as root
(without ``--cap-drop ALL`` root could simply remount ``/`` read-write).
Its environment is built fresh from an allowlist and then scrubbed of
anything that looks like a secret, so provider keys never reach a command.

This module only builds command lines and checks that bubblewrap works here;
running and killing the process is ``kernel.tools.shell``'s job.
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
from typing import Mapping

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
    """Whether bubblewrap can run here; ``reason`` says why not, for the ToolFailure."""

    ok: bool
    reason: str = ""


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
            with tempfile.TemporaryDirectory(prefix="agentdesk-probe-") as probe_root:
                argv = self.argv(Path(probe_root), "true", network=False)
                done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=20,
                                      env=scrubbed_env())
        except (OSError, subprocess.TimeoutExpired) as exc:
            return SandboxCheck(False, f"bubblewrap ({exe}) could not start: {exc}")
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
            return SandboxCheck(False, f"bubblewrap ({exe}) cannot create its namespaces here: {detail}. "
                                       f"It needs unprivileged user namespaces (kernel.unprivileged_userns_clone=1"
                                       f", or AppArmor allowing bwrap) or to run as root; package `{DEBIAN_PACKAGE}`")
        return SandboxCheck(True)

    def argv(self, workspace: Path, command: str, *, network: bool, info_fd: int | None = None) -> list[str]:
        """The full bwrap command line that runs ``command`` with bash inside ``workspace``.

        ``info_fd``: an inherited fd on which bwrap writes JSON naming the sandbox init's host pid.
        """
        root = str(workspace)
        args = [
            self.bwrap,
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/tmp",          # before the workspace bind: a workspace under /tmp stays visible
            "--bind", root, root,
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--die-with-parent",
            "--new-session",
            "--cap-drop", "ALL",
            "--chdir", root,
        ]
        if not network:
            args.append("--unshare-net")
        if info_fd is not None:
            args += ["--info-fd", str(info_fd)]
        args += ["--", self.bash, "--noprofile", "--norc", "-c", command]
        return args

    def plain_argv(self, command: str) -> list[str]:
        """How to run ``command`` without a sandbox (only when settings allow it)."""
        return [self.bash, "--noprofile", "--norc", "-c", command]
