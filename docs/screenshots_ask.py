"""Offscreen screenshots of the Ask window and the lease dialog, from a real kernel.

The scene is played, not painted: a scripted provider drives a real kernel
(real ledger and file tools in a temporary workspace, manual clock), the lease
dialogs are answered by clicking their buttons, and the windows are grabbed
as they then stand. ``docs/make_screenshots.py`` calls ``render_ask_screens``;
run this file alone with ``QT_QPA_PLATFORM=offscreen python docs/screenshots_ask.py OUTDIR``.
Fonts come from fontconfig (Debian: fonts-dejavu-core).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TODO_OLD = "# Todo\n\n- [ ] call the bank\n- [ ] water the plants\n"
TODO_NEW = ("# Todo\n\n- [x] call the bank\n- [ ] water the plants\n- [ ] renew the passport\n"
            "- [ ] book the dentist\n")
FINAL = ("Done \u2014 **notes/todo.md** now holds both lists. What changed:\n\n"
         "## Merged\n\n- *call the bank* is checked off\n- two items came over from `old-todo.md`\n\n"
         "```markdown\n- [ ] renew the passport\n- [ ] book the dentist\n```\n\n"
         "I left `notes/old-todo.md` in place, as you asked.")


def _spin(app, until: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Process Qt events (which runs the qasync loop) until ``until()`` holds."""
    import time

    from PySide6.QtCore import QEventLoop

    deadline = time.monotonic() + timeout_s
    while not until():
        if time.monotonic() > deadline:
            raise TimeoutError("the screenshot scene did not reach its next step")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)


def render_ask_screens(outdir: str | os.PathLike[str], *, dark: bool = False) -> list[Path]:
    """Write ask_window.png and lease_dialog.png into ``outdir`` (``*_dark.png`` on a dark palette)."""
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    old_palette = app.palette()
    if dark:
        app.setPalette(_dark_palette())
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    previous = asyncio.events._get_running_loop()
    loop = qasync.QEventLoop(app, already_running=True)
    asyncio.set_event_loop(loop)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            return _scene(app, Path(tmp), out, "_dark" if dark else "")
    finally:
        app.setPalette(old_palette)
        loop._QEventLoop__is_running = False  # type: ignore[attr-defined]
        loop._after_run_forever()
        asyncio.events._set_running_loop(previous)
        loop.close()


def _dark_palette():
    from PySide6.QtGui import QColor, QPalette

    pal = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
                         (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.AlternateBase, "#2b2b2b"),
                         (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.Button, "#3a3a3a"),
                         (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#3d7bd9"),
                         (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.PlaceholderText, "#8a8a8a")):
        pal.setColor(role, QColor(colour))
    return pal


def _scene(app, tmp: Path, out: Path, suffix: str = "") -> list[Path]:
    from desktop.ask_window import AskWindow
    from desktop.bridge import EventBridge
    from desktop.lease_dialog import LeaseDialogs
    from kernel.core.clock import ManualClock
    from kernel.compose import build_kernel
    from kernel.providers.scripted import ScriptedProvider, reply
    from kernel.config.settings import Settings
    from ledger import Ledger

    ws = tmp / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "todo.md").write_text(TODO_OLD)
    (ws / "notes" / "old-todo.md").write_text("- [ ] renew the passport\n- [ ] book the dentist\n")
    clock = ManualClock()
    ledger = Ledger(tmp / "ledger.db", clock=clock.now)
    provider = ScriptedProvider().script(
        reply("I'll merge the two todo files into one, then remove the old one.",
              tools=(("fs_delete", {"path": "notes/old-todo.md"}),), usage=(9_800, 310)),
        reply("Understood \u2014 I'll keep `old-todo.md` and only write the merged list.",
              tools=(("fs_write", {"path": "notes/todo.md", "content": TODO_NEW}),), usage=(10_400, 420)),
        reply(None, tools=(("fs_edit", {"path": "notes/todo.md", "old": "# Todo", "new": "# Todo (merged)"}),),
              usage=(10_900, 150)),
        reply(FINAL, usage=(11_200, 320), chunks=12),
    )
    settings = Settings(user_name="Ada", workspace=str(ws))
    kernel = build_kernel(ledger=ledger, settings=settings, providers=lambda _n: provider, clock=clock, attached=True)
    bridge = EventBridge(kernel)
    windows: dict[str, AskWindow] = {}
    dialogs = LeaseDialogs(kernel, bridge, lambda agent_id, _activate=False: windows.get(agent_id),
                           grant_delay_ms=0)  # a scripted scene answers at once
    info = kernel.agents.spawn("scribe", provider="scripted", model="scripted")
    window = AskWindow(kernel, info.id, bridge, lambda: None)
    windows[info.id] = window
    window.show()
    paths: list[Path] = []
    try:
        window.input.setPlainText("tidy the notes folder: merge old-todo.md into todo.md")
        window.send()
        _spin(app, lambda: dialogs.request_for(info.id) is not None)
        dialogs.bring_up(info.id).deny()
        _spin(app, lambda: dialogs.request_for(info.id) is not None)
        dialog = dialogs.bring_up(info.id)
        clock.advance(18)  # the countdown shows 1:42, as in the sketch
        dialog.update_countdown()
        dialog.adjustSize()
        _spin(app, lambda: True)
        paths.append(out / f"lease_dialog{suffix}.png")
        dialog.grab().save(str(paths[-1]))
        dialog.grant(300.0)
        _spin(app, lambda: kernel.agents.get(info.id).state == "idle")
        cards = list(window.transcript.cards.values())
        cards[1].toggle()  # the fs_write card, open on its diff
        _spin(app, lambda: not window.transcript.current or not window.transcript.current.pending)
        window.transcript.verticalScrollBar().setValue(0)
        _spin(app, lambda: True)
        paths.append(out / f"ask_window{suffix}.png")
        window.grab().save(str(paths[-1]))
    finally:
        closing = asyncio.ensure_future(kernel.aclose())
        _spin(app, closing.done)
        bridge.close()
        window.close()
        window.deleteLater()
        ledger.close()
    return paths


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"
    for path in render_ask_screens(target) + render_ask_screens(target, dark=True):
        print(path)
