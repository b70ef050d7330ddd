"""Tokens used against the budget: a bar and "41,200 / 200,000 tokens" beside it."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from ..wording import format_tokens


class BudgetBar(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar(self)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(10)
        self.bar.setMinimumWidth(120)
        self.label = QLabel(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        caption = QLabel("budget", self)
        layout.addWidget(caption)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.label)

    def set_usage(self, used: int, budget: int) -> None:
        self.bar.setRange(0, max(1, budget))
        self.bar.setValue(min(used, budget))
        self.label.setText(format_tokens(used, budget))
