"""``reply_so_far``: what a view opening on an agent mid-reply needs, in one snapshot.

The reply streaming now is not in the conversation until its turn ends, so a window opened meanwhile gets
it apart, with the offset of the next ``TextDelta``; each delta carries its own offset, so a view can tell
what it already has (issue 22: the attached desktop's reopened window lost what streamed before it).
"""

from __future__ import annotations

import asyncio

from kernel.api import ReplySoFar, TextDelta
from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import Hold, ScriptedTurn, reply


def test_the_reply_streaming_now_and_the_offset_of_the_next_delta(make_env):
    env = make_env()
    gate, reached = asyncio.Event(), asyncio.Event()
    env.provider.script(reply("first answer"),
                        ScriptedTurn((UsageReport(5, 0), TextChunk("half of "), Hold(gate, reached),
                                      TextChunk("the second"), StreamEnd("end_turn"))))
    a = env.kernel.agents.spawn("scribe").id
    assert env.kernel.agents.reply_so_far(a) == ReplySoFar((), "", 0)

    async def go() -> tuple[ReplySoFar, ReplySoFar]:
        env.kernel.agents.send(a, "one")
        await env.kernel.agents.wait(a)
        env.kernel.agents.send(a, "two")
        await reached.wait()
        mid = env.kernel.agents.reply_so_far(a)
        gate.set()
        await env.kernel.agents.wait(a)
        return mid, env.kernel.agents.reply_so_far(a)

    mid, after = asyncio.run(go())
    assert mid.streaming == "half of " and mid.streamed == len("first answer") + len("half of ")
    assert [m.role for m in mid.conversation] == ["user", "assistant", "user"]  # the half reply is apart
    assert after.streaming == "" and after.streamed == len("first answer") + len("half of the second")
    assert after.conversation[-1].parts[0].text == "half of the second"
    deltas = env.of(TextDelta)
    assert [(d.text, d.offset) for d in deltas[-2:]] == [("half of ", 12), ("the second", 20)]
    assert all(d.offset == sum(len(e.text) for e in deltas[:i]) for i, d in enumerate(deltas))
