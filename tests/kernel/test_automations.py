"""Automations through a real kernel: schedules refused and in words, claims, catch-up, runs, the Inbox.

Every test drives the real scheduler on a plain asyncio loop with a manual clock (no sleeps); the
model is the strict scripted provider, or the real openai SDK against a loopback server that is down.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from kernel.automations import Automation, PolicyItem, Schedule, ScheduleRefused
from kernel.core.clock import ManualClock
from kernel.facade import Kernel
from kernel.compose import build_kernel
from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.registry import make_provider
from kernel.providers.scripted import Hold, ScriptedProvider, ScriptedTurn, reply
from kernel.config.settings import Settings
from ledger import Denied, LeaseGrant, LeaseRevoke, Ledger
from tests.fakes import FakeProviderServer

from .conftest import run, until

BERLIN = "Europe/Berlin"
T0 = datetime(2026, 12, 7, 8, 30, tzinfo=ZoneInfo("UTC")).timestamp()  # a Monday


def hourly(env, **changes) -> Automation:
    a = Automation(id="", name="Notes digest", objective="Summarise what changed in notes/.",
                   schedule="0 * * * *", timezone="UTC", workspace=str(env.workspace), **changes)
    return env.kernel.automations.add(a)


def runs(env, a):
    return env.kernel.automations.runs(a.id)


# ---- schedules ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["every 59m", "*/30 * * * *", "0,30 9 * * *", "15,45 * * * 1-5", "every 30 minutes"])
def test_schedules_that_can_run_less_than_an_hour_apart_are_refused_with_a_sentence(text):
    with pytest.raises(ScheduleRefused) as caught:
        Schedule(text, BERLIN).check(T0)
    assert "less than one hour apart" in caught.value.reason


@pytest.mark.parametrize("text,words", [
    ("0 7 * * 1-5", "every weekday at 07:00 (Europe/Berlin)"),
    ("0 9,9 * * *", "every day at 09:00 (Europe/Berlin)"),
    ("0 * * * *", "every hour at minute 00 (Europe/Berlin)"),
    ("30 18 * * 1,4", "every Monday and Thursday at 18:30 (Europe/Berlin)"),
    ("every 1h", "every hour"),
    ("every 2h", "every 2 hours"),
])
def test_allowed_schedules_pass_and_read_in_words(text, words):
    s = Schedule(text, BERLIN)
    s.check(T0)
    assert s.words() == words


def test_the_one_hour_rule_is_checked_over_real_fire_times_across_dst():
    march = datetime(2026, 3, 1, tzinfo=ZoneInfo(BERLIN)).timestamp()
    # 01:30 and 02:30 are an hour apart on the clock, but 02:30 does not exist on 29 March: it runs at 03:00
    with pytest.raises(ScheduleRefused, match="at 01:30 and 03:00 on 29 March 2026, 30 minutes apart"):
        Schedule("30 1,2 * * *", BERLIN).check(march)
    Schedule("30 1,2 * * *", "UTC").check(march)  # no DST there
    # several minutes in an hour on a rare day is refused though that day is weeks away
    with pytest.raises(ScheduleRefused, match="on 15 April 2026"):
        Schedule("0,30 9 15 4 *", BERLIN).check(march)


def test_malformed_schedules_and_zones_are_refused_with_a_sentence():
    for text, tz, says in [("0 7 * *", BERLIN, "5-field"), ("0 25 * * *", BERLIN, "cron expression"),
                           ("0 7 * * *", "Mars/Olympus", "timezone"), ("every soon", BERLIN, "interval")]:
        with pytest.raises(ScheduleRefused, match=says):
            Schedule(text, tz).check(T0)


def test_the_kernel_refuses_the_definition_and_stores_nothing(make_env):
    env = make_env()
    with pytest.raises(ScheduleRefused, match="less than one hour apart"):
        env.kernel.automations.add(Automation(id="", name="n", objective="o", schedule="every 59m"))
    assert env.kernel.automations.list() == []


def test_dst_spring_forward_and_fall_back_in_berlin_fire_each_daily_slot_once():
    daily = Schedule("30 2 * * *", BERLIN)
    zone = ZoneInfo(BERLIN)
    spring = datetime(2026, 3, 28, 12, tzinfo=zone).timestamp()
    fires = [datetime.fromtimestamp(t, zone) for t in daily.latest_fires(spring, spring + 3 * 86400, spring)]
    assert [f"{f:%d %H:%M %Z}" for f in fires] == ["29 03:00 CEST", "30 02:30 CEST", "31 02:30 CEST"]
    autumn = datetime(2026, 10, 24, 12, tzinfo=zone).timestamp()
    fires = [datetime.fromtimestamp(t, zone) for t in daily.latest_fires(autumn, autumn + 3 * 86400, autumn)]
    assert [f"{f:%d %H:%M %Z}" for f in fires] == ["25 02:30 CEST", "26 02:30 CET", "27 02:30 CET"]
    # hourly over the fall-back night: both 02:00s fire, an hour apart in real time, and the check allows it
    hourly_ = Schedule("0 * * * *", BERLIN)
    start = datetime(2026, 10, 25, 1, 30, tzinfo=zone).timestamp()
    fires = hourly_.latest_fires(start, start + 3 * 3600, start)
    assert [b - a for a, b in zip(fires, fires[1:])] == [3600.0, 3600.0]
    hourly_.check(datetime(2026, 10, 24, tzinfo=zone).timestamp())


# ---- scheduling --------------------------------------------------------------------------------


def test_after_downtime_one_catch_up_for_the_latest_slot_and_the_rest_missed(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)
    env.clock.advance(10 * 3600)  # the kernel was not running: 10 slots passed
    env.provider.script(reply("Nothing new in notes."))

    async def go():
        env.kernel.automations.start()
        await until(lambda: any(r.outcome == "succeeded" for r in runs(env, a)))
        await env.kernel.aclose()

    run(go())
    records = runs(env, a)
    assert sorted(r.outcome for r in records).count("missed") == 9
    done = [r for r in records if r.outcome == "succeeded"]
    assert len(done) == 1 and done[0].slot == T0 + 9.5 * 3600  # the latest slot, 18:00
    assert len(env.kernel.agents.list()) == 1
    env.provider.assert_done()


def test_a_slot_older_than_the_grace_window_is_missed_not_run(make_env):
    env = make_env(automation_grace_s=600.0)
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)
    env.clock.advance(3 * 3600)  # latest slot 11:00, now 11:30: outside a 10-minute grace

    async def go():
        env.kernel.automations.start()
        await until(lambda: len(runs(env, a)) == 3)
        await env.kernel.aclose()

    run(go())
    assert [r.outcome for r in runs(env, a)] == ["missed"] * 3
    assert env.kernel.agents.list() == []


def test_two_schedulers_on_one_home_run_a_slot_once(make_env, tmp_path):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)
    other_ledger = Ledger(tmp_path / "ledger.db", clock=env.clock.now)
    other = build_kernel(ledger=other_ledger, settings=env.kernel.settings, providers=lambda _n: env.provider,
                   clock=env.clock)
    env.provider.script(reply("Done."))

    async def go():
        env.kernel.automations.start()
        other.automations.start()
        await until(lambda: env.clock.sleepers >= 2)
        env.clock.advance(1800)  # 09:00
        await until(lambda: any(r.outcome == "succeeded" for r in runs(env, a)))
        await env.kernel.aclose()
        await other.aclose()

    run(go())
    other_ledger.close()
    assert [r.outcome for r in runs(env, a)] == ["succeeded"]
    spawned = env.kernel.agents.list() + other.agents.list()
    assert len(spawned) == 1
    env.provider.assert_done()


# ---- runs ----------------------------------------------------------------------------------------


def test_a_run_gets_its_policy_leases_context_and_the_prior_runs_state(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    (env.workspace / "notes").mkdir()
    a = hourly(env, policy=(PolicyItem("fs.write", 600.0),))
    seen: list[str] = []
    env.provider.script(
        reply(tools=(("fs_write", {"path": "notes/digest.md", "content": "# digest\n"}),)),
        reply("Wrote notes/digest.md."),
        reply("NOTHING TO DO: no changes since the last digest.",
              check=lambda req: seen.append(str(req.messages[0].parts[0].text))))

    async def go():
        env.kernel.automations.start()
        await until(lambda: env.clock.sleepers >= 1)
        env.clock.advance(1800)
        await until(lambda: len(runs(env, a)) == 1)
        await until(lambda: env.clock.sleepers >= 1)
        env.clock.advance(3600)
        await until(lambda: len(runs(env, a)) == 2)
        await env.kernel.aclose()

    run(go())
    first, second = sorted(runs(env, a), key=lambda r: r.slot)
    assert first.outcome == "succeeded" and first.files == (str(env.workspace / "notes" / "digest.md"),)
    assert second.outcome == "nothing-to-do"
    text = seen[0]
    assert "Summarise what changed in notes/." in text and "Ada" in text and str(env.workspace) in text
    assert "Previous run" in text and "succeeded" in text and "Wrote notes/digest.md." in text
    assert "digest.md" in text.split("Files it changed:")[1]
    grants = [e for e in env.ledger.page(kind="lease.grant") if isinstance(e, LeaseGrant)]
    assert {g.actor for g in grants} == {f"automation:{a.id}"} and len(grants) == 2
    revokes = [e for e in env.ledger.page(kind="lease.revoke") if isinstance(e, LeaseRevoke)]
    assert len(revokes) == 2 and all(r.actor == f"automation:{a.id}" for r in revokes)
    assert env.kernel.leases.list() == []
    names = sorted(x.name for x in env.kernel.agents.list())
    assert names[0].startswith("Notes digest · ")
    env.provider.assert_done()


def test_an_out_of_policy_request_is_denied_at_once_and_lands_in_the_inbox(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env, policy=(PolicyItem("fs.read", 600.0),))
    told: list[str] = []
    env.provider.script(
        reply(tools=(("fs_write", {"path": "x.md", "content": "x"}),)),
        reply("I could not write x.md.", check=lambda req: told.append(str(req.messages[-1].parts[0].content))))

    async def go():
        task = env.kernel.automations.start_run(a.id)
        assert task is not None
        record = await task  # no hang: nobody answers, and nothing waits
        await env.kernel.aclose()
        return record

    record = run(go())
    assert (record.outcome, record.detail) == ("blocked", "every action it tried was refused: 1 outside its policy, "
                                                          "waiting in the Inbox")
    denied = [e for e in env.ledger.page(kind="denied") if isinstance(e, Denied)]
    assert len(denied) == 1 and denied[0].actor == f"automation:{a.id}" and denied[0].scope == "fs.write"
    assert "outside the automation's policy" in told[0]
    assert env.approver.requests == []  # the person's approver was never asked
    [item] = env.kernel.automations.inbox()
    assert (item.automation, item.kind, item.scope) == (a.id, "request", "fs.write")
    # the user adds it to the policy (the confirmation is the desktop's / the CLI's); future runs get it
    updated = env.kernel.automations.add_to_policy(item.id, 900.0)
    assert [p.scope for p in updated.policy] == ["fs.read", "fs.write"]
    assert env.kernel.automations.inbox() == []
    assert [act for _, act, _ in env.kernel.automations.history(a.id)] == ["create", "update"]


def test_a_run_with_a_refusal_and_an_action_that_went_through_succeeded(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    (env.workspace / "notes.md").write_text("n")
    a = hourly(env, policy=(PolicyItem("fs.read", 600.0),))
    env.provider.script(reply(tools=(("fs_write", {"path": "x.md", "content": "x"}),)),
                        reply(tools=(("fs_read", {"path": "notes.md"}),)), reply("Read the notes; could not write."))

    async def go():
        record = await env.kernel.automations.start_run(a.id)
        await env.kernel.aclose()
        return record

    record = run(go())
    assert record.outcome == "succeeded" and len(env.kernel.automations.inbox()) == 1


def test_three_refusals_in_a_row_stop_the_run_as_blocked(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)
    gate = asyncio.Event()
    env.provider.script(
        reply(tools=(("fs_write", {"path": "a", "content": "a"}),)),
        reply(tools=(("fs_write", {"path": "b", "content": "b"}),)),
        reply(tools=(("shell_exec", {"command": "true"}),)),
        ScriptedTurn((UsageReport(1, 0), Hold(gate), TextChunk("never"), StreamEnd("end_turn"))))

    async def go():
        record = await env.kernel.automations.start_run(a.id)
        await env.kernel.aclose()
        return record

    record = run(go())
    assert record.outcome == "blocked"
    assert len(env.kernel.automations.inbox()) == 3
    [agent] = env.kernel.agents.list()
    assert agent.state.value == "killed"


def test_an_offline_provider_fails_the_run_and_it_is_retried_with_backoff(make_env):
    with FakeProviderServer() as srv:
        url = srv.openai_base_url
    # the server is down now: the real SDK cannot connect
    settings = Settings(max_retries=0)
    env = make_env(max_retries=0, provider="openai-chat")
    env.kernel._services.providers = lambda name: make_provider(  # noqa: SLF001 - a real adapter for this kernel
        "openai-chat", api_key="test-key", base_url=url, settings=settings)
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)

    async def go():
        env.kernel.automations.start()
        await until(lambda: env.clock.sleepers >= 1)
        env.clock.advance(1800)  # 09:00
        await until(lambda: len(runs(env, a)) == 1, spins=200_000)
        await until(lambda: env.clock.sleepers >= 1)
        env.clock.advance(29)
        await asyncio.sleep(0)
        assert len(runs(env, a)) == 1  # not yet: the first retry waits 30 s
        env.clock.advance(1)
        await until(lambda: len(runs(env, a)) == 2, spins=200_000)
        await env.kernel.aclose()

    run(go())
    newest, first = runs(env, a)
    assert first.outcome == "failed" and first.detail.startswith("offline")
    assert (newest.slot, newest.attempt, newest.outcome) == (first.slot, 1, "failed")


def test_failed_slots_in_a_row_pause_the_automation_with_an_inbox_notice(make_env):
    env = make_env(automation_pause_after=2)
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)
    from kernel.core.errors import ProviderError
    env.provider.script(ScriptedTurn((ProviderError("scripted", "server", "boom"),)),
                        ScriptedTurn((ProviderError("scripted", "server", "boom"),)))

    async def go():
        env.kernel.automations.start()
        for _ in range(2):
            n = len(runs(env, a))
            await until(lambda: env.clock.sleepers >= 1)
            env.clock.advance(3600)
            await until(lambda: len(runs(env, a)) > n)
        await env.kernel.aclose()

    run(go())
    assert [r.outcome for r in runs(env, a)] == ["failed", "failed"]
    assert env.kernel.automations.get(a.id).enabled is False
    [notice] = env.kernel.automations.inbox()
    assert notice.kind == "notice" and "paused itself" in notice.detail
    env.provider.assert_done()


class MidRun:
    """One home where a kernel is abandoned mid-run (as kill -9 would leave it) and a second kernel starts:
    the set-up both interrupted-run tests share."""

    def __init__(self, tmp_path, later: ScriptedProvider, **automation) -> None:
        self.ws = tmp_path / "ws"
        self.ws.mkdir()
        self.db = tmp_path / "ledger.db"
        self.clock = ManualClock(T0)
        self.settings = Settings(user_name="Ada", workspace=str(self.ws))
        provider = ScriptedProvider()
        self.reached = asyncio.Event()
        provider.script(ScriptedTurn((UsageReport(1, 0), Hold(asyncio.Event(), self.reached), StreamEnd("end_turn"))))
        self.first_ledger = Ledger(self.db, clock=self.clock.now)
        self.first = build_kernel(ledger=self.first_ledger, settings=self.settings, providers=lambda _n: provider,
                            clock=self.clock)
        self.automation = self.first.automations.add(Automation(
            id="", name="Digest", objective="o", schedule="0 * * * *", workspace=str(self.ws), **automation))
        self.later = later
        self.second_ledger: Ledger | None = None

    async def abandon_first_mid_run(self) -> Kernel:
        """Run the first kernel's slot to mid-stream, then start a second kernel on the same home."""
        self.first.automations.start()
        await until(lambda: self.clock.sleepers >= 1)
        self.clock.advance(1800)
        await self.reached.wait()  # the run is mid-stream: now the first kernel is abandoned
        self.second_ledger = Ledger(self.db, clock=self.clock.now)
        return build_kernel(ledger=self.second_ledger, settings=self.settings, providers=lambda _n: self.later,
                      clock=self.clock)

    def close(self) -> None:
        self.first_ledger.close()
        if self.second_ledger is not None:
            self.second_ledger.close()


