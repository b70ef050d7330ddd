"""What the real APIs refuse with a 400 before streaming, checked on every request the fake receives.

A fake that takes any body would let a kernel bug through that the real API
rejects: a tool call separated from its result (after compaction cut the
history in the wrong place), a cache breakpoint too many, a TTL the API does
not know. Each check returns the provider's own wording where it is known
(Anthropic "tool_use ids were found without tool_result blocks immediately
after", OpenAI Chat "must be followed by tool messages responding to each
'tool_call_id'", Responses "No tool output found for function call", Gemini
"the number of function response parts is equal to the number of function
call parts"), or None when the body is acceptable.
"""

from __future__ import annotations

from typing import Any

ANTHROPIC_MAX_BREAKPOINTS = 4
ANTHROPIC_TTLS = ("5m", "1h")


def problem(protocol: str, body: dict) -> str | None:
    check = {"anthropic": _anthropic, "openai_chat": _chat, "openai_responses": _responses, "gemini": _gemini}.get(protocol)
    return check(body) if check is not None else None


def _blocks(content: Any) -> list[dict]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _anthropic(body: dict) -> str | None:
    messages = body.get("messages") or []
    for i, m in enumerate(messages):
        blocks = _blocks(m.get("content"))
        uses = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        if results:
            before = _blocks(messages[i - 1].get("content")) if i > 0 and messages[i - 1].get("role") == "assistant" else []
            called = {b.get("id") for b in before if b.get("type") == "tool_use"}
            stray = [r for r in results if r not in called]
            if stray:
                return (f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: {stray[0]}. "
                        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")
        if uses:
            after = _blocks(messages[i + 1].get("content")) if i + 1 < len(messages) else []
            answered = {b.get("tool_use_id") for b in after if b.get("type") == "tool_result"}
            missing = [u for u in uses if u not in answered]
            if missing and i + 1 < len(messages):
                return (f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        f"{missing[0]}. Each `tool_use` block must have a corresponding `tool_result` block in the "
                        "next message.")
    return _anthropic_cache(body)


def _anthropic_cache(body: dict) -> str | None:
    marks: list[dict] = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and "cache_control" in tool:
            marks.append(tool["cache_control"])
    system = body.get("system")
    marks += [b["cache_control"] for b in _blocks(system) if "cache_control" in b]
    for m in body.get("messages") or []:
        marks += [b["cache_control"] for b in _blocks(m.get("content")) if "cache_control" in b]
    if len(marks) > ANTHROPIC_MAX_BREAKPOINTS:
        return f"A maximum of {ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {len(marks)}."
    seen_short = False
    for mark in marks:
        if not isinstance(mark, dict) or mark.get("type") != "ephemeral":
            return "cache_control.type: Input should be 'ephemeral'"
        ttl = mark.get("ttl", "5m")
        if ttl not in ANTHROPIC_TTLS:
            return f"cache_control.ttl: Input should be '5m' or '1h', got {ttl!r}"
        if ttl == "1h" and seen_short:
            return "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block"
        seen_short = seen_short or ttl == "5m"
    return None


def _chat(body: dict) -> str | None:
    messages = body.get("messages") or []
    for i, m in enumerate(messages):
        if m.get("role") == "tool":
            j = i - 1
            while j >= 0 and messages[j].get("role") == "tool":
                j -= 1
            calls = messages[j].get("tool_calls") or [] if j >= 0 and messages[j].get("role") == "assistant" else []
            if m.get("tool_call_id") not in {c.get("id") for c in calls}:
                return ("Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                        "with 'tool_calls'.")
        calls = m.get("tool_calls") or []
        if m.get("role") == "assistant" and calls:
            j, answered = i + 1, set()
            while j < len(messages) and messages[j].get("role") == "tool":
                answered.add(messages[j].get("tool_call_id"))
                j += 1
            if any(c.get("id") not in answered for c in calls):
                return ("An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                        "'tool_call_id'.")
    key = body.get("prompt_cache_key")
    if key is not None and not isinstance(key, str):
        return "prompt_cache_key: expected a string"
    return None


def _responses(body: dict) -> str | None:
    items = body.get("input") or []
    if not isinstance(items, list):
        return None
    called = [it.get("call_id") for it in items if isinstance(it, dict) and it.get("type") == "function_call"]
    outputs = [it.get("call_id") for it in items if isinstance(it, dict) and it.get("type") == "function_call_output"]
    for i, it in enumerate(items):
        if isinstance(it, dict) and it.get("type") == "function_call_output":
            earlier = {x.get("call_id") for x in items[:i] if isinstance(x, dict) and x.get("type") == "function_call"}
            if it.get("call_id") not in earlier:
                return f"No tool call found for function call output with call_id {it.get('call_id')}."
    missing = [c for c in called if c not in outputs]
    if missing:
        return f"No tool output found for function call {missing[0]}."
    key = body.get("prompt_cache_key")
    if key is not None and not isinstance(key, str):
        return "prompt_cache_key: expected a string"
    if body.get("store") is not False:
        return None  # allowed by the API; the kernel's own tests pin store=False
    return None


def _gemini(body: dict) -> str | None:
    contents = body.get("contents") or []
    for i, c in enumerate(contents):
        parts = [p for p in c.get("parts") or [] if isinstance(p, dict)]
        responses = sum(1 for p in parts if "functionResponse" in p)
        if responses:
            before = [p for p in contents[i - 1].get("parts") or [] if isinstance(p, dict)] if i > 0 else []
            calls = sum(1 for p in before if "functionCall" in p)
            if calls != responses:
                return ("Please ensure that the number of function response parts is equal to the number of function "
                        "call parts of the function call turn.")
        calls = sum(1 for p in parts if "functionCall" in p)
        if calls and i + 1 < len(contents):
            after = [p for p in contents[i + 1].get("parts") or [] if isinstance(p, dict)]
            if sum(1 for p in after if "functionResponse" in p) != calls:
                return ("Please ensure that the number of function response parts is equal to the number of function "
                        "call parts of the function call turn.")
    return None
