"""The screenshot session on all four protocols: screenshots of 2880×1800 (half pasted, half read with fs_read)
run to the end with no request refused for its pictures (the fake refuses what the real APIs refuse, a peer
without fitting ends here with a 400); every picture sent is ≤ 1568 px and ≤ 1.15 MP; each unique picture is
fitted once; every request stays within the image budget (8 pictures, 8 MB); a model without vision gets
placeholders only. The test runs 12 screenshots per protocol (past the budget of 8; fitting one costs
0.2-0.7 s of CPU on the loaded 2-core CI machine); ``benchmarks/image_bench.py`` runs the full 30 on all four
and prints the figures."""

from __future__ import annotations

import pytest

from kernel.images.fit import LONG_EDGE, MAX_AREA

from .session import quick_screenshot, run_session

SHOTS = 12


@pytest.fixture(scope="module")
def shots() -> list[bytes]:
    return [quick_screenshot(i) for i in range(SHOTS)]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-chat", "gemini"])
def test_a_screenshot_session_runs_to_the_end(provider, shots, tmp_path):
    out = run_session(provider, tmp_path, shots)
    assert out.states == ["idle"] * (SHOTS // 2 + 1)
    assert out.rejections == []
    assert out.fitted == SHOTS  # the first file read twice: fitted once
    assert len(out.requests) == SHOTS + 2
    counts = [len(r.images) for r in out.requests]
    assert max(counts) == 8 and counts[0] == 1  # the budget bound, and it was reached
    assert counts[-1] == 8
    for request in out.requests:
        assert sum(len(i.data) for i in request.images) <= 8 * 1024 * 1024
        for image in request.images:
            assert max(image.width, image.height) <= LONG_EDGE and image.width * image.height <= MAX_AREA
    assert "older than the newest 8 images, not sent again" in str(out.requests[-1].body)


def test_a_model_without_vision_gets_placeholders(shots, tmp_path):
    out = run_session("openai-chat", tmp_path, shots[:4], model="llama3.1:8b")
    assert out.states == ["idle"] * 3 and out.rejections == []
    assert all(r.images == () for r in out.requests)
    assert "png from pasted image: this model cannot see images]" in str(out.requests[-1].body)
