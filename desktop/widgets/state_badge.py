"""An agent's state as glyph, colour and word together; waiting is drawn as a filled, loud pill."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from kernel.api import AgentState

from ..theme import ERROR, is_dark, shade, state_colour, state_glyph


class StateBadge(QLabel):
    def __init__(self, state: AgentState = AgentState.IDLE, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = AgentState.IDLE
        self.set_state(state)

    def set_state(self, state: AgentState) -> None:
        self.state = state
        colour = state_colour(state, self.palette()).name()
        text = f"{state_glyph(state)} {state}"
        if state is AgentState.WAITING:
            ink = "#000000" if is_dark(self.palette()) else "#ffffff"
            self.setStyleSheet(f"QLabel {{ background-color: {colour}; color: {ink}; font-weight: bold;"
                               " border-radius: 8px; padding: 2px 8px; }")
        else:
            self.setStyleSheet(f"QLabel {{ color: {colour}; font-weight: bold; padding: 2px 0px; }}")
        self.setText(text)
        self.setAccessibleName(f"state: {state}")

    def set_detached(self) -> None:
        """The kernel went away: the agent's state is not known until it is back (``set_state`` then)."""
        self.setStyleSheet(f"QLabel {{ color: {shade(ERROR, self.palette())}; font-weight: bold; padding: 2px 0px; }}")
        self.setText("\u26a0 kernel detached")
        self.setAccessibleName("state: kernel detached")
