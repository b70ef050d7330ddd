"""The screenshot scene plays to the end against a real kernel and writes both PNGs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]


def test_render_ask_screens(qapp, tmp_path):
    spec = importlib.util.spec_from_file_location("screenshots_ask", ROOT / "docs" / "screenshots_ask.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    paths = module.render_ask_screens(tmp_path)
    assert [p.name for p in paths] == ["lease_dialog.png", "ask_window.png"]
    for path in paths:
        image = QImage(str(path))
        assert image.width() > 500 and image.height() > 300
