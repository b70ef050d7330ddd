"""Where pictures come from: fs_read recognises them by their bytes (scope fs.read), fits them once and shows
them; a corrupt one or a bomb is an error result the model sees; a picture a tainted agent wrote comes back
untrusted; the conversation rebuilt from the record holds the same pictures."""

from __future__ import annotations

from kernel.agents.rebuild import conversation_of
from kernel.core.messages import ToolResultPart
from kernel.images.fit import LONG_EDGE, MAX_AREA
from kernel.providers.scripted import reply
from ledger import AgentSpawn, ToolResult

from tests.kernel.conftest import GRANT_5M, run

from .pictures import png_bomb, screenshot


def last_results(env) -> list[ToolResultPart]:
    return [p for p in env.provider.requests[-1].messages[-1].parts if isinstance(p, ToolResultPart)]


def test_fs_read_shows_a_picture_by_its_bytes_fitted_once(make_env):
    env = make_env()
    shot = screenshot(2880, 1800)
    (env.workspace / "notes.txt").write_bytes(shot)  # the name says text; the bytes say PNG
    (env.workspace / "copy.png").write_bytes(shot)
    env.provider.script(reply(tools=(("fs_read", {"path": "notes.txt"}), ("fs_read", {"path": "copy.png"}))),
                        reply("a screenshot"))
    env.approver.will(GRANT_5M)
    a = env.kernel.agents.spawn("viewer")

    async def go():
        env.kernel.agents.send(a.id, "what is in notes.txt?")
        await env.kernel.agents.wait(a.id)

    run(go())
    env.provider.assert_done()
    assert [r.scope for r in env.approver.requests] == ["fs.read"]
    first, second = last_results(env)
    [image] = first.images
    assert image.path == "notes.txt" and image.origin == "file" and not image.untrusted
    assert max(image.width, image.height) <= LONG_EDGE and image.width * image.height <= MAX_AREA
    assert "notes.txt: a png image" in first.content and not first.is_error
    assert second.images[0].sha256 == image.sha256 and second.images[0].path == "copy.png"
    request = env.provider.requests[-1]
    assert set(request.images) == {image.sha256} and len(request.images[image.sha256]) == image.size
    results = [e for e in env.ledger.page(kind="result") if isinstance(e, ToolResult)]
    assert all(len(e.images) == 1 for e in results)
    [spawn] = [e for e in env.ledger.page(kind="agent.spawn") if isinstance(e, AgentSpawn)]
    assert conversation_of(env.ledger, spawn)[-2].images == (image, second.images[0])


def test_a_corrupt_picture_and_a_bomb_are_errors_the_model_reads(make_env):
    env = make_env()
    (env.workspace / "broken.png").write_bytes(screenshot(400, 300)[:200])
    (env.workspace / "bomb.png").write_bytes(png_bomb())
    env.provider.script(reply(tools=(("fs_read", {"path": "broken.png"}), ("fs_read", {"path": "bomb.png"}))),
                        reply("both failed"))
    env.approver.will(GRANT_5M)
    a = env.kernel.agents.spawn("viewer")

    async def go():
        env.kernel.agents.send(a.id, "look")
        await env.kernel.agents.wait(a.id)

    run(go())
    broken, bomb = last_results(env)
    assert broken.is_error and "broken.png looks like a png image but cannot be shown" in broken.content
    assert bomb.is_error and "more than 50,000,000 pixels; it is not opened" in bomb.content
    assert broken.images == bomb.images == ()


def test_a_picture_a_tainted_agent_wrote_comes_back_untrusted(make_env):
    from ledger import UntrustedSeen

    env = make_env()
    env.ledger.append(UntrustedSeen(actor="a9", cause=None, tool="web_fetch", source="web_fetch https://evil.example",
                                    sha256="0" * 64, size=1))
    change = env.ledger.write_file(actor="a9", path=env.workspace / "chart.png", content=screenshot(300, 200),
                                   cause=None)
    env.provider.script(reply(tools=(("fs_read", {"path": "chart.png"}),)), reply("a chart"))
    env.approver.will(GRANT_5M)
    a = env.kernel.agents.spawn("viewer")

    async def go():
        env.kernel.agents.send(a.id, "what does chart.png show?")
        await env.kernel.agents.wait(a.id)

    run(go())
    [result] = last_results(env)
    [image] = result.images
    assert image.untrusted and not result.is_error
    assert result.content.startswith("<untrusted") and f"written by tainted agent a9 (#{change.seq})" in result.content
    assert env.kernel.agents.get(a.id).tainted
    [entry] = [e for e in env.ledger.page(kind="result") if isinstance(e, ToolResult)]
    assert entry.images[0]["untrusted"] is True