def test_a_run_the_kernel_was_killed_during_is_interrupted_and_never_run_twice(tmp_path):
    home = MidRun(tmp_path, ScriptedProvider())  # strict: any request to the second kernel fails the test

    async def go():
        second = await home.abandon_first_mid_run()
        interrupted = second.automations.start()
        await until(lambda: home.clock.sleepers >= 2)
        await second.aclose()
        return interrupted, second.automations.runs(home.automation.id)

    interrupted, records = run(go())
    home.close()
    assert [(r.outcome, r.slot) for r in interrupted] == [("interrupted", T0 + 1800)]
    assert [r.outcome for r in records] == ["interrupted"]


def test_an_automation_that_says_retry_runs_its_interrupted_slot_again_once(tmp_path):
    later = ScriptedProvider()
    later.script(reply("Done after the restart."))
    home = MidRun(tmp_path, later, retry_interrupted=True)

    async def go():
        second = await home.abandon_first_mid_run()
        second.automations.start()
        await until(lambda: home.clock.sleepers >= 2)
        home.clock.advance(30)  # the first retry's backoff
        await until(lambda: len(second.automations.runs(home.automation.id)) == 2)
        await second.aclose()
        return second.automations.runs(home.automation.id)

    records = run(go())
    home.close()
    assert [(r.attempt, r.outcome) for r in records] == [(1, "succeeded"), (0, "interrupted")]
    later.assert_done()


