"""The agent-state and outcome vocabularies answer the questions views used to ask with string lists."""

from __future__ import annotations

from kernel.core.states import AgentState, Outcome


def test_each_state_answers_busy_can_pause_and_final():
    assert {s for s in AgentState if s.busy} == {AgentState.RUNNING, AgentState.WAITING}
    assert {s for s in AgentState if s.can_pause} == {AgentState.RUNNING, AgentState.WAITING, AgentState.IDLE}
    assert {s for s in AgentState if s.final} == {AgentState.KILLED}


def test_states_and_outcomes_are_their_words():
    assert [str(s) for s in AgentState] == ["running", "waiting", "paused", "idle", "interrupted", "killed", "failed"]
    assert f"{AgentState.WAITING}" == "waiting" and AgentState("paused") is AgentState.PAUSED
    assert {o for o in Outcome if not o.failed} == {Outcome.OK, Outcome.GRANTED}
