"""The codec carries every kind of kernel value both ways and refuses anything else."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from kernel.api import (
    AgentInfo, AgentSpawned, AgentState, CallPreview, Conflict, Grant, Intact, LeaseRequest, LedgerAppended,
    LedgerFilter, Message, Outcome, Settings, TextPart, ToolCall, ToolResultPart, ToolUse, ToolCallFinished,
    UndoReport,
)
from kernel.service.codec import CodecError, decode, encode
from ledger import Head

INFO = AgentInfo("a1", "scribe", AgentState.RUNNING, "", "anthropic", "m", 1000, 10, 5, 1.5, "/w")

VALUES = [
    INFO,
    AgentSpawned(INFO),
    ToolCallFinished("a1", "c1", "fs_write", Outcome.ERROR, "no", 1.25, 7, (3, 4)),
    LedgerAppended(ToolCall(actor="a1", seq=3, ts=2.0, tool="fs_read", scope="fs.read",
                            input={"path": "x", "$t": "sneaky", "nested": [1, {"$tuple": 2}]}, lease=2)),
    LeaseRequest(1, "a1", "scribe", "fs_write", "fs.write", {"path": "a"}, (300.0, 900.0), 900.0, 99.0,
                 CallPreview("write a", "a", "+x"), ("no sandbox",), "c1"),
    Message("assistant", (TextPart("hi"), ToolUse("c1", "fs_read", {"path": "a"}, {"sig": "x"}))),
    Message("user", (ToolResultPart("c1", "fs_read", "text", True),)),
    Settings(user_name="Ada", workspace="/w", sandbox_read_only=("/opt",)),
    Intact(Head(3, "ab"), 3, 1, 3),
    UndoReport(4, (), (Conflict("/w/a", "changed", "outside"),), None, True, (1, 2)),
    LedgerFilter(actor="a1"),
    Grant(300.0),
    {1: 2, 3: 4},
    {"$weird": ["x", (1, 2)]},
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_kernel_values_round_trip(value):
    assert decode(encode(value)) == value


def test_enums_come_back_as_enums():
    assert type(decode(encode(INFO)).state) is AgentState
    assert type(decode(encode(Outcome.OK))) is Outcome


@pytest.mark.parametrize("data", [
    {"$t": "Popen", "args": []},                                  # not a kernel type
    {"$t": "AgentInfo", "id": "a"},                               # fields missing
    {"$t": "Grant", "duration_s": 1.0, "extra": 1},               # a field it does not have
    {"$t": "AgentState", "$v": "sleeping"},                       # not one of its words
    {"$t": "AgentState", "$v": "idle", "more": 1},
    {"$eval": "1"},                                               # a stray $ key
    {"$tuple": 3},
    {"$map": [[None, 1]]},
    {"$map": [[True, 1]]},
])
def test_strict_decoding_refuses(data):
    with pytest.raises(CodecError):
        decode(data)


def test_values_that_are_not_kernel_data_are_refused():
    class Mine:
        pass

    with pytest.raises(CodecError):
        encode(Mine())
    with pytest.raises(CodecError):
        encode({(1, 2): "tuple key"})


def test_hostile_nesting_is_an_error_not_a_crash():
    deep: object = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(CodecError):
        decode(deep)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    | st.dictionaries(st.integers(), inner, max_size=3),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_plain_value_round_trips_exactly(value):
    back = decode(encode(value))
    assert back == value and type(back) is type(value)


def test_nan_survives():
    assert math.isnan(decode(encode(float("nan"))))
