"""What a same-uid client on the socket may claim: it acts as the user, never as an agent, an
automation or the kernel (the ledger's ``actor`` of what it does says ``user``)."""

from __future__ import annotations

import json
from typing import Any

from ledger import AgentKill

from .test_protocol_fuzz import HELLO, connect, read_until


def _call(sock: Any, rid: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    sock.sendall(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n")
    reply = read_until(sock, rid)
    assert reply is not None
    return reply


def test_a_client_cannot_act_in_the_name_of_an_agent_or_the_kernel(thread_server):
    sock = connect(thread_server.path)
    try:
        sock.sendall(HELLO)
        assert read_until(sock, "h") is not None
        victim = _call(sock, "s1", "agents.spawn", {"name": "victim"})["result"]
        other = _call(sock, "s2", "agents.spawn", {"name": "other"})["result"]
        forged = _call(sock, "k1", "agents.kill", {"agent_id": victim["id"], "by": other["id"]})
        assert "error" in forged and "by" in forged["error"]["message"]
        forged = _call(sock, "k2", "agents.kill", {"agent_id": victim["id"], "by": "kernel"})
        assert "error" in forged
        assert not [e for e in thread_server.ledger.page(kind="agent.kill")]
        honest = _call(sock, "k3", "agents.kill", {"agent_id": victim["id"], "by": "user"})
        assert "result" in honest
        [kill] = [e for e in thread_server.ledger.page(kind="agent.kill") if isinstance(e, AgentKill)]
        assert kill.actor == "user"
    finally:
        sock.close()


def test_a_client_cannot_grant_a_lease_without_an_end(thread_server):
    sock = connect(thread_server.path)
    try:
        sock.sendall(HELLO)
        assert read_until(sock, "h") is not None
        agent = _call(sock, "s1", "agents.spawn", {"name": "greedy"})["result"]
        for rid, raw_duration in (("g1", "1e12"), ("g2", "Infinity"), ("g3", "NaN"), ("g4", "-5")):
            line = (f'{{"jsonrpc":"2.0","id":"{rid}","method":"leases.grant","params":{{"agent_id":"{agent["id"]}",'
                    f'"scope":"*","duration_s":{raw_duration}}}}}\n')
            sock.sendall(line.encode())
            reply = read_until(sock, rid)
            assert reply is not None and "error" in reply, (raw_duration, reply)
        assert thread_server.kernel.leases.list(agent["id"]) == []
        assert not thread_server.ledger.page(kind="lease.grant")
        ok = _call(sock, "g5", "leases.grant", {"agent_id": agent["id"], "scope": "fs.read", "duration_s": 8 * 3600})
        assert "result" in ok  # a working day is the longest lease there is
    finally:
        sock.close()


def test_a_client_cannot_deny_in_the_name_of_an_automation(thread_server):
    sock = connect(thread_server.path)
    try:
        sock.sendall(HELLO)
        assert read_until(sock, "h") is not None
        forged = _call(sock, "r1", "leases.resolve", {"request_id": 1, "decision": {
            "$t": "Denial", "reason": "policy", "by": "automation:nightly"}})
        assert "error" in forged and "by" in forged["error"]["message"]
    finally:
        sock.close()
