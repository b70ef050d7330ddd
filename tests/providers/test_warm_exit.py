"""A process stopping while its provider's SDK is still being imported ahead of the first request (the
warm-up) exits at once: the import runs in a daemon thread, not on the loop's executor, which ``asyncio.run``
joins at its end (issue 28: a kernel stopped during the warm-up waited for ``import anthropic``)."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

from kernel.providers.adapter import SdkAdapter

STARTED, GATE = threading.Event(), threading.Event()  # the slow SDK's import: begun; allowed to finish


class SlowSdk(SdkAdapter):
    name = "slow"
    sdk_modules = ("slow_sdk_for_warm_test",)

    def _make_client(self) -> Any:
        return object()


def test_a_loop_ending_during_the_warm_up_does_not_wait_for_the_import(tmp_path: Path) -> None:
    (tmp_path / "slow_sdk_for_warm_test.py").write_text(
        "from tests.providers.test_warm_exit import GATE, STARTED\nSTARTED.set()\nGATE.wait(60)\n")
    sys.path.insert(0, str(tmp_path))
    guard = threading.Timer(60, GATE.set)  # a broken change fails the assertion below instead of hanging
    guard.start()

    async def body() -> None:
        asyncio.ensure_future(SlowSdk(api_key="k").warm())
        await asyncio.to_thread(STARTED.wait, 60)  # the import is under way; the process now stops

    try:
        asyncio.run(body())
        ended_before_the_import = not GATE.is_set()
    finally:
        GATE.set()
        guard.cancel()
        sys.path.remove(str(tmp_path))
    assert STARTED.is_set() and ended_before_the_import
