"""The desktop's colour table and faces: one colour per agent state, and the colour pairs.

One colour per agent state, used everywhere beside its word (never colour
alone). Each has a light- and a dark-palette shade chosen for contrast on
that background; waiting (a person is needed) is the one loud colour. The
Ask window, the lease dialog and the tool cards use it directly; ``style``
builds the main window's helpers on the same table. (Was ``ask_style.py``:
it serves every window, not just Ask.)
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette

from kernel.api import AgentState

# state: (glyph, light-palette colour, dark-palette colour)
STATES: dict[AgentState, tuple[str, str, str]] = {
    AgentState.RUNNING: ("\u25cf", "#2e7d32", "#81c784"),
    AgentState.WAITING: ("\u25c6", "#d84315", "#ffab40"),
    AgentState.PAUSED: ("\u2016", "#3f51b5", "#9fa8da"),
    AgentState.IDLE: ("\u25cb", "#616161", "#bdbdbd"),
    AgentState.INTERRUPTED: ("\u25d1", "#6a1b9a", "#ce93d8"),
    AgentState.KILLED: ("\u2715", "#5d4037", "#bcaaa4"),
    AgentState.FAILED: ("\u25b2", "#c62828", "#ef9a9a"),
}
ERROR = ("#c62828", "#ef9a9a")
ADDED = ("#1b5e20", "#a5d6a7")
REMOVED = ("#b71c1c", "#ef9a9a")
ADDED_BG = ("#e8f5e9", "#1b3320")
REMOVED_BG = ("#ffebee", "#3a1c1c")
MUTED = ("#616161", "#b0b0b0")
SPACING = 4  # the grid: every margin and gap is a multiple of this


def is_dark(palette: QPalette | None = None) -> bool:
    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def shade(pair: tuple[str, str], palette: QPalette | None = None) -> str:
    """The light or dark member of a colour pair, for the current palette."""
    return pair[1] if is_dark(palette) else pair[0]


def state_colour(state: AgentState, palette: QPalette | None = None) -> QColor:
    _, light, dark = STATES.get(state, STATES[AgentState.IDLE])
    return QColor(shade((light, dark), palette))


def state_glyph(state: AgentState) -> str:
    return STATES.get(state, STATES[AgentState.IDLE])[0]


def mono_font(point_delta: int = 0) -> QFont:
    """The fixed-pitch face for paths, scopes, tool names and code, at the application's size
    (DejaVu Sans Mono where the system names none that is really fixed-pitch)."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if font.family() in ("", "Monospace") or not QFontDatabase.isFixedPitch(font.family()):
        font = QFont("DejaVu Sans Mono")
    font.setStyleHint(QFont.StyleHint.Monospace)
    base = QGuiApplication.font().pointSize()
    if base > 0:
        font.setPointSize(max(6, base + point_delta))
    return font


def mono_family() -> str:
    return mono_font().family()
