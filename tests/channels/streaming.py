"""Shared by test_slack and test_discord: replies stream by message edits on Slack and Discord, no faster than each service allows, and end whole.

The kernel clock moves a quarter second with each piece of the reply (``ticking``), so a piece's time is
its position: the fake's record of every post and edit tells when each was made, and the gaps between
edits must be at least the channel's interval (Slack 1.2 s, Discord 1 s). The final edit holds the whole
first piece (no "…"), the rest follows split at the channel's limit, and joined they are the reply.
"""

from __future__ import annotations

from kernel.channels.model import EDIT_EVERY_S, LIMITS
from kernel.channels.stream import MORE
from kernel.providers.scripted import reply
from ledger import PairingRequest

from .conftest import ticking, until

LONG = " ".join(f"word{n}" for n in range(1200))  # ~9,000 characters
CHUNKS = 60
TICK = 0.25


def streamed(env, kind: str, deliver, posted, edited) -> None:
    """Pair one sender on ``kind``, have the model answer LONG in CHUNKS pieces, check what the chat saw."""
    ticking(env, TICK)
    env.run(deliver("hi", "1"))
    env.run(until(lambda: len(posted()) == 1))
    env.provider.script(reply(LONG, chunks=CHUNKS))
    env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
    env.run(until(lambda: env.kernel.channels.figures.admitted == 1 and not env.kernel.channels._tasks))
    size = -(-len(LONG) // CHUNKS)
    limit, every = LIMITS[kind], EDIT_EVERY_S[kind]
    first, *rest = [s.text for s in posted()[1:]]
    *interim, final = [s.text for s in edited()]
    shown = [first, *interim]  # the streamed message as it grew: posted, then edited
    assert len(interim) >= 2 and all(t.endswith(MORE) and LONG.startswith(t[:-len(MORE)]) for t in shown)
    when = [-(-len(t[:-len(MORE)]) // size) * TICK for t in shown]  # the piece (so the time) it showed
    assert all(b - a >= every for a, b in zip(when, when[1:])), when  # never faster than the service allows
    assert not final.endswith(MORE) and all(len(p) <= limit for p in [final, *rest])
    assert " ".join([final, *rest]) == LONG and len(rest) >= 2
    env.provider.assert_done()
