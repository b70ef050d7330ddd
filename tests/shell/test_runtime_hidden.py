"""The kernel's socket folder and its whole $XDG_RUNTIME_DIR are hidden from commands wherever they are.

Real bubblewrap, real listening sockets, real commands through shell_exec.
The runtime folder is placed inside a folder the sandbox shows read-only
(a Settings folder, and a folder right under /var where this runs as root),
and $AGENTDESK_HOME is deep enough that the kernel's socket falls back into
that runtime folder (``kernel.service.home.socket_path``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from kernel.sandbox.bwrap import runtime_folders
from kernel.config.home import socket_path
from kernel.config.settings import Settings

from .conftest import Env

PROBE = ("import socket,sys\nfor p in sys.argv[1:]:\n s=socket.socket(socket.AF_UNIX)\n"
         " try:\n  s.connect(p); print('CONNECTED', p)\n except OSError as e: print('refused', p, e)\n")


def _parents() -> list[str]:
    out = ["settings"]
    if os.access("/var", os.W_OK):
        out.append("/var")
    return out


@pytest.fixture(params=_parents())
def shown(request: pytest.FixtureRequest) -> Iterator[tuple[Path, tuple[str, ...]]]:
    """A folder commands see read-only, and the Settings folders that show it: one named in Settings,
    or one right under /var (a system folder, shown with the system)."""
    in_settings = request.param == "settings"
    top = Path(tempfile.mkdtemp(prefix="agentdesk-shown-", dir="/var/tmp" if in_settings else request.param))
    yield top, (str(top),) if in_settings else ()
    shutil.rmtree(top, ignore_errors=True)


def test_a_runtime_folder_under_a_shown_folder_is_hidden_with_the_kernel_socket(
        env: Env, shown: tuple[Path, tuple[str, ...]], tmp_path: Path) -> None:
    shown_folder, showing = shown
    runtime = shown_folder / "run" / "user"
    runtime.mkdir(parents=True, mode=0o700)
    (shown_folder / "plain.txt").write_text("SHOWN-plain")
    adh = tmp_path / ("deep" * 30)  # too long for a socket address beside it: the socket moves to the runtime folder
    adh.mkdir()
    environ = {"HOME": str(tmp_path / "home"), "PATH": "/usr/local/bin:/usr/bin:/bin", "AGENTDESK_HOME": str(adh),
               "XDG_RUNTIME_DIR": str(runtime)}
    (tmp_path / "home").mkdir()
    kernel_sock = socket_path(adh, environ)
    assert kernel_sock.parent == runtime / "agentdesk"
    kernel_sock.parent.mkdir(mode=0o700)
    assert set(runtime_folders(environ)) == {runtime / "agentdesk", runtime}
    paths = [kernel_sock, runtime / "bus"]
    servers = []
    for path in paths:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.listen(4)
        servers.append(server)
    (env.root / "probe.py").write_text(PROBE)
    python = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    folders = [os.path.realpath(sys.base_prefix), *env.settings.sandbox_read_only]
    settings = Settings(sandbox_read_only=(*folders, *showing))
    command = (f"{python} probe.py {' '.join(map(str, paths))}; cat {shown_folder}/plain.txt; echo; "
               f"ls -A {runtime}; echo listed=$?; echo done")
    try:
        out, _ = asyncio.run(env.run({"command": command}, env.tool(environ=environ, settings=settings)))
    finally:
        for server in servers:
            server.close()
    assert "done" in out.content and "SHOWN-plain" in out.content, out.content  # the folder itself is shown
    assert "CONNECTED" not in out.content and out.content.count("refused") == 2, out.content
    assert "agentdesk" not in out.content.split("listed=")[0].split("SHOWN-plain")[1]  # the runtime folder is empty


def test_a_runtime_folder_that_would_hide_too_much_is_left_out(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for runtime in ("/", "/var", "/tmp", str(tmp_path), str(home), "relative/run"):
        environ = {"HOME": str(home), "AGENTDESK_HOME": str(tmp_path / "adh"), "XDG_RUNTIME_DIR": runtime}
        assert Path(runtime) not in runtime_folders(environ)
        assert tmp_path / "adh" in runtime_folders(environ)  # the socket's folder (the home itself) always is
