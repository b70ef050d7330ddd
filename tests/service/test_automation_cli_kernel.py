"""``agentdesk automation`` with the home's kernel running goes through it: an added or paused automation
is the kernel's own change (its scheduler is woken, its clients hear of it), and ``run`` is the kernel's run,
an agent in its process table that ``agentdesk kill`` can stop. A real kernel process, the loopback provider."""

from __future__ import annotations

import asyncio

from kernel.cli import main
from kernel.core.events import AutomationsChanged
from kernel.service.client import RemoteKernel
from tests.fakes import Text, Turn


def test_add_pause_and_run_go_through_the_running_kernel(kernel_proc, agentdesk_home, srv, tmp_path, capsys):
    ws = tmp_path / "ws"
    ws.mkdir()

    async def body() -> None:
        k = await RemoteKernel.for_home(agentdesk_home, client="test").start()
        heard: asyncio.Queue[str] = asyncio.Queue()
        k.subscribe(lambda e: heard.put_nowait(e.automation) if isinstance(e, AutomationsChanged) else None)
        try:
            assert await asyncio.to_thread(main, ["automation", "add", "Digest", "--objective", "say done",
                                                  "--schedule", "every 1d", "--workspace", str(ws)]) == 0
            aid = capsys.readouterr().out.split()[1].rstrip(":")
            assert await asyncio.wait_for(heard.get(), timeout=30) == aid  # the kernel made the change
            assert [v.automation.id for v in k.automations.list()] == [aid]

            srv.script(Turn(parts=(Text("done"),)))
            assert await asyncio.to_thread(main, ["automation", "run", aid]) == 0
            out, err = capsys.readouterr()
            assert out.startswith("succeeded")
            agent = err.split("running as agent ")[1].split()[0]
            assert agent in {a.id for a in k.agents.list()}  # the kernel's process table: ps shows it, kill stops it
            [record] = k.automations.runs(aid)
            assert (record.agent, record.outcome) == (agent, "succeeded")
            while not heard.empty():
                heard.get_nowait()

            assert await asyncio.to_thread(main, ["automation", "pause", aid]) == 0
            assert await asyncio.wait_for(heard.get(), timeout=30) == aid
            assert not k.automations.get(aid).enabled
        finally:
            await k.aclose()

    asyncio.run(asyncio.wait_for(body(), timeout=120))
