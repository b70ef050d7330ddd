"""Hostile bytes on the socket never take the kernel down: each gets an error or a closed
connection, and a well-behaved client is served right after (hypothesis drives it)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st

from kernel.service import protocol as p
from kernel.service.methods import METHODS

HELLO = b'{"jsonrpc":"2.0","id":"h","method":"hello","params":{"version":1}}\n'


def connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)  # a safety net against a hang, never a wait for time to pass
    sock.connect(str(path))
    return sock


def read_until(sock: socket.socket, rid: Any) -> dict[str, Any] | None:
    """Replies up to the one with ``rid``; None when the kernel closed the connection first."""
    stream = sock.makefile("rb")
    while True:
        try:
            line = stream.readline()
        except OSError:
            return None
        if not line:
            return None
        message = json.loads(line)
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0"
        if message.get("id") == rid:
            return message


def still_serving(path: Path) -> None:
    sock = connect(path)
    try:
        sock.sendall(HELLO + b'{"jsonrpc":"2.0","id":"ok","method":"ledger.last_seq","params":{}}\n')
        reply = read_until(sock, "ok")
        assert reply is not None and isinstance(reply["result"], int)
    finally:
        sock.close()


json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=15)
# what a codec-aware attacker sends: tags, known and unknown
tagged = st.fixed_dictionaries({"$t": st.sampled_from(["AgentInfo", "Grant", "Denial", "Settings", "LedgerFilter",
                                                      "AgentState", "Popen", "Lease"])}, optional={
    "$v": json_leaf, "duration_s": json_leaf, "reason": json_leaf, "actor": json_leaf, "id": json_leaf})
param_value = json_value | tagged
methods = st.sampled_from(sorted(set(METHODS) - {"wait"}) + ["hello", "subscribe", "status", "nope", ""])
requests = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0", 2]), "method": methods | json_leaf},
    optional={"id": json_leaf, "params": st.dictionaries(st.sampled_from(
        ["agent_id", "text", "seq", "seqs", "scope", "duration_s", "request_id", "decision", "filters", "limit",
         "before", "after", "budget", "name", "workspace", "since_seq", "version", "settings", "x"]),
        param_value, max_size=4) | json_value})
lines = st.one_of(
    requests.map(lambda r: json.dumps(r).encode()),
    st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" ")),
    json_value.map(lambda v: json.dumps(v).encode()),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.booleans(), st.lists(lines, min_size=1, max_size=6))
def test_fuzzed_lines_never_take_the_kernel_down(thread_server, greet, fuzz):
    sock = connect(thread_server.path)
    try:
        sock.sendall((HELLO if greet else b"") + b"\n".join(fuzz) + b"\n"
                     + b'{"jsonrpc":"2.0","id":"end","method":"hello","params":{"version":1}}\n')
        reply = read_until(sock, "end")
        assert reply is None or "result" in reply or "error" in reply
    finally:
        sock.close()
    still_serving(thread_server.path)


def test_each_kind_of_bad_input_gets_its_error(thread_server):
    sock = connect(thread_server.path)
    try:
        sock.sendall(b'{"jsonrpc":"2.0","id":1,"method":"agents.list"}\n')
        assert read_until(sock, 1)["error"]["code"] == p.NOT_HELLO
        sock.sendall(b'{"jsonrpc":"2.0","id":2,"method":"hello","params":{"version":99}}\n')
        assert read_until(sock, 2)["error"]["code"] == p.BAD_VERSION
        sock.sendall(HELLO)
        read_until(sock, "h")
        sock.sendall(b'{not json\n{"jsonrpc":"2.0","id":3,"method":"nope"}\n')
        assert read_until(sock, 3)["error"]["code"] == p.METHOD_NOT_FOUND
        sock.sendall(b'{"jsonrpc":"2.0","id":4,"method":"agents.get","params":{"agent_id":5}}\n')
        assert read_until(sock, 4)["error"]["code"] == p.INVALID_PARAMS
        sock.sendall(b'{"jsonrpc":"2.0","id":5,"method":"agents.get","params":{"agent_id":"a404"}}\n')
        err = read_until(sock, 5)["error"]
        assert err["code"] == p.KERNEL_ERROR and err["data"]["type"] == "UnknownAgent"
        sock.sendall(b'{"jsonrpc":"2.0","id":6,"method":"leases.resolve","params":{"request_id":1,'
                     b'"decision":{"$t":"Grant","duration_s":"forever"}}}\n')
        assert read_until(sock, 6)["error"]["code"] == p.INVALID_PARAMS
        sock.sendall(b'{"jsonrpc":"2.0","id":7,"method":"agents.spawn","params":{"name":{"$t":"Popen"}}}\n')
        assert read_until(sock, 7)["error"]["code"] == p.INVALID_PARAMS
    finally:
        sock.close()
    still_serving(thread_server.path)


def test_a_line_over_the_limit_closes_that_connection_only(thread_server):
    other = connect(thread_server.path)
    other.sendall(HELLO)
    read_until(other, "h")
    sock = connect(thread_server.path)
    try:
        sock.sendall(HELLO)
        read_until(sock, "h")
        try:
            sock.sendall(b'{"jsonrpc":"2.0","id":1,"method":"agents.list","params":{"x":"' + b"a" * (p.MAX_LINE + 10))
        except OSError:
            pass  # the kernel may close before it has read it all
        reply = read_until(sock, None)
        assert reply is None or reply["error"]["code"] == p.INVALID_REQUEST
        assert read_until(sock, "never") is None  # and the connection is closed
    finally:
        sock.close()
    other.sendall(b'{"jsonrpc":"2.0","id":"ok","method":"agents.list","params":{}}\n')
    assert read_until(other, "ok")["result"] == []  # the other client is served as before
    other.close()
