"""The kernel serves first and builds after (issue 28): its socket answers ``hello`` before the kernel exists,
holds every other request until the kernel is attached (a ``ps`` meanwhile lists the agents restored from the
record), and a stop while the kernel's modules are still importing ends the build at once."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

from kernel.compose import open_home
from kernel.providers.scripted import ScriptedProvider
from kernel.service import protocol as p
from kernel.service.server import KernelServer
from kernel.service.start_build import build_after_serving

GATE = threading.Event()  # the stand-in for a slow import waits on it (released by the test that set it up)


def _home_with_agents(tmp_path: Path) -> tuple[Path, list[str]]:
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir(mode=0o700)
    ws.mkdir()
    (home / "settings.json").write_text(json.dumps({"workspace": str(ws)}))

    async def record() -> list[str]:
        built = open_home(home, out_of_process=False, providers=lambda _name: ScriptedProvider())
        try:
            return [built.kernel.agents.spawn(f"task {n}", workspace=str(ws)).id for n in range(2)]
        finally:
            await built.aclose()

    return home, asyncio.run(record())


async def _call(writer: asyncio.StreamWriter, rid: int, method: str, params: dict[str, Any] | None = None) -> None:
    writer.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}).encode() + b"\n")
    await writer.drain()


async def _answer(reader: asyncio.StreamReader) -> Any:
    return json.loads(await reader.readline())


def test_hello_is_answered_before_the_kernel_is_built_and_a_ps_meanwhile_lists_the_restored_agents(
        tmp_path: Path) -> None:
    home, ids = _home_with_agents(tmp_path)

    async def body() -> tuple[Any, Any, Any]:
        server = KernelServer(None, home / "kernel.sock")
        await server.start()
        reader, writer = await asyncio.open_unix_connection(str(server.path))
        try:
            await _call(writer, 1, "hello", {"version": p.VERSION, "client": "test"})
            greeted = await _answer(reader)  # no kernel yet: accepting anyway
            built_before = server.kernel
            await _call(writer, 2, "agents.list")  # held until the kernel (and its restored agents) is there
            built = await build_after_serving(home, server.stopped)
            assert built is not None
            server.attach(built.kernel)
            listed = await _answer(reader)
            await built.aclose()
            return greeted, built_before, listed
        finally:
            writer.close()
            await server.stop()

    greeted, built_before, listed = asyncio.run(asyncio.wait_for(body(), 60))
    assert built_before is None and greeted["result"]["version"] == p.VERSION
    assert sorted(agent["id"] for agent in listed["result"]) == sorted(ids)


def test_a_stop_while_the_kernel_still_imports_ends_the_build_and_closes_held_requests(tmp_path: Path) -> None:
    (tmp_path / "slow_kernel_module.py").write_text(
        "from tests.service.test_start_build import GATE\nGATE.wait(60)\n")  # an import that takes its time
    sys.path.insert(0, str(tmp_path))
    home = tmp_path / "home"
    home.mkdir(mode=0o700)

    async def body() -> tuple[Any, Any, bytes]:
        server = KernelServer(None, home / "kernel.sock")
        await server.start()
        building = asyncio.ensure_future(build_after_serving(home, server.stopped, modules=("slow_kernel_module",)))
        held_r, held_w = await asyncio.open_unix_connection(str(server.path))
        stop_r, stop_w = await asyncio.open_unix_connection(str(server.path))
        try:
            await _call(held_w, 1, "hello", {"version": p.VERSION, "client": "test"})
            await _answer(held_r)
            await _call(held_w, 2, "agents.list")  # waits for a kernel that will never come
            await _call(stop_w, 1, "hello", {"version": p.VERSION, "client": "test"})
            await _answer(stop_r)
            await _call(stop_w, 2, "shutdown")  # answered before any kernel exists
            stopped = await _answer(stop_r)
            built = await building  # at once, though the import thread still waits on GATE
            await server.stop()
            return stopped, built, await held_r.read()
        finally:
            held_w.close()
            stop_w.close()

    try:
        stopped, built, rest = asyncio.run(asyncio.wait_for(body(), 60))
    finally:
        GATE.set()
        sys.path.remove(str(tmp_path))
    assert stopped["result"] is True and built is None
    assert rest == b""  # the held request's connection closed unanswered


def test_a_kernel_that_cannot_be_built_after_listening_says_why_and_leaves_no_socket(tmp_path: Path) -> None:
    from .conftest import KernelProcess, clean_env

    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "ledger.db").mkdir()  # the ledger cannot be opened: found only after the socket listens
    kernel = KernelProcess(home, clean_env(home))
    kernel.start(checked=False)  # the readiness line came first
    assert kernel.proc.wait(timeout=60) != 0
    assert kernel.proc.stderr is not None and b"agentdesk kernel:" in kernel.proc.stderr.read()
    assert not kernel.socket.exists()  # a client is told no kernel listens, not left waiting
