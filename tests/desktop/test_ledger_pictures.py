"""Pictures in the ledger view: a picture file's change shows thumbnails before and after (an absent side is
a "no file" tile), an SVG an agent wrote is drawn as a cleaned picture, and the undo confirmation shows
which pictures come back and which go."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument

from desktop.ledger_detail import NO_FILE, THUMB_URL, TILE_URL
from desktop.picture_tiles import svg_image
from kernel.api import LedgerFilter
from ledger import ToolCall
from tests.images.pictures import billion_laughs_svg, hostile_svg


def png(colour: str, size: tuple[int, int] = (400, 300)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def centre(image: QImage) -> str:
    return image.pixelColor(image.width() // 2, image.height() // 2).name()


def loaded(view, url: str) -> QImage:
    found = view.detail.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl(url))
    assert isinstance(found, QImage) and not found.isNull(), url
    return found


@pytest.fixture
def drawn(main, tmp_path: Path):
    """An agent's picture files on the record: chart.png made red, then blue; drawing.svg (hostile)."""
    agent = main.spawn("painter")
    secret = tmp_path / "secret.png"
    secret.write_bytes(png("#00ff00", (100, 100)))  # green: if it shows, the SVG loaded a local file
    call = main.ledger.append(ToolCall(actor=agent, tool="shell", scope="shell.run", input={"cmd": "plot"}))
    plot = main.ledger.write_file(actor=agent, path=main.workspace / "plot.png", content=png("#ffff00"),
                                  cause=call.seq)
    chart = main.workspace / "chart.png"
    made = main.ledger.write_file(actor=agent, path=chart, content=png("#ff0000"), cause=None)
    changed = main.ledger.write_file(actor=agent, path=chart, content=png("#0000ff"), cause=None)
    svg = main.ledger.write_file(actor=agent, path=main.workspace / "drawing.svg",
                                 content=hostile_svg(str(secret)), cause=None)
    view = main.window.ledger_view
    view.model.set_filters(LedgerFilter())
    view.plot = (call, plot)  # a tool call whose changes include a picture
    return view, made, changed, svg


@pytest.mark.in_process
def test_a_picture_change_shows_before_and_after(main, drawn, qtbot):
    view, made, changed, _ = drawn
    assert view.select_seq(changed.seq)
    qtbot.waitUntil(lambda: view.thumbnails.known(changed.before) and view.thumbnails.known(changed.after))
    html = view.detail.toHtml()
    assert THUMB_URL + changed.before in html and THUMB_URL + changed.after in html
    before, after = loaded(view, THUMB_URL + changed.before), loaded(view, THUMB_URL + changed.after)
    assert (before.width(), before.height()) == (160, 120)  # a thumbnail, not the file
    assert (centre(before), centre(after)) == ("#ff0000", "#0000ff")
    text = view.detail.toPlainText()
    assert "before: 400\u00d7300" in text and "after: 400\u00d7300" in text
    assert "Binary file" not in text  # the pictures instead of a byte count

    assert view.select_seq(made.seq)  # created: nothing before it
    qtbot.waitUntil(lambda: view.thumbnails.known(made.after))
    assert TILE_URL + NO_FILE in view.detail.toHtml() and f"before: {NO_FILE}" in view.detail.toPlainText()
    assert centre(loaded(view, THUMB_URL + made.after)) == "#ff0000"
    tile = loaded(view, TILE_URL + NO_FILE)
    assert tile.width() == 160

    call, plot = view.plot
    assert view.select_seq(call.seq)  # a tool entry shows the pictures of the files it changed
    qtbot.waitUntil(lambda: view.thumbnails.known(plot.after))
    assert "File changes (1)" in view.detail.toPlainText() and THUMB_URL + plot.after in view.detail.toHtml()
    assert centre(loaded(view, THUMB_URL + plot.after)) == "#ffff00"


@pytest.mark.in_process
def test_an_svg_is_drawn_cleaned_never_loading_a_local_file(main, drawn, qtbot):
    view, _, _, svg = drawn
    assert view.select_seq(svg.seq)
    qtbot.waitUntil(lambda: view.thumbnails.known(svg.after))
    drawing = loaded(view, THUMB_URL + svg.after)
    colours = {drawing.pixelColor(x, y).name() for x in range(0, drawing.width(), 8)
               for y in range(0, drawing.height(), 8)}
    assert colours == {"#ff0000"}  # the red square it draws; the green local file it asked for is absent
    assert "after: 100\u00d7100 svg" in view.detail.toPlainText()


def test_the_desktop_draws_no_svg_with_a_dtd_in_bounded_time(qapp):
    start = time.perf_counter()
    assert svg_image(billion_laughs_svg()) is None
    assert svg_image(b"<svg" + b" " * (600 * 1024) + b"/>") is None
    assert time.perf_counter() - start < 0.5
    drawn = svg_image(b'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10">'
                      b'<rect width="20" height="10" fill="#0000ff"/></svg>', 40)
    assert drawn is not None and (drawn.width(), drawn.height()) == (40, 20) and centre(drawn) == QColor("#0000ff").name()


@pytest.mark.in_process
def test_the_undo_confirmation_shows_which_pictures_come_back_and_which_go(main, drawn, qtbot):
    view, made, changed, svg = drawn
    dialog = view.confirm_undo(made)  # undo what followed the red chart: the blue one and the drawing
    assert {(r.action, r.path) for r in dialog.rows} == {("restore", "chart.png"), ("delete", "drawing.svg")}
    chart, drawing = dialog.pictures["chart.png"], dialog.pictures["drawing.svg"]
    assert chart.sides == {"goes": changed.after, "back": changed.before}
    assert drawing.sides == {"goes": svg.after, "back": None} and drawing.words("back") == NO_FILE
    qtbot.waitUntil(lambda: chart.words("goes") == chart.words("back") == drawing.words("goes") == "picture")
    assert centre(chart.goes.pixmap().toImage()) == "#0000ff"  # the blue one goes
    assert centre(chart.back.pixmap().toImage()) == "#ff0000"  # the red one comes back
    assert centre(drawing.goes.pixmap().toImage()) == "#ff0000"
    assert max(chart.back.pixmap().width(), chart.back.pixmap().height()) == 64
    assert dialog.files.headerItem().text(3) == "picture: goes \u2192 comes back"
    assert (main.workspace / "chart.png").read_bytes() == png("#0000ff")  # a dry run: nothing written yet
    dialog.reject()
