"""An automation whose primary is down completes on its route (issue 25); a definition naming a
fallback at another vendor without opting in is refused with a sentence and stores nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.automations.model import Automation
from kernel.automations.schedule import ScheduleRefused
from tests.fakes import HttpError, Text, Turn

from .conftest import run
from .routes_env import route_env

OVERLOADED = Turn(fault=HttpError(529, kind="overloaded_error"))


def digest(workspace: str, **changes: object) -> Automation:
    return Automation(id="", name="Digest", objective="Say what changed.", schedule="0 7 * * *", timezone="UTC",
                      workspace=workspace, provider="anthropic", model="claude-sonnet-4-5", **changes)  # type: ignore[arg-type]


def test_a_run_whose_primary_is_down_completes_on_its_route(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED)
        env.b.script(Turn(parts=(Text("Nothing changed."),)))

        async def body() -> str:
            a = env.kernel.automations.add(digest(str(tmp_path / "ws"), fallbacks=("openai:gpt-5",),
                                                  any_vendor=True))
            task = env.kernel.automations.start_run(a.id)
            assert task is not None
            record = await task
            await env.aclose()
            assert record is not None
            return record.outcome

        assert run(body()) == "succeeded"
        env.a.assert_done()
        env.b.assert_done()
    last = env.requests()[-1]
    assert (last.provider, last.requested_provider, last.route_reason) == (
        "openai", "anthropic", "fallback after anthropic overloaded ×3")


def test_a_definition_sending_runs_to_another_vendor_needs_the_opt_in(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        with pytest.raises(ScheduleRefused, match="another vendor"):
            env.kernel.automations.add(digest(str(tmp_path / "ws"), fallbacks=("openai:gpt-5",)))
        with pytest.raises(ScheduleRefused, match="provider:model"):
            env.kernel.automations.add(digest(str(tmp_path / "ws"), fallbacks=("gpt-5",)))
        assert env.kernel.automations.list() == []
