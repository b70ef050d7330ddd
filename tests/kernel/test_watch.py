"""A kernel that watches its workspaces records other programs' edits as ``outside``
and announces them like any other entry."""

from __future__ import annotations

import asyncio

from kernel.core.events import LedgerAppended
from kernel.compose import build_kernel
from kernel.providers.scripted import ScriptedProvider
from kernel.config.settings import Settings
from ledger import Ledger

from .conftest import run


def test_outside_edits_are_recorded_and_announced(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("mine\n")
    with Ledger(tmp_path / "l.db") as ledger:
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: ScriptedProvider(),
                        snapshot_dir=tmp_path / "snapshots", watch_workspaces=True)
        seen: list = []
        kernel.subscribe(lambda e: seen.append(e.entry) if isinstance(e, LedgerAppended) else None)

        async def go():
            kernel.agents.spawn("t")
            [watcher] = kernel._watchers.running()
            while watcher._observer is None:  # the baseline snapshot runs in a worker thread
                await asyncio.sleep(0)
            (ws / "notes.txt").write_text("an editor saved this\n")
            assert await asyncio.to_thread(watcher.wait_seen, "notes.txt", 10)
            watcher.flush()
            await kernel.aclose()

        run(go())
        [outside] = ledger.page(actor="outside")
        assert outside.path == str(ws / "notes.txt") and outside.before is not None
        assert ledger.blob(outside.after) == b"an editor saved this\n"
        assert outside.seq in [e.seq for e in seen]
