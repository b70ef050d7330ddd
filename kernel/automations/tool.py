"""``automation_create``: the model proposes an automation; the user confirms the whole of it, every time.

Scope ``automation.create``, risk R3 (it acts later, with nobody watching).
It takes the one one-off confirmation path every outward call takes
(``agents/gate.py``, ``permission.confirm_once``): ``always_confirm``
means no lease and no policy but ``deny`` stands in for it, and ``detail_of``
puts the whole definition in words into the request, which the lease dialog
and the terminal prompt show. Before anyone is asked the kernel checks the
definition: a refused schedule or policy comes back as an error result whose
sentence the model can act on. An unattended agent (an automation run) is
refused at once by the gate, into the Inbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..core.errors import ToolFailure
from ..tools.descriptor import Risk, ToolContext, ToolDescriptor, ToolOutput
from .model import Automation, PolicyItem
from .schedule import ScheduleRefused

if TYPE_CHECKING:
    from .service import Automations

SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 80},
        "objective": {"type": "string", "minLength": 1, "maxLength": 4000},
        "schedule": {"type": "string", "description": "5-field cron ('0 7 * * 1-5') or 'every 2h'; at least an hour apart"},
        "timezone": {"type": "string", "description": "IANA name, e.g. Europe/Berlin (default UTC)"},
        "policy": {"type": "array", "maxItems": 16, "items": {
            "type": "object", "properties": {"scope": {"type": "string"},
                                             "minutes": {"type": "integer", "minimum": 1, "maximum": 480}},
            "required": ["scope", "minutes"], "additionalProperties": False}},
        "budget": {"type": "integer", "minimum": 1000, "maximum": 2_000_000},
        "time_limit_minutes": {"type": "integer", "minimum": 1, "maximum": 1440},
    },
    "required": ["name", "objective", "schedule", "policy"],
    "additionalProperties": False,
}


def definition_lines(a: Automation, words: str) -> tuple[str, ...]:
    """The whole definition, in words, as the confirmation shows it: one field a line, so the name (on one
    line) and the objective (its further lines quoted) cannot add a line that reads as another field."""
    policy = ", ".join(f"{p.scope} for {int(p.duration_s // 60)} min" for p in a.policy) or "none: every request refused"
    first, *rest = a.objective.splitlines() or [""]
    return (f"Name: {' '.join(a.name.split())}", f"Runs: {words}", f"Objective: {first}",
            *(f"  \u2502 {line}" for line in rest), f"Each run may use: {policy}",
            f"Budget per run: {a.budget:,} tokens; time limit: {int(a.time_limit_s // 60)} min",
            f"Workspace: {a.workspace}", "Runs are unattended: anything outside the policy is refused and goes to the Inbox.")


def automation_tool(desk: "Callable[[], Automations]") -> ToolDescriptor:
    """The tool, bound to the kernel's automations desk (asked for at each call: the desk is built after the
    tool registry it serves)."""
    def proposal(agent_id: str, tool_input: Mapping[str, Any]) -> Automation:
        """The automation the call describes, checked by the kernel (ToolFailure: refused, in words)."""
        automations = desk()
        agent = automations.host.process(agent_id)
        a = Automation(
            id="", name=str(tool_input["name"]), objective=str(tool_input["objective"]),
            schedule=str(tool_input["schedule"]), timezone=str(tool_input.get("timezone") or "UTC"),
            policy=tuple(PolicyItem(str(p["scope"]), float(p["minutes"]) * 60) for p in tool_input["policy"]),
            budget=int(tool_input.get("budget") or 100_000),
            time_limit_s=float(tool_input.get("time_limit_minutes") or 30) * 60,
            workspace=agent.workspace, provider=agent.provider, model=agent.model)
        try:
            automations.check(a.with_(created_at=automations.host.clock.now()))
        except ScheduleRefused as exc:
            raise ToolFailure(f"the kernel refused this automation: {exc.reason} Change it and call again.") from None
        return a

    def detail(agent_id: str, tool_input: Mapping[str, Any]) -> tuple[str, ...]:
        a = proposal(agent_id, tool_input)
        return definition_lines(a, a.when.words())

    async def run(ctx: ToolContext, tool_input: Mapping[str, Any]) -> ToolOutput:
        a = proposal(ctx.agent_id, tool_input)  # again: the clock moved while the user read it
        made = desk().add(a, by=ctx.agent_id)
        return ToolOutput(f"created automation {made.id} ({made.name}): {made.when.words()}",
                          data={"automation": made.id})

    return ToolDescriptor(
        name="automation_create",
        description="Propose a scheduled automation (runs at least an hour apart, unattended, with the leases in "
                    "its policy). The user confirms the whole definition every time.",
        input_schema=SCHEMA, output_schema={}, tool_class="execute", scope="automation.create", run=run,
        risk=Risk.OUTWARD, trusted=True, timeout_s=60.0, always_confirm=True, detail_of=detail)
