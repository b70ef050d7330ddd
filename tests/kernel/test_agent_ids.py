"""Agent ids are dense (a1, a2, a3 …) and unique across processes sharing a home."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from kernel.leases.approver import Grant
from kernel.compose import build_kernel
from kernel.providers.scripted import ScriptedProvider, reply
from kernel.config.settings import Settings
from ledger import AgentSpawn, Ledger

from .conftest import run

PER_PROCESS = 30


def test_ids_are_dense_whatever_else_the_ledger_records(make_env):
    env = make_env()
    first = env.kernel.agents.spawn()
    env.kernel.leases.grant(first.id, "fs.read", 60)  # entries between spawns no longer show in ids
    env.kernel.leases.grant(first.id, "fs.write", 60)
    second = env.kernel.agents.spawn("scribe")
    env.kernel.agents.kill(second.id)
    third = env.kernel.agents.spawn()
    assert [first.id, second.id, third.id] == ["a1", "a2", "a3"]
    assert (first.name, second.name, third.name) == ("agent-1", "scribe", "agent-3")
    spawns = env.ledger.page(kind="agent.spawn")
    assert sorted(e.actor for e in spawns) == ["a1", "a2", "a3"]


def test_a_ledger_numbered_the_old_way_continues_after_its_highest_id(make_env):
    env = make_env()
    for old in ("a1", "a2", "a3", "a40", "a48"):  # ids that followed ledger seqs
        env.ledger.append(AgentSpawn(actor=old, name=old, provider="scripted", model="m", budget=10, workspace="/"))
    env.ledger.append(AgentSpawn(actor="a7x", name="odd", provider="scripted", model="m", budget=10, workspace="/"))
    assert env.kernel.agents.spawn().id == "a49"
    assert env.kernel.agents.spawn().id == "a50"


def test_an_agent_with_a_dense_id_runs_and_records_under_it(make_env):
    env = make_env()
    env.provider.script(reply(tools=(("fs_list", {}),)), reply("done"))
    env.approver.will(Grant(60.0))
    agent = env.kernel.agents.spawn()

    async def go() -> None:
        env.kernel.agents.send(agent.id, "look")
        await env.kernel.agents.wait(agent.id)

    run(go())
    assert agent.id == "a1" and env.kernel.agents.get("a1").state == "idle"
    assert {e.actor for e in env.ledger.page(kind="tool")} == {"a1"}


def _spawn_many(path: str, workspace: str, start, out) -> None:  # runs in a child process
    ledger = Ledger(path)
    kernel = build_kernel(ledger=ledger, settings=Settings(workspace=workspace), providers=lambda _n: ScriptedProvider())
    start.wait()
    ids = []
    for i in range(PER_PROCESS):
        ids.append(kernel.agents.spawn().id)
        if i % 3 == 0:  # other entries land between spawns, as they do in a real home
            kernel.leases.grant(ids[-1], "fs.read", 60)
    ledger.close()
    out.put(ids)


def test_two_processes_spawning_at_once_get_distinct_dense_ids(tmp_path: Path):
    path, ws = tmp_path / "ledger.db", tmp_path / "ws"
    ws.mkdir()
    Ledger(path).close()  # created (and migrated) before the race
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(2), ctx.Queue()
    children = [ctx.Process(target=_spawn_many, args=(str(path), str(ws), start, out)) for _ in range(2)]
    for child in children:
        child.start()
    got = [out.get(timeout=120) for _ in children]
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    every = got[0] + got[1]
    assert len(set(every)) == len(every) == 2 * PER_PROCESS
    assert sorted(int(i[1:]) for i in every) == list(range(1, 2 * PER_PROCESS + 1))
    assert all(ids == sorted(ids, key=lambda i: int(i[1:])) for ids in got)  # each process sees its own rise
    with Ledger(path) as ledger:
        assert sorted(e.actor for e in ledger.page(kind="agent.spawn", limit=1000)) == sorted(every)