# ---- the model's tool --------------------------------------------------------------------------


def test_automation_create_through_the_loop_asks_a_confirmation_and_refused_schedules_come_back(make_env):
    from kernel.leases.approver import Grant
    from ledger import Confirmed

    from .conftest import ScriptedApprover

    stored_when_asked: list[list] = []

    class Confirming(ScriptedApprover):
        async def decide(self, request):
            stored_when_asked.append(env.kernel.automations.list())
            return await super().decide(request)

    approver = Confirming().will(Grant(0.0))
    env = make_env(approver=approver)
    proposal = {"name": "Notes digest", "objective": "Summarise notes/", "timezone": BERLIN,
                "policy": [{"scope": "fs.read", "minutes": 10}]}
    errors: list[str] = []
    env.provider.script(
        reply(tools=(("automation_create", {**proposal, "schedule": "*/30 * * * *"}),)),
        reply(tools=(("automation_create", {**proposal, "schedule": "0 7 * * 1-5"}),),
              check=lambda req: errors.append(str(req.messages[-1].parts[0].content))),
        reply("Created it."))
    agent = env.kernel.agents.spawn("helper")

    async def go():
        env.kernel.agents.send(agent.id, "make me a weekday digest")
        await env.kernel.agents.wait(agent.id)

    run(go())
    assert "less than one hour apart" in errors[0]  # refused before anyone was asked
    [asked] = approver.requests  # the one one-off path: a lease request with once=True, no durations
    assert asked.once and asked.scope == "automation.create" and asked.durations == (0.0,)
    assert "Runs: every weekday at 07:00 (Europe/Berlin)" in asked.detail
    assert "Each run may use: fs.read for 10 min" in asked.detail
    assert "confirmed every time" in asked.reason
    assert stored_when_asked == [[]]  # nothing before the user says yes
    [view] = env.kernel.automations.list()
    assert view.automation.name == "Notes digest" and view.automation.workspace == str(env.workspace)
    assert [by for _, _, by in env.kernel.automations.history(view.automation.id)] == [agent.id]
    [confirmed] = [e for e in env.ledger.page(kind="confirm", limit=10) if isinstance(e, Confirmed)]
    assert confirmed.tool == "automation_create" and confirmed.subject == agent.id
    assert env.kernel.leases.list() == []  # a confirmation grants no lease
    env.provider.assert_done()


