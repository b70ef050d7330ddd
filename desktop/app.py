"""Opening the desktop: a QApplication on a qasync loop with the main window."""

from __future__ import annotations

import sys


def run() -> int:
    from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    window = QMainWindow()
    window.setWindowTitle("Agentdesk")
    window.setCentralWidget(QLabel("Agentdesk"))
    window.resize(1100, 700)
    window.show()
    return app.exec()
