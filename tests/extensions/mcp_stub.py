"""Stands for a test MCP server forked by ``mcp_zygote``: ``python -S mcp_stub.py SOCKET SCRIPT ARGS…``.

Standard library only, so it starts in milliseconds. It hands its stdin, stdout and stderr, the script and
its arguments, its environment and working folder to the zygote, which forks the server on them; then it
forwards SIGTERM, SIGINT and SIGHUP to the server and exits with the server's exit status (a server killed
by a signal: this stub kills itself with the same signal). Its own copies of stdin and stdout are closed,
so the kernel sees end-of-file exactly when the server's end closes.
"""

import json
import os
import signal
import socket
import sys


def main() -> None:
    path, argv = sys.argv[1], sys.argv[2:]
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    spec = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}
    socket.send_fds(conn, [json.dumps(spec).encode() + b"\n"], [0, 1, 2])
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    reader = conn.makefile("rb")
    pid = int(reader.readline() or b"0")
    if not pid:
        sys.exit("mcp_stub: the zygote did not start the server")

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    line = reader.readline()
    code = int(line) if line.strip() else 1
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main()