def test_a_declined_confirmation_creates_nothing(make_env):
    from kernel.leases.approver import Denial

    env = make_env()
    env.approver.will(Denial())
    told: list[str] = []
    env.provider.script(
        reply(tools=(("automation_create", {"name": "n", "objective": "o", "schedule": "every 1d", "policy": []}),)),
        reply("OK.", check=lambda req: told.append(str(req.messages[-1].parts[0].content))))
    agent = env.kernel.agents.spawn("helper")

    async def go():
        env.kernel.agents.send(agent.id, "go")
        await env.kernel.agents.wait(agent.id)

    run(go())
    assert "permission denied" in told[0] and "automation.create" in told[0]
    assert env.kernel.automations.list() == []


def test_no_lease_and_no_policy_but_deny_stands_in_for_the_automation_create_confirmation(make_env):
    from kernel.leases.approver import Denial, Grant

    env = make_env(policies={"automation.create": "auto", "automation": "ask"})
    env.approver.will(Grant(0.0), Denial())
    env.kernel.leases.grant(agent := env.kernel.agents.spawn("helper").id, "automation.create", 3600)  # covers nothing
    call = {"name": "n", "objective": "o", "schedule": "every 1d", "policy": []}
    env.provider.script(reply(tools=(("automation_create", call),)), reply(tools=(("automation_create", call),)),
                        reply("done"))

    async def go():
        env.kernel.agents.send(agent, "go")
        await env.kernel.agents.wait(agent)

    run(go())
    assert [(r.once, r.scope) for r in env.approver.requests] == [(True, "automation.create")] * 2
    assert len(env.kernel.automations.list()) == 1
    from kernel.tools.descriptor import Risk
    from kernel.trust.policy import Mode, mode_for

    assert mode_for("automation.create", Risk.OUTWARD, {"automation": "deny"}, always_confirm=True) is Mode.DENY
    assert mode_for("automation.create", Risk.OUTWARD, {"automation.create": "auto"}, always_confirm=True) \
        is Mode.CONFIRM


