"""An agent's command cannot blind the ledger with ``.agentdeskignore`` (issue 23).

One command wrote ``*`` into ``.agentdeskignore``, the next deleted
``important.txt``: the deletion was recorded by hash only and undo said "its
earlier contents were too large to keep" of a 9-byte file. Now the rules of an
ignore file whose current bytes an agent wrote do not apply until a person
writes it (the ledger knows who wrote them), a file the ledger knew stays
restorable whatever the rules say, and undo says "too large" only when it is.
Real bubblewrap, real ledger, both capture paths (overlay and snapshots).
"""

from __future__ import annotations

import asyncio
import os

from ledger import FileChange
from ledger.undo import undo

from .conftest import Env

def _changes(env: Env, cause: int) -> dict[str, FileChange]:
    return {os.path.relpath(e.path, env.root): e for e in env.ledger.caused_by(cause) if isinstance(e, FileChange)}


def test_an_ignore_file_an_agent_wrote_does_not_hide_the_next_commands_changes(env: Env) -> None:
    (env.root / "important.txt").write_text("keep me!\n")
    env.index.scan()  # the ledger has seen the workspace (the watcher does this when it starts)
    mark = env.ledger.last_seq()
    out1, ctx1 = asyncio.run(env.run({"command": "printf '*\\n' > .agentdeskignore"}))
    assert out1.data["exit_code"] == 0
    assert _changes(env, ctx1.cause)[".agentdeskignore"].actor == "a1"  # recorded, with its writer

    out2, ctx2 = asyncio.run(env.run({"command": "rm important.txt && echo new > made.txt"}))
    assert out2.data["exit_code"] == 0 and not (env.root / "important.txt").exists()
    second = _changes(env, ctx2.cause)
    assert set(second) == {"important.txt", "made.txt"}, out2.content
    assert all(c.stored for c in second.values()), second  # kept whole: the agent's rules did not apply

    report = env.ledger.undo(mark)
    assert report.ok, report.conflicts
    assert (env.root / "important.txt").read_text() == "keep me!\n"
    assert not (env.root / "made.txt").exists() and not (env.root / ".agentdeskignore").exists()


def test_a_persons_ignore_file_applies_and_a_file_the_ledger_knew_stays_restorable(env: Env) -> None:
    (env.root / "important.txt").write_text("keep me!\n")
    env.index.scan()  # the ledger has seen important.txt and kept its bytes
    (env.root / ".agentdeskignore").write_text("*.log\nimportant.txt\n")  # the person's own rules
    _, seen = env.index.scan()  # recorded as ``outside``: a person's
    assert [(os.path.relpath(e.path, env.root), e.actor) for e in seen] == [(".agentdeskignore", "outside")]
    assert (env.root / "important.txt").exists()  # now ignored, and not taken for deleted
    mark = env.ledger.last_seq()
    out, ctx = asyncio.run(env.run({"command": "rm important.txt; echo x > other.log; echo y > kept.txt"}))
    assert out.data["exit_code"] == 0
    changes = _changes(env, ctx.cause)
    if env.overlay:  # every change recorded; the rules decide only what is kept, and known bytes are
        assert set(changes) == {"important.txt", "other.log", "kept.txt"}, out.content
        assert changes["important.txt"].stored and not changes["other.log"].stored and changes["kept.txt"].stored
        report = env.ledger.undo(mark)
        assert report.ok, report.conflicts
        assert (env.root / "important.txt").read_text() == "keep me!\n"
    else:  # the snapshots look only at what the person's rules keep
        assert set(changes) == {"kept.txt"}, out.content


def test_an_agents_ignore_file_takes_effect_once_a_person_writes_it(env: Env) -> None:
    env.index.scan()  # the watcher's first look
    out, _ = asyncio.run(env.run({"command": "printf '*.tmp\\n' > .agentdeskignore"}))
    env.index.rules.refresh()  # (on an overlay the file lands after the rules were last read)
    assert out.data["exit_code"] == 0 and env.index.rules.untrusted
    out, ctx = asyncio.run(env.run({"command": "echo a > a.tmp"}))
    assert _changes(env, ctx.cause)["a.tmp"].stored  # the agent's rule is not applied
    (env.root / ".agentdeskignore").write_text("*.tmp\n# looked at\n")  # the person accepts it by writing it
    _, seen = env.index.scan()
    assert [(os.path.relpath(e.path, env.root), e.actor) for e in seen] == [(".agentdeskignore", "outside")]
    assert not env.index.rules.untrusted
    out, ctx = asyncio.run(env.run({"command": "echo b > b.tmp"}))
    changes = _changes(env, ctx.cause)
    assert ("b.tmp" not in changes) if not env.overlay else not changes["b.tmp"].stored, out.content


def test_undo_does_not_call_contents_it_did_not_keep_too_large(tmp_path) -> None:
    from ledger import Ledger

    with Ledger(tmp_path / "l.db") as ledger:
        small, big = tmp_path / "small.txt", tmp_path / "big.bin"
        mark = ledger.last_seq()
        ledger.append(FileChange(actor="a1", path=str(small), before="ab" * 32, after=None, stored=False))
        ledger.append(FileChange(actor="a1", path=str(big), before="cd" * 32, after=None, stored=False))
        report = undo(ledger, mark)
    why = {c.path: c.reason for c in report.conflicts}
    assert set(why) == {str(small), str(big)}
    assert all("too large" not in reason and "not kept" in reason for reason in why.values()), why
