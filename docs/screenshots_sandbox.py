"""The sandbox screen, rendered by ``make_screenshots.py``: commands fall back to snapshots.

A workspace where no overlay can be staged (a file stands where the staging
folder beside it would go): the desktop asks its kernel how shell commands
are captured, and the status bar says, once, that they fall back to
snapshots and why; the status line's tooltip keeps the mode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from screenshots_loop import settled


async def sandbox_scenario(out: Path, tmp: Path, until: Callable[..., Any], save: Callable[[Any, Path], None]) -> list[Path]:

    from desktop.app import build_desktop
    from kernel.core.clock import ManualClock
    from kernel.config.settings import Settings

    ws = tmp / "projects" / "site"
    ws.mkdir(parents=True)
    (ws.parent / ".agentdesk-overlay").write_text("not a folder")
    desk = build_desktop(tmp / "home", providers=lambda name: None, clock=ManualClock(),
                         settings=Settings(user_name="Ada", workspace=str(ws)), grant_delay_ms=0)
    desk.window.show()
    await desk.window.show_sandbox_mode()
    await until(lambda: desk.window.status.counts.sandbox is not None)
    await settled(0.1)
    path = out / "sandbox-fallback.png"
    save(desk.window, path)
    desk.window._done = True
    await desk.kernel.aclose()
    desk.bridge.close()
    desk.ledger.close()
    return [path]