def test_an_automation_run_that_calls_automation_create_is_refused_at_once_into_the_inbox(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)
    env.provider.script(
        reply(tools=(("automation_create", {"name": "n", "objective": "o", "schedule": "every 1d", "policy": []}),)),
        reply("Could not."))

    async def go():
        record = await env.kernel.automations.start_run(a.id)
        await env.kernel.aclose()
        return record

    record = run(go())
    assert env.approver.requests == []  # nobody was asked
    [item] = env.kernel.automations.inbox()
    assert item.scope == "automation.create" and "refused at once" in item.detail
    assert record.outcome == "blocked" and env.kernel.automations.list()[0].automation.id == a.id
    assert len(env.kernel.automations.list()) == 1


def test_a_scope_refused_at_once_cannot_be_added_to_the_policy_and_the_inbox_says_why(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env, policy=(PolicyItem("shell.exec", 600.0),))
    env.provider.script(reply(tools=(("shell_exec", {"command": "curl example.test", "network": True}),)),
                        reply("Could not fetch."))

    async def go():
        record = await env.kernel.automations.start_run(a.id)
        await env.kernel.aclose()
        return record

    assert run(go()).outcome == "blocked"
    [item] = env.kernel.automations.inbox()
    assert (item.scope, item.kind) == ("shell.exec.net", "confirm")
    with pytest.raises(ScheduleRefused) as refused:
        env.kernel.automations.add_to_policy(item.id, 1800.0)
    assert refused.value.reason.startswith("Adding shell.exec.net to the policy of “Notes digest” would not help: ")
    assert "confirmed one call at a time" in refused.value.reason
    assert [p.scope for p in env.kernel.automations.get(a.id).policy] == ["shell.exec"]  # nothing added
    assert [i.id for i in env.kernel.automations.inbox()] == [item.id]  # still there to read or dismiss


