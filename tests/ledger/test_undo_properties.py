"""Property tests for undo: random histories by several actors, then undo to a random point.

The test keeps its own model of the workspace (what every path held after each
operation, and which bytes each recorded change went from and to) and checks
the files on disk against it, byte for byte.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import Ledger, ToolCall

PATHS = ("a.txt", "b.txt", "sub/c.txt", "sub/deep/d.bin")
ACTORS = ("agent-1", "agent-2", "agent-3")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Tree = dict[str, bytes]


@dataclass
class Recorded:
    seq: int
    actor: str
    path: str
    before: bytes | None
    after: bytes | None


@dataclass
class World:
    """A ledger over a temp workspace plus the test's own model of it."""

    root: Path
    ledger: Ledger
    trees: dict[int, Tree] = field(default_factory=lambda: {0: {}})  # seq -> tree at that seq
    changes: list[Recorded] = field(default_factory=list)
    counter: int = 0

    def content(self, tag: str) -> bytes:
        self.counter += 1  # every write is unique bytes, so no two changes look alike by accident
        return f"{tag}#{self.counter}\n".encode() * (self.counter % 3 + 1)

    def disk(self) -> Tree:
        out = {}
        for p in self.root.rglob("*"):
            if p.is_file():
                out[p.relative_to(self.root).as_posix()] = p.read_bytes()
        return out

    def write(self, actor: str, rel: str, data: bytes | None) -> None:
        before = self.disk().get(rel)
        call = self.ledger.append(ToolCall(actor=actor, tool="fs.write", scope="fs.write", input={"path": rel}))
        change = self.ledger.write_file(actor=actor, path=self.root / rel, content=data, cause=call.seq)
        self.changes.append(Recorded(change.seq, actor, rel, before, data))
        self.trees[change.seq] = self.disk()

    def apply(self, op: tuple) -> None:
        kind, actor, i, j = op
        src, dst = PATHS[i], PATHS[j]
        current = self.disk()
        if kind == "write":
            self.write(actor, src, self.content(actor))
        elif kind == "delete" and src in current:
            self.write(actor, src, None)
        elif kind == "move" and src in current and src != dst:
            self.write(actor, dst, current[src])
            self.write(actor, src, None)
        elif kind == "outside":
            target = self.root / src
            if src in current and j % 2:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.content("outside"))

    def tree_at(self, seq: int) -> Tree:
        return self.trees[max(s for s in self.trees if s <= seq)]

    def snapshot_now(self) -> None:
        self.trees[self.ledger.last_seq()] = self.disk()


def world(tmp: str) -> World:
    root = Path(tmp) / "ws"
    root.mkdir()
    return World(root=root.resolve(), ledger=Ledger(Path(tmp) / "ledger.db"))


def ops(kinds: tuple[str, ...]) -> st.SearchStrategy[list[tuple]]:
    op = st.tuples(st.sampled_from(kinds), st.sampled_from(ACTORS),
                   st.integers(0, len(PATHS) - 1), st.integers(0, len(PATHS) - 1))
    return st.lists(op, min_size=1, max_size=25)


LEDGER_OPS = ops(("write", "write", "delete", "move"))


def chain_walk(w: World, after: int, only_actor: str | None = None) -> tuple[Tree, set[str]]:
    """What undo should leave, from the model: walk each path's recorded changes newest first.

    A change can be reversed when the file holds what it wrote (or, never
    landed, what it replaced); otherwise the path is a conflict and keeps
    its bytes.
    """
    disk = w.disk()
    expected, conflicts = dict(disk), set()
    for rel in PATHS:
        cur, broken = disk.get(rel), False
        for change in reversed([c for c in w.changes if c.path == rel and c.seq > after]):
            if only_actor is not None and change.actor != only_actor:
                continue
            if cur in (change.after, change.before):
                cur = change.before
            else:
                broken = True
                break
        if broken:
            conflicts.add(str(w.root / rel))
        elif cur is None:
            expected.pop(rel, None)
        else:
            expected[rel] = cur
    return expected, conflicts


