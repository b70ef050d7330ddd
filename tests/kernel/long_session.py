"""A long scripted session with forced compactions, through a real SDK to the strict loopback fake.

Shared by tests/kernel/test_long_session.py (a short run on all four protocols, inside the CI budget)
and benchmarks/long_session_bench.py (the full 300 turns of issue 24, which took ~25 s a protocol on a
loaded 2-core machine: too slow for the suite).

Each user message starts a tool loop: the model writes a file (``fs_write``), makes an outward call
(``notify``, recorded through the kernel's outward book: an intent, then its outcome), then answers.
The usage the fake reports is scripted: under the threshold (75% of a 20,000-token window) except on
the requests chosen to cross it, spread over the session and falling inside tool loops as well as at
their ends. ``check`` then reads the wire and the ledger and returns every broken promise, in words:
an orphaned call or result the fake refused, a system prompt that changed, a frontier missing a write or
an outward call made since the user's last message, a compaction later than the request after the
crossing (or one with no crossing), two compactions with no request between, leases not as granted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.context.compaction import SUMMARY_SYSTEM
from kernel.core.clock import ManualClock
from kernel.core.risk import Risk
from kernel.tools.descriptor import ToolContext, ToolDescriptor, ToolOutput
from kernel.tools.outward import OutwardBook
from kernel.tools.registry import builtin_registry
from ledger import Compaction, FileChange, Intent, Ledger, ModelRequest, UserTurn
from tests.fakes import FakeProviderServer, Text, ToolCall, Turn, Usage
from tests.providers.support import wire_conversation

WINDOW = 20_000
LOW, HIGH = 2_000, 16_000  # reported input tokens: under, and over, 75% of WINDOW
CALLS = 3  # requests per user message: the write, the outward call, the answer
RULE = "Project rule 7: every file ends with a newline."  # in AGENTS.md: must be in every system prompt
SCOPES = ("fs.write", "test.notify")
NOTIFY_SCHEMA = {"type": "object", "properties": {"to": {"type": "string"}, "text": {"type": "string"}},
                 "required": ["to", "text"], "additionalProperties": False}


def notify_tool() -> ToolDescriptor:
    """An outward call as the kernel's mail tools make one: an intent, the act, its outcome, at most once."""

    async def run(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        async def act(key: str) -> Mapping[str, Any]:
            return {"id": key[:12]}

        async def verify(intent: Intent) -> bool:
            return False

        outcome, _ = await OutwardBook(ctx.ledger).once(ctx, "notify", args, lambda _key: str(args.get("to", "")),
                                                        act, verify)
        return ToolOutput(f"notify: {outcome.status}")

    return ToolDescriptor(name="notify", description="tell someone something (leaves the machine)",
                          input_schema=NOTIFY_SCHEMA, output_schema={}, tool_class="write", scope="test.notify",
                          run=run, risk=Risk.LOCAL_WRITE, trusted=True)


@dataclass(frozen=True)
class Plan:
    turns: int        # conversation requests (model turns)
    compactions: int  # forced by scripted usage

    @property
    def crossings(self) -> tuple[int, ...]:
        """The conversation requests whose reported input crosses the threshold: evenly spread, never the
        first two, landing on every place in a tool loop in turn (after the write, the call, the answer)."""
        step = self.turns // (self.compactions + 1)
        out = []
        for i in range(1, self.compactions + 1):
            at = i * step
            out.append(at - at % CALLS + (i % CALLS))
        return tuple(out)


def script(srv: FakeProviderServer, plan: Plan) -> None:
    """The fake's turns in request order: each crossing request is followed by the summary's."""
    crossings = set(plan.crossings)
    for k in range(plan.turns):
        user, step = divmod(k, CALLS)
        usage = Usage(HIGH if k in crossings else LOW, 10)
        if step == 0:
            part: Text | ToolCall = ToolCall("fs_write", {"path": f"notes/n{user}.txt", "content": f"note {user}\n"})
        elif step == 1:
            part = ToolCall("notify", {"to": f"person{user}@example.com", "text": f"note {user} is written"})
        else:
            part = Text(f"Done with step {user}.")
        srv.script(Turn(parts=(part,), usage=usage))
        if k in crossings:
            srv.script(Turn(parts=(Text(f"Summary at request {k}: notes written, people told."),),
                            usage=Usage(LOW, 60)))


@dataclass
class Session:
    agent_id: str
    leases_before: list[tuple[str, float]]
    leases_after: list[tuple[str, float]]


async def drive(protocol_adapter: Any, ledger: Ledger, workspace: Path, clock: ManualClock, plan: Plan) -> Session:
    """Run the session on one kernel in this process (the fake already scripted)."""
    (workspace / "AGENTS.md").write_text(f"# Project\n{RULE}\n")
    settings = Settings(workspace=str(workspace), context_window=WINDOW, compact_at=0.75, default_budget=10**9)
    kernel = build_kernel(ledger=ledger, settings=settings, providers=lambda _n: protocol_adapter, clock=clock,
                          tools=builtin_registry(extra=(notify_tool(),)))
    agent = kernel.agents.spawn("long")
    for scope in SCOPES:
        kernel.leases.grant(agent.id, scope, 8 * 3600)
    before = [(l.scope, l.until) for l in kernel.leases.list(agent.id)]
    for user in range(plan.turns // CALLS):
        kernel.agents.send(agent.id, f"Step {user}: write notes/n{user}.txt and tell person{user}.")
        info = await kernel.agents.wait(agent.id)
        if info.state != "idle":
            raise AssertionError(f"step {user}: the agent is {info.state} ({info.reason})")
    after = [(l.scope, l.until) for l in kernel.leases.list(agent.id)]
    return Session(agent.id, before, after)


def _system(request: Any) -> str:
    system, _ = wire_conversation(request.protocol, request.body)
    return system if isinstance(system, str) else json.dumps(system, sort_keys=True)


def check(srv: FakeProviderServer, since: tuple[int, int], ledger: Ledger, session: Session, plan: Plan) -> list[str]:
    """Every promise of issue 24's long-session test that the wire and the record show broken (``since``:
    how many requests and refusals the fake had before this session)."""
    problems = [f"refused by the fake: {why}" for why in srv.refused[since[1]:]]
    if srv.pending_turns:
        problems.append(f"{srv.pending_turns} scripted turns never asked for")
    requests = srv.requests[since[0]:]
    summary = [SUMMARY_SYSTEM.splitlines()[0] in _system(r) for r in requests]
    conversation = [r for r, s in zip(requests, summary) if not s]
    if len(conversation) != plan.turns:
        problems.append(f"{len(conversation)} conversation requests, {plan.turns} scripted")
    systems = {_system(r) for r in conversation}
    if len(systems) != 1:
        problems.append(f"the system prompt changed: {len(systems)} different ones")
    if not all(RULE in s for s in systems):
        problems.append("AGENTS.md is missing from a system prompt")
    # the trigger: the request right after each crossing is the summary's, and no other is
    ordinal, expected = -1, set()
    for i, r in enumerate(requests):
        if summary[i]:
            if i - 1 not in expected:
                problems.append(f"a summary (request {i}) with no crossing just before it")
            if i > 0 and summary[i - 1]:
                problems.append(f"two compactions back to back (requests {i - 1} and {i})")
            continue
        ordinal += 1
        if ordinal in plan.crossings:
            expected.add(i)
    for i in expected:
        if i + 1 >= len(requests) or not summary[i + 1]:
            problems.append(f"the crossing at request {i} was not followed at once by a compaction")
    problems += _check_record(ledger, session, plan)
    return problems


def _check_record(ledger: Ledger, session: Session, plan: Plan) -> list[str]:
    problems: list[str] = []
    entries = sorted((e for kind in (Compaction.KIND, FileChange.KIND, Intent.KIND, UserTurn.KIND, ModelRequest.KIND)
                      for e in ledger.page(kind=kind, actor=session.agent_id, limit=10_000)), key=lambda e: e.seq)
    compactions = [e for e in entries if isinstance(e, Compaction)]
    if [(c.mode, c.trigger) for c in compactions] != [("summary", "auto")] * plan.compactions:
        problems.append(f"compactions on record: {[(c.mode, c.trigger) for c in compactions]}")
    since_user: list[FileChange | Intent] = []
    requests_since = 1
    leases_line = {f"{scope} (until" for scope, _ in session.leases_before}
    for e in entries:
        if isinstance(e, UserTurn):
            since_user = []
        elif isinstance(e, (FileChange, Intent)):
            since_user.append(e)
        elif isinstance(e, ModelRequest) and e.reason != "compaction":
            requests_since += 1
        elif isinstance(e, Compaction):
            if requests_since == 0:
                problems.append(f"compaction #{e.seq} follows another with no request between")
            requests_since = 0
            missing = [f"#{x.seq}" for x in since_user if f"(#{x.seq})" not in e.context and f"- #{x.seq} " not in e.context]
            if missing:
                problems.append(f"compaction #{e.seq}: the frontier misses {', '.join(missing)}")
            if not all(line in e.context for line in leases_line):
                problems.append(f"compaction #{e.seq}: the live leases are not all in the frontier")
    if session.leases_before != session.leases_after:
        problems.append(f"leases changed: {session.leases_before} → {session.leases_after}")
    return problems
