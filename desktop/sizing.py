"""Window sizes from the screen they open on, so every window fits a 1024×700 screen.

The main window used to open at a fixed 1280×760, taller and wider than a
1024×700 screen (measured 2025-06: its title bar and status line were off
screen). ``fit`` is the pure rule (preferred size, clipped to the screen's
available geometry less a margin for the window frame); ``fit_to_screen``
applies it to a widget with the geometry of the screen it is on.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTableView, QWidget

FRAME_MARGIN = (16, 48)  # width and height a window manager's frame and title bar may take


def fit(preferred: tuple[int, int], available: tuple[int, int], margin: tuple[int, int] = FRAME_MARGIN,
        minimum: tuple[int, int] = (320, 240)) -> tuple[int, int]:
    """``preferred`` clipped to ``available`` less ``margin``, never below ``minimum`` (nor above the screen)."""
    out = []
    for want, room, frame, least in zip(preferred, available, margin, minimum):
        inner = max(1, room - frame)
        out.append(max(min(want, inner), min(least, room)))
    return out[0], out[1]


def available_geometry(widget: QWidget | None = None) -> QRect:
    """The screen's usable area (without panels) for ``widget``, or the primary screen's."""
    screen = widget.screen() if widget is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1024, 700)


def fit_to_screen(widget: QWidget, preferred: tuple[int, int]) -> QSize:
    """Resize ``widget`` to ``preferred`` clipped to its screen's available geometry."""
    area = available_geometry(widget)
    w, h = fit(preferred, (area.width(), area.height()))
    widget.resize(w, h)
    return QSize(w, h)


def show_rows(table: QTableView, rows: int) -> None:
    """Make ``table`` at least tall enough for its header and ``rows`` rows (a splitter may give it more)."""
    header = table.horizontalHeader().sizeHint().height()
    table.setMinimumHeight(header + rows * table.verticalHeader().defaultSectionSize() + 2 * table.frameWidth())


def keep_on_screen(widget: QWidget) -> None:
    """Move a shown window so its frame lies on its screen: a window centred on a wider parent (the Run window
    on the Automations window) was placed partly off a 1024×700 screen."""
    area, frame = available_geometry(widget), widget.frameGeometry()
    x = min(max(frame.left(), area.left()), max(area.left(), area.right() + 1 - frame.width()))
    y = min(max(frame.top(), area.top()), max(area.top(), area.bottom() + 1 - frame.height()))
    if (x, y) != (frame.left(), frame.top()):
        widget.move(x, y)