def test_a_run_past_its_time_limit_is_stopped_as_timed_out_and_its_leases_revoked(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env, time_limit_s=120.0, policy=(PolicyItem("fs.read", 600.0),))
    gate, reached = asyncio.Event(), asyncio.Event()
    env.provider.script(ScriptedTurn((UsageReport(1, 0), Hold(gate, reached), StreamEnd("end_turn"))))

    async def go():
        task = env.kernel.automations.start_run(a.id)
        await reached.wait()
        assert [l.scope for l in env.kernel.leases.list()] == ["fs.read"]
        env.clock.advance(120)  # the kernel clock, not real time
        record = await task
        await env.kernel.aclose()
        return record

    record = run(go())
    assert record.outcome == "timed-out"
    assert env.kernel.leases.list() == []
    [agent] = env.kernel.agents.list()
    assert agent.state.value == "killed" and "time limit" in agent.reason


def test_a_run_that_reaches_its_budget_ends_over_budget(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env, budget=1000)
    env.provider.script(reply(tools=(("fs_list", {}),), usage=(900, 200)))

    async def go():
        record = await env.kernel.automations.start_run(a.id)
        await env.kernel.aclose()
        return record

    record = run(go())
    assert record.outcome == "over-budget"
    env.provider.assert_done()


def test_closing_the_kernel_mid_run_ends_the_run_as_cancelled_without_hanging(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)
    gate, reached = asyncio.Event(), asyncio.Event()
    env.provider.script(ScriptedTurn((UsageReport(1, 0), Hold(gate, reached), StreamEnd("end_turn"))))

    async def go():
        env.kernel.automations.start()
        env.kernel.automations.run_now(a.id)
        await reached.wait()
        await env.kernel.aclose()

    run(go())
    [record] = runs(env, a)
    assert record.outcome == "cancelled" and "shut down" in record.detail
