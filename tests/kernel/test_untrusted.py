"""kernel.trust.untrusted and the admission of calls: what a model sent, checked and made safe."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from kernel.agents.admit import ID_MAX, admit
from kernel.core.messages import Message, TextPart, ToolResultPart, ToolUse, encodable
from kernel.providers.base import ToolCallReady
from kernel.core.json_safe import MAX_DEPTH, clean_text, object_problem, problem, sanitised
from kernel.trust.untrusted import ERROR_MAX_CHARS, capped

any_char = st.characters(codec=None, exclude_categories=())
leaves = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(any_char, max_size=10)
          | st.integers(4400, 5000).map(lambda d: 10**d))
values = st.recursive(leaves, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(any_char, max_size=5), c,
                                                                                   max_size=3), max_leaves=10)


def _deep(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@settings(max_examples=200, deadline=None)
@given(values)
def test_a_sanitised_value_has_no_problem_and_encodes_as_strict_json(value):
    safe = sanitised(value)
    assert problem(safe) is None
    json.dumps(safe, allow_nan=False, ensure_ascii=False).encode("utf-8")


def test_problem_looks_at_any_depth_without_recursing():
    assert problem(_deep(1_000_000)) == f"the arguments are nested more than {MAX_DEPTH} levels deep"
    assert problem(_deep(MAX_DEPTH - 1)) is None and problem(_deep(MAX_DEPTH)) is not None  # 64 levels of lists
    assert sanitised(_deep(1_000_000)) is not None  # bounded, however deep the value


def test_problem_names_each_hazard():
    assert "lone surrogate (\\ud800)" in problem({"p": "a\ud800"})
    assert "lone surrogate (\\udcff)" in problem({"k\udcff": 1})
    assert "JSON does not allow" in problem({"n": float("nan")})
    assert "JSON does not allow" in problem([float("inf")])
    assert "too large" in problem(10**5000)
    assert "not a JSON value" in problem({"s": {1, 2}})
    assert "key that is not text" in problem({1: "x"})
    assert object_problem([1]) == "tool arguments must be a JSON object, not an array"
    assert object_problem({"path": "fine", "n": [1, 2.5, None, True]}) is None


def test_capped_keeps_head_and_tail_and_says_how_long():
    text = "fs_read: no such file: " + "x" * 10_000_000 + " (outside the workspace)"
    short = capped(text)
    assert len(short) <= ERROR_MAX_CHARS
    assert short.startswith("fs_read: no such file: xxx") and short.endswith("(outside the workspace)")
    assert f"({len(text):,} characters; the middle is cut)" in short
    assert capped("short") == "short"


def test_clean_text_replaces_only_lone_surrogates():
    same = "plain ünïcode 😀"
    assert clean_text(same) is same
    assert clean_text("a\ud800b\udcff") == "a\ufffdb\ufffd"


def test_encodable_returns_the_same_message_when_nothing_needs_fixing():
    fine = Message("assistant", (TextPart("hi"), ToolUse("c1", "fs_read", {"path": "a"})))
    assert encodable(fine) is fine
    bad = Message("assistant", (TextPart("x\ud800"), ToolUse("c\ud800", "fs_read", {"p": [float("nan")]})))
    fixed = encodable(bad)
    assert fixed.parts[0] == TextPart("x\ufffd")
    assert fixed.parts[1] == ToolUse("c\ufffd", "fs_read", {"p": ["nan"]})
    result = encodable(Message("user", (ToolResultPart("c1", "fs_list", "name\udcff.txt"),)))
    assert result.parts[0].content == "name\ufffd.txt"


def test_admit_bounds_ids_and_names_and_refuses_what_cannot_be_kept():
    long_a, long_b = "i" * 10_000 + "a", "i" * 10_000 + "b"
    a, b = admit(ToolCallReady(long_a, "n" * 10_000, {})), admit(ToolCallReady(long_b, "fs_read", {}))
    assert len(a.id) <= ID_MAX and len(b.id) <= ID_MAX and a.id != b.id  # still distinct
    assert len(a.name) <= 128
    refused = admit(ToolCallReady("c1", "fs_read", {"path": "a\ud800"}))
    assert refused.input is None and "lone surrogate" in (refused.error or "")
    assert json.loads(refused.raw_arguments or "") == {"path": "a\ufffd"}
    fine = ToolCallReady("c1", "fs_read", {"path": "a"})
    assert admit(fine) is fine
