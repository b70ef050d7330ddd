"""``agentdesk ask --image FILE`` (repeatable): the pictures reach the model fitted, on the record with the
prompt; a file that is missing or not a picture is bad usage (exit 2) before any agent starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger import Ledger, UserTurn
from tests.cli.inproc import agentdesk
from tests.fakes import FakeProviderServer, Text, Turn
from tests.images.pictures import screenshot, size_of


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


def env_of(srv: FakeProviderServer) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url}


def test_two_images_reach_the_model_fitted(srv, tmp_path: Path, agentdesk_home: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "a.png").write_bytes(screenshot(2880, 1800, seed=1))
    (tmp_path / "b.jpg").write_bytes(screenshot(640, 400, seed=2, fmt="JPEG"))
    srv.script(Turn(parts=(Text("two screenshots"),)))
    done = agentdesk(["ask", "what differs?", "--workspace", str(ws), "--image", str(tmp_path / "a.png"),
                      "--image", str(tmp_path / "b.jpg")], agentdesk_home, env_of(srv))
    assert done.returncode == 0, done.stderr
    assert "two screenshots" in done.stdout
    [request] = srv.requests
    assert [(i.role, i.media_type) for i in request.images] == [("user", "image/png"), ("user", "image/jpeg")]
    assert size_of(request.images[0].data) == (1356, 847) and size_of(request.images[1].data) == (640, 400)
    assert request.body["messages"][0]["content"][0] == {"type": "text", "text": "what differs?"}
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [turn] = ledger.page(kind="message")
        assert isinstance(turn, UserTurn) and [i["label"] for i in turn.images] == ["--image a.png", "--image b.jpg"]
    srv.assert_done()


@pytest.mark.parametrize("make, needle", [
    (lambda p: None, "--image"),
    (lambda p: p.write_text("just text"), "not a PNG, JPEG, WebP, GIF"),
])
def test_a_bad_image_file_is_bad_usage(make, needle, tmp_path: Path, agentdesk_home: Path):
    target = tmp_path / "x.png"
    make(target)
    done = agentdesk(["ask", "look", "--workspace", str(tmp_path), "--image", str(target)], agentdesk_home,
                     {"ANTHROPIC_API_KEY": "test-key"})
    assert done.returncode == 2 and needle in done.stderr and "Traceback" not in done.stderr


def test_image_with_agent_is_refused(agentdesk_home: Path, tmp_path: Path):
    done = agentdesk(["ask", "more", "--agent", "a1", "--image", str(tmp_path / "x.png")], agentdesk_home)
    assert done.returncode == 2 and "--image cannot be given with --agent" in done.stderr
