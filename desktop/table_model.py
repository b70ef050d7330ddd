"""The part every flat table model here shares: rows from a list, fixed named columns.

Subclasses set ``columns`` and implement ``row_items()``; this class answers Qt's
row count, column count and header questions from them.
"""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt


class RowsTableModel(QAbstractTableModel):
    columns: tuple[str, ...] = ()

    def row_items(self) -> Sequence[Any]:
        raise NotImplementedError

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.row_items())

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section]
        return None
