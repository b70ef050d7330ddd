"""The one "Raise budget…" dialog, opened from an Ask window and from the process table.

Window-modal, never application-modal: other agents' windows stay usable
while it is open. It offers ``suggest_budget`` (double the budget, and at
least 10,000 above what is used) and shows digits grouped ("400,000").
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QSpinBox, QWidget

from kernel.api import AgentInfo

from .wording import suggest_budget

MAX_BUDGET = 2_000_000_000


def open_raise_budget(parent: QWidget, info: AgentInfo, on_value: Callable[[int], object]) -> QInputDialog:
    """Open (not exec) the prompt for ``info``'s new budget; ``on_value`` gets the accepted number."""
    dialog = QInputDialog(parent)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setWindowTitle(f"Raise budget \u00b7 {info.name}")
    dialog.setLabelText(f"{info.name} ({info.id}) has used {info.used:,} of {info.budget:,} tokens.\n"
                        "New budget in tokens:")
    dialog.setInputMode(QInputDialog.InputMode.IntInput)
    dialog.setIntRange(max(1, info.used + 1), MAX_BUDGET)
    dialog.setIntStep(10_000)
    dialog.setIntValue(suggest_budget(info.used, info.budget))
    for spin in dialog.findChildren(QSpinBox):
        spin.setGroupSeparatorShown(True)  # "400,000", not "400000"
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.intValueSelected.connect(on_value)
    dialog.open()
    return dialog
