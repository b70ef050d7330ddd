"""One look for every view: state colours, the monospace face, the spacing grid.

Each of the six agent states has one colour, used in the process table, the
status line and (through the same helpers) the Ask window header, and always
shown beside its word. Colours come in a light and a dark variant chosen
from the running palette, so the desktop follows the system theme; waiting
(a person is needed) is the one loud colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QWidget

from kernel.api import AgentState, short_number

from .theme import ADDED, ERROR, MUTED, REMOVED, is_dark
# one home for these (theme); re-exported for the views that use style
from .theme import SPACING as SPACING, mono_family as mono_family, mono_font as mono_font
from .theme import state_colour as state_colour
from .theme import STATES as _ASK_STATES

RESOURCES = Path(__file__).resolve().parent.parent / "resources"

STATES = tuple(AgentState)
# One table of state colours for the whole desktop: the Ask window's (theme) is the source.
MARKS = {state: glyph for state, (glyph, _l, _d) in _ASK_STATES.items()}
_ROLE_COLOURS: dict[str, tuple[str, str]] = {
    "added": ADDED,
    "removed": REMOVED,
    "hunk": ("#6639ba", "#c4a5ff"),
    "error": ERROR,
    "muted": MUTED,
    "waiting_bg": ("#fff1e6", "#4a2a10"),
}


def role_colour(role: str, palette: QPalette | None = None) -> QColor:
    light, dark = _ROLE_COLOURS[role]
    return QColor(dark if is_dark(palette) else light)


def state_text(state: AgentState) -> str:
    """The mark and the word, e.g. "◆ waiting" (never the colour alone)."""
    return f"{MARKS.get(state, '·')} {state}"


def state_html(state: AgentState, palette: QPalette | None = None) -> str:
    colour = state_colour(state, palette).name()
    weight = "font-weight:600;" if state is AgentState.WAITING else ""
    return f'<span style="color:{colour};{weight}">{state_text(state)}</span>'




ICON_INK = ("#5b6470", "#c8ced6")  # the icons' stroke in the SVG files, and its shade on a dark palette


def icon(name: str, palette: QPalette | None = None) -> QIcon:
    """An SVG icon from resources/icons (empty icon when missing), its ink lightened on a dark palette."""
    path = RESOURCES / "icons" / f"{name}.svg"
    if not path.exists():
        return QIcon()
    if not is_dark(palette):
        return QIcon(str(path))
    from PySide6.QtGui import QPixmap

    data = path.read_bytes().replace(ICON_INK[0].encode(), ICON_INK[1].encode())
    result = QIcon()
    for size in (24, 48):
        pixmap = QPixmap(size, size)
        if pixmap.loadFromData(data.replace(b'width="24" height="24"', f'width="{size}" height="{size}"'.encode()),
                               "SVG"):
            result.addPixmap(pixmap)
    return result


def app_icon() -> QIcon:
    return QIcon(str(RESOURCES / "agentdesk.svg"))


def grid(widget: QWidget, margins: int = 2, spacing: int = 1) -> None:
    """Apply the 4 px grid to a widget's layout (multiples of SPACING)."""
    layout = widget.layout()
    if layout is not None:
        m = margins * SPACING
        layout.setContentsMargins(m, m, m, m)
        layout.setSpacing(spacing * SPACING)


def short_tokens(n: int) -> str:
    """14,600 → "14.6k"; 1,250,000 → "1.3M"; small numbers as they are (rounded, never truncated)."""
    return short_number(n)


@dataclass(frozen=True)
class Metrics:
    """Sizes on the grid, in pixels."""

    row: int = 7 * SPACING
    button: int = 6 * SPACING


METRICS = Metrics()
