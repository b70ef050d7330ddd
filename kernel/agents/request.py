"""The next provider request, laid out for the prompt cache (``kernel.context``).

Tools (fixed and sorted for the conversation, new ones appended) → the system
prompt (fixed, ``prompt.system_prompt``) → the history (never rewritten) → a
state block appended to the newest user turn or tool results when the state
changed. The conversation keeps the user's words; the state blocks sit beside
it (``ContextState.states``) and are put in place as the request is built. The system prompt and tools are put on the record (a ``prompt``
entry) whenever they differ from what was recorded last, and the request
entry records the state block and the cache hints, so the exact request can
be rebuilt from the ledger (``agents.sent``).
"""

from __future__ import annotations

from ledger import SystemPrompt

from ..context.layout import cache_breaks, ordered_tools, place, with_states
from ..context.estimate import size_chars
from ..context.state import block_if_changed
from ..context.window import cache_key
from ..core.messages import ToolSpec
from ..images.layout import ImageBudget, lay_out
from ..providers.base import ProviderRequest
from ..providers.vision import image_support
from ..routes.opaque import for_target
from .process import AgentProcess
from .prompt import current_state, system_prompt

PERSON_TTL = "1h"   # an agent that may wait on a person (a lease dialog) longer than the 5-minute default
UNATTENDED_TTL = "5m"


def build_request(agent: AgentProcess) -> ProviderRequest:
    """The request for the conversation as it stands (appending the state block when it changed)."""
    s, ctx = agent.services, agent.context
    system = system_prompt(agent)
    tools, ctx.tool_order = ordered_tools(ctx.tool_order, s.tools.specs(agent.nonce))  # MCP text in the markers
    block = block_if_changed(current_state(agent), ctx.last_state)
    placed = place(agent.conversation, block) if block else None
    ctx.sent_state = block if placed is not None else ""
    if placed is not None:
        ctx.states.append(placed)
        ctx.last_state = block
    if ctx.recorded != (system, tools):
        s.record(SystemPrompt(actor=agent.id, text=system, tools=tuple(tool_record(t) for t in tools),
                              basis=ctx.basis))
        ctx.recorded = (system, tools)
    target = agent.target  # the route's candidate in flight (model routes)
    messages = for_target(with_states(agent.conversation, ctx.states, ctx.composed), target)  # others' opaque data out
    breaks = cache_breaks(messages, ctx.last_sent)
    ctx.last_sent = len(messages)
    ctx.sent_chars = size_chars(system, tools, messages, ctx.sizes)
    ctx.sent = with_images(agent, ProviderRequest(
        system=system, messages=messages, tools=tools, model=target.model, max_tokens=s.settings.max_tokens,
        cache_key=cache_key(target.provider, s.settings, agent.id), cache_ttl=UNATTENDED_TTL if agent.unattended else PERSON_TTL, cache_breaks=breaks))
    return ctx.sent


def with_images(agent: AgentProcess, request: ProviderRequest) -> ProviderRequest:
    """The request's pictures laid out for this model within the image budget (``kernel.images.layout``)."""
    s = agent.services
    target = agent.target
    budget = ImageBudget(s.settings.image_budget_count, int(s.settings.image_budget_mb * 1024 * 1024))
    return lay_out(request, image_support(target.provider, target.model), budget, s.images.bytes_of)


def tool_record(tool: ToolSpec) -> dict[str, object]:
    return {"name": tool.name, "description": tool.description, "input_schema": dict(tool.input_schema)}
