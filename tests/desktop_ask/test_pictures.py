"""Pictures in the Ask window's message box: Ctrl+V of an image on the clipboard and a dropped image file
become thumbnails with a remove button, and go with the message as image parts (fitted by the kernel)."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtGui import QColor, QGuiApplication, QImage
from PySide6.QtWidgets import QLabel, QToolButton

from kernel.providers.scripted import reply


def clipboard_image(width: int = 2880, height: int = 1800) -> QImage:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(30, 110, 200))
    return image


@pytest.mark.in_process
def test_paste_and_drop_become_thumbnails_then_image_parts(desk, qtbot, tmp_path):
    win = desk.open("viewer")
    desk.provider_of(win).script(reply("I cannot see them."))
    QGuiApplication.clipboard().setImage(clipboard_image())
    win.input.setFocus()
    qtbot.keyClick(win.input, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(win.attachments.pending) == 1)
    assert win.input.toPlainText() == "" and win.attachments.isVisibleTo(win)
    assert (win.attachments.pending[0].width, win.attachments.pending[0].height) == (2880, 1800)

    dropped = tmp_path / "photo.jpg"
    Image.new("RGB", (640, 480), (200, 30, 30)).save(dropped, "JPEG")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(dropped))])
    assert win.input.canInsertFromMimeData(mime)
    win.input.insertFromMimeData(mime)  # where a drop lands
    assert [p.label for p in win.attachments.pending] == ["pasted image", "photo.jpg"]
    assert win.attachments.pending[1].data == dropped.read_bytes()  # a JPEG goes as it is

    out = tmp_path / "message_box.png"
    win.grab().save(str(out))
    assert out.stat().st_size > 0

    removes = [b for b in win.attachments.findChildren(QToolButton, "removeAttachment") if b.isVisibleTo(win)]
    assert len(removes) == 2
    qtbot.mouseClick(removes[1], Qt.MouseButton.LeftButton)
    assert [p.label for p in win.attachments.pending] == ["pasted image"]

    qtbot.keyClicks(win.input, "what is this?")
    qtbot.keyClick(win.input, Qt.Key.Key_Return)
    # working: the kernel fits the picture, then the message goes; the box is emptied and keeps the keyboard
    assert win.input.toPlainText() == "" and win.input.isEnabled() and not win.send_button.isEnabled()
    qtbot.waitUntil(lambda: len(desk.kernel.agents.conversation(win.agent_id)) == 2, timeout=10_000)
    desk.until_state(win, "idle")
    assert win.attachments.pending == [] and not win.attachments.isVisibleTo(win)
    first = desk.kernel.agents.conversation(win.agent_id)[0]
    [image] = first.images
    assert (image.width, image.height, image.origin, image.label) == (1356, 847, "paste", "pasted image")
    assert first.text == "what is this?"
    with Image.open(io.BytesIO(desk.ledger.blob(image.sha256))) as kept:
        assert kept.size == (1356, 847)


@pytest.mark.in_process
def test_text_pastes_stay_text(desk, qtbot):
    win = desk.open("typist")
    mime = QMimeData()
    mime.setText("plain words")
    win.input.insertFromMimeData(mime)
    assert win.input.toPlainText() == "plain words" and win.attachments.pending == []


@pytest.mark.in_process
def test_a_picture_the_agent_read_is_a_thumbnail_in_its_tool_card(desk, qtbot, tmp_path):
    from tests.images.pictures import screenshot

    (desk.workspace / "shot.png").write_bytes(screenshot(1200, 800))
    win = desk.open("reader")
    desk.kernel.leases.grant(win.agent_id, "fs.read", 300.0)
    desk.provider_of(win).script(reply(tools=(("fs_read", {"path": "shot.png"}),)), reply("a screenshot"))
    qtbot.keyClicks(win.input, "look at shot.png")
    qtbot.keyClick(win.input, Qt.Key.Key_Return)
    desk.until_state(win, "idle")
    [card] = win.transcript.cards.values()
    qtbot.waitUntil(lambda: card.pictures == 1, timeout=10_000)
    [thumb] = [w for w in card.findChildren(QLabel, "pictureThumb")]
    assert thumb.pixmap().width() <= 96 and thumb.toolTip() == "fs_read shot.png: 1200\u00d7800 png"
    assert win.grab().save(str(tmp_path / "tool_card.png"))