@SETTINGS
@given(history=LEDGER_OPS, data=st.data())
def test_undo_restores_the_tree_at_any_point(history: list[tuple], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        w = world(tmp)
        for op in history:
            w.apply(op)
        point = data.draw(st.integers(0, w.ledger.last_seq()), label="point")
        report = w.ledger.undo(point)
        assert report.conflicts == ()
        assert w.disk() == w.tree_at(point)
        # Undoing again to the same point finds nothing left to do.
        assert w.ledger.undo(point).steps == ()
        w.ledger.close()


@SETTINGS
@given(history=LEDGER_OPS, data=st.data())
def test_undo_in_the_middle_of_history_then_undo_further(history: list[tuple], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        w = world(tmp)
        cut = data.draw(st.integers(0, len(history)), label="cut")
        for op in history[:cut]:
            w.apply(op)
        mid = data.draw(st.sampled_from(sorted(w.trees)), label="mid")
        w.ledger.undo(mid)
        w.snapshot_now()
        assert w.disk() == w.tree_at(mid)
        for op in history[cut:]:
            w.apply(op)
        point = data.draw(st.sampled_from(sorted(w.trees)), label="point")
        assert w.ledger.undo(point).conflicts == ()
        assert w.disk() == w.tree_at(point)
        w.ledger.close()


@SETTINGS
@given(history=ops(("write", "write", "delete", "move", "outside")), data=st.data())
def test_outside_edits_are_conflicts_and_left_alone(history: list[tuple], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        w = world(tmp)
        for op in history:
            w.apply(op)
        point = data.draw(st.integers(0, w.ledger.last_seq()), label="point")
        expected, conflicts = chain_walk(w, point)
        report = w.ledger.undo(point)
        assert {c.path for c in report.conflicts} == conflicts
        assert w.disk() == expected  # conflicting files keep their bytes, the rest are restored
        w.ledger.close()


@SETTINGS
@given(history=ops(("write", "delete", "move", "outside")), data=st.data())
def test_latest_write_changed_outside_is_a_conflict(history: list[tuple], data: st.DataObject) -> None:
    """The plain form of the rule: edit a file the ledger wrote last, outside it → that file is a conflict."""
    with tempfile.TemporaryDirectory() as tmp:
        w = world(tmp)
        for op in history:
            w.apply(op)
        point = w.ledger.last_seq()
        rel = data.draw(st.sampled_from(PATHS), label="victim")
        w.write("agent-1", rel, w.content("ledger"))
        target = w.root / rel
        target.write_bytes(w.content("outside"))
        edited = target.read_bytes()
        report = w.ledger.undo(point)
        assert [c.path for c in report.conflicts] == [str(target)]
        assert report.conflicts[0].changed_by is None  # the ledger never saw who wrote these bytes
        assert target.read_bytes() == edited
        w.ledger.close()


@SETTINGS
@given(history=LEDGER_OPS, data=st.data())
def test_undoing_an_undo_is_redo(history: list[tuple], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        w = world(tmp)
        for op in history:
            w.apply(op)
        before_undo = w.disk()
        point = data.draw(st.integers(0, w.ledger.last_seq()), label="point")
        last_before_undo = w.ledger.last_seq()
        first = w.ledger.undo(point)
        assert w.disk() == w.tree_at(point)
        undone = w.disk()
        last_before_redo = w.ledger.last_seq()
        redo = w.ledger.undo(last_before_undo)
        assert redo.conflicts == ()
        assert w.disk() == before_undo
        if first.undo_seq is not None:
            assert set(redo.reversed) == set(c.seq for c in w.ledger.caused_by(first.undo_seq))
        # And undoing the redo undoes again.
        assert w.ledger.undo(last_before_redo).conflicts == ()
        assert w.disk() == undone
        w.ledger.close()


@SETTINGS
@given(history=LEDGER_OPS, who=st.sampled_from(ACTORS), data=st.data())
def test_undo_only_one_actor(history: list[tuple], who: str, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        w = world(tmp)
        for op in history:
            w.apply(op)
        point = data.draw(st.integers(0, w.ledger.last_seq()), label="point")
        expected, conflicts = chain_walk(w, point, only_actor=who)
        report = w.ledger.undo(point, only_actor=who)
        assert {c.path for c in report.conflicts} == conflicts
        assert w.disk() == expected
        assert all(s.change.actor == who for s in report.steps)
        # Files only other actors touched after the point are never reversed.
        others = {str(w.root / c.path) for c in w.changes if c.seq > point and c.actor != who}
        mine = {str(w.root / c.path) for c in w.changes if c.seq > point and c.actor == who}
        assert not ({s.path for s in report.steps} & (others - mine))
        w.ledger.close()
