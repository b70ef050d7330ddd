"""The one question asked before an agent is stopped from the keyboard: which agent, in words.

Ctrl+. in an Ask window or its lease dialog, Delete or the menu's Kill in the
process table: each opens this window-modal box naming the agent, with
Cancel as the default, so a key meant for something else stops nothing. The
painted Kill button and the Stop button, pressed on purpose with the mouse,
stop at once.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def confirm_stop(parent: QWidget, name: str, agent_id: str, stop: Callable[[], object]) -> QMessageBox:
    """Open (not exec) the question; ``stop`` runs only if the user presses "Stop <name>"."""
    box = QMessageBox(QMessageBox.Icon.Warning, f"Stop {name}?",
                      f"Stop {name} ({agent_id}) for good? Its work ends and its leases are revoked "
                      "(recorded in the ledger).", QMessageBox.StandardButton.Cancel, parent)
    button = box.addButton(f"Stop {name}", QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.buttonClicked.connect(lambda b: stop() if b is button else None)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
