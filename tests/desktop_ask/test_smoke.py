from kernel.providers.scripted import reply


def test_send_and_stream(desk, qtbot):
    win = desk.open("scribe")
    desk.provider_of(win).script(reply("# Hello\n\nsome text", chunks=4))
    qtbot.keyClicks(win.input, "hi there")
    from PySide6.QtCore import Qt
    qtbot.keyClick(win.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.info.state == "idle" and win.transcript.current is None, timeout=5000)
    assert "hi there" in win.transcript.blocks[0].raw
    assert "<h1>Hello</h1>" in win.transcript.blocks[1].text()
