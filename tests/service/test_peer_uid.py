"""A client of another uid is refused: by the socket's mode, and by the peer check on accept
even when the mode is loose (a socket-activation unit that made it 0644, say)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                reason="needs root and setpriv to run a client as another uid")

CLIENT = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(30)
try:
    s.connect(sys.argv[1])
except PermissionError:
    print("refused: permission"); sys.exit(0)
try:
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"hello","params":{"version":1}}\n')
    data = s.makefile("rb").readline()
except OSError:
    data = b""
print("refused: closed" if not data else "served: " + data.decode().strip())
"""


def as_nobody(path: str) -> str:
    done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
                           CLIENT, path], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def open_server(tmp_path):
    """A server whose folder others may enter (pytest's own tmp folders are 0700)."""
    from tests.service.conftest import ThreadServer

    folder = Path(tempfile.mkdtemp(prefix="agentdesk-uid-test-"))
    os.chmod(folder, 0o711)
    server = ThreadServer(tmp_path, folder / "k.sock")
    yield server
    server.close()
    shutil.rmtree(folder, ignore_errors=True)


def test_the_socket_is_owner_only(thread_server):
    mode = stat.S_IMODE(os.stat(thread_server.path).st_mode)
    assert mode == 0o600


@needs_root
def test_another_uid_is_refused_even_when_the_socket_mode_lets_it_in(open_server):
    path = str(open_server.path)
    assert as_nobody(path) == "refused: permission"       # 0600: the file system says no
    os.chmod(path, 0o666)                                 # a loose mode: the peer check must hold
    assert as_nobody(path) == "refused: closed"
    from tests.service.test_protocol_fuzz import still_serving

    still_serving(open_server.path)
