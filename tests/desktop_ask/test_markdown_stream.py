"""Streaming Markdown: the plain-line shortcut renders exactly what the converter would, and a reply
is split only where what came before can no longer change."""

from __future__ import annotations

import pytest

from desktop import markdown_render as m


def _converted(text: str) -> str:
    md = m._converter()
    md.reset()
    return md.convert(m.close_open_fence(m._escape_html(text)))


@pytest.mark.parametrize("text", ["word0 word1 ", "Done. It works", "a  ", "it's (yes) 3.5 a-b #tag 50% $5 a:b",
                                  "émoji ✓ — dash", "x = y + z"])
def test_plain_lines_render_as_the_converter_would(text):
    assert m.is_plain_line(text)
    assert m.render_markdown(text) == _converted(text)


@pytest.mark.parametrize("text", ["- item", "# head", "1. one", "    code", "a *b*", "a `b`", "a\nb", "a\tb", "<b>"])
def test_anything_markdown_might_read_takes_the_converter(text):
    assert not m.is_plain_line(text)


@pytest.mark.parametrize("text, settled", [
    ("a\n\nb", "a\n\n"),
    ("a\n\n", ""),                       # the next line may still be indented (a continuation)
    ("a\n\n  b", ""),
    ("```\nx\n\ny\n", ""),               # inside an open fence nothing is settled
    ("```\nx\n\ny\n```\n\nz", "```\nx\n\ny\n```\n\n"),
])
def test_settled_length(text, settled):
    assert text[:m.settled_length(text)] == settled


def test_streaming_block_renders_settled_parts_once(qtbot):
    from desktop.widgets.markdown_block import MarkdownBlock

    block = MarkdownBlock("scribe")
    qtbot.addWidget(block)
    for chunk in ("## Plan", "\n\nFirst ", "para.\n\n", "Second ", "para"):
        block.append(chunk)
    assert len(block.labels) == 2 and "<h2>" in block.labels[0].text() and "First para." in block.labels[1].text()
    assert block.live.text() == "<p>Second para</p>"
    block.finish()
    assert len(block.labels) == 3 and block.live.isHidden() and block.raw.endswith("Second para")


def test_a_final_block_is_one_label_like_a_finished_one(qtbot):
    from desktop.widgets.markdown_block import MarkdownBlock

    streamed = MarkdownBlock("You", "tidy *the* notes")
    streamed.finish()
    final = MarkdownBlock("You", "tidy *the* notes", final=True)
    for block in (streamed, final):
        qtbot.addWidget(block)
    assert final.text() == streamed.text() and len(final.labels) == 1 and final.live.isHidden()
