"""The floor for provider_bench: one official SDK driving the tool loop with no kernel.

    python benchmarks/sdk_floor.py PROVIDER BASE_URL

Sends the same tools and a system prompt of the same size as ``agentdesk
ask``, streams each reply, answers each tool call with a result of the same
size the kernel would send (no files, no ledger), and stops at the first
reply without a tool call. Keys and base URLs come from the usual variables.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SYSTEM = "You are a benchmark agent. " * 60
PAYLOAD_BYTES = 2048


def tool_specs() -> list[dict]:
    """The tools ``agentdesk ask`` offers (file tools and shell_exec), so both send the same."""
    from kernel.config.settings import Settings
    from kernel.tools.registry import builtin_registry
    from kernel.tools.shell import shell_tool

    tools = builtin_registry(extra=(shell_tool(Settings(), index=None),))  # the index is only used to run
    return [{"name": s.name, "description": s.description, "schema": dict(s.input_schema)} for s in tools.specs()]


def result_for(name: str, args: dict) -> str:
    if name == "fs_read":
        return "x" * PAYLOAD_BYTES
    return f"wrote {args.get('path')} (1 line, {PAYLOAD_BYTES} bytes)"


class AnthropicTurn:
    """One streamed Anthropic reply, assembled from raw events."""

    def __init__(self) -> None:
        self.blocks: list[dict] = []
        self.partial: dict[int, str] = {}
        self.stop: str | None = None

    def feed(self, event) -> None:
        if event.type == "content_block_start":
            self.blocks.append(event.content_block.model_dump())
            self.partial[event.index] = ""
        elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            self.partial[event.index] += event.delta.partial_json
        elif event.type == "content_block_delta" and event.delta.type == "text_delta":
            self.blocks[event.index]["text"] += event.delta.text
        elif event.type == "message_delta":
            self.stop = event.delta.stop_reason

    def close(self, messages: list[dict]) -> bool:
        """Append the reply and its tool results to ``messages``; False when the loop is over."""
        calls = []
        for i, block in enumerate(self.blocks):
            if block["type"] == "tool_use":
                block["input"] = json.loads(self.partial[i] or "{}")
                calls.append(block)
        messages.append({"role": "assistant", "content": self.blocks})
        if self.stop != "tool_use":
            return False
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": c["id"], "content": result_for(c["name"], c["input"])}
            for c in calls]})
        return True


def anthropic_params() -> dict:
    tools = [{"name": t["name"], "description": t["description"], "input_schema": t["schema"]} for t in tool_specs()]
    return {"model": "bench-model", "max_tokens": 4096, "system": SYSTEM, "tools": tools}


def anthropic_loop(url: str) -> None:
    import anthropic

    client = anthropic.Anthropic(base_url=url, max_retries=0)
    params = anthropic_params()
    messages: list[dict] = [{"role": "user", "content": "write and read the bench files"}]
    while True:
        turn = AnthropicTurn()
        for event in client.messages.create(**params, messages=messages, stream=True):
            turn.feed(event)
        if not turn.close(messages):
            return


def anthropic_async_loop(url: str) -> None:
    """The same loop on the SDK's async client, the one the kernel uses (asyncio)."""
    import asyncio

    import anthropic

    async def run() -> None:
        client = anthropic.AsyncAnthropic(base_url=url, max_retries=0)
        params = anthropic_params()
        messages: list[dict] = [{"role": "user", "content": "write and read the bench files"}]
        while True:
            turn = AnthropicTurn()
            async for event in await client.messages.create(**params, messages=messages, stream=True):
                turn.feed(event)
            if not turn.close(messages):
                return

    asyncio.run(run())


def chat_loop(url: str) -> None:
    import openai

    client = openai.OpenAI(base_url=url + "/v1", max_retries=0)
    tools = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                               "parameters": t["schema"]}} for t in tool_specs()]
    messages: list[dict] = [{"role": "system", "content": SYSTEM},
                            {"role": "user", "content": "write and read the bench files"}]
    while True:
        calls: dict[int, dict] = {}
        text = ""
        for chunk in client.chat.completions.create(model="bench-model", messages=messages, tools=tools,
                                                    stream=True, stream_options={"include_usage": True}):
            for choice in chunk.choices:
                text += choice.delta.content or ""
                for tc in choice.delta.tool_calls or ():
                    slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                    slot["id"] = tc.id or slot["id"]
                    if tc.function:
                        slot["name"] = tc.function.name or slot["name"]
                        slot["arguments"] += tc.function.arguments or ""
        if not calls:
            return
        messages.append({"role": "assistant", "content": text or None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls.values()]})
        for c in calls.values():
            messages.append({"role": "tool", "tool_call_id": c["id"],
                             "content": result_for(c["name"], json.loads(c["arguments"] or "{}"))})


def responses_loop(url: str) -> None:
    import openai

    client = openai.OpenAI(base_url=url + "/v1", max_retries=0)
    tools = [{"type": "function", "name": t["name"], "description": t["description"], "parameters": t["schema"]}
             for t in tool_specs()]
    items: list[dict] = [{"role": "user", "content": "write and read the bench files"}]
    while True:
        calls = []
        for event in client.responses.create(model="bench-model", instructions=SYSTEM, input=items, tools=tools,
                                             stream=True):
            if event.type == "response.output_item.done" and event.item.type == "function_call":
                calls.append(event.item)
        if not calls:
            return
        for c in calls:
            items.append({"type": "function_call", "call_id": c.call_id, "name": c.name, "arguments": c.arguments})
            items.append({"type": "function_call_output", "call_id": c.call_id,
                          "output": result_for(c.name, json.loads(c.arguments or "{}"))})


def gemini_loop(url: str) -> None:
    from google import genai
    from google.genai import types

    client = genai.Client(http_options=types.HttpOptions(base_url=url))
    decls = [types.FunctionDeclaration(name=t["name"], description=t["description"],
                                       parameters_json_schema=t["schema"]) for t in tool_specs()]
    config = types.GenerateContentConfig(system_instruction=SYSTEM, tools=[types.Tool(function_declarations=decls)],
                                         automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    contents: list[types.Content] = [types.Content(role="user", parts=[types.Part(text="write and read the bench files")])]
    while True:
        parts, calls = [], []
        for chunk in client.models.generate_content_stream(model="bench-model", contents=contents, config=config):
            for cand in chunk.candidates or ():
                for part in (cand.content.parts if cand.content else None) or ():
                    parts.append(part)
                    if part.function_call:
                        calls.append(part.function_call)
        if not calls:
            return
        contents.append(types.Content(role="model", parts=parts))
        contents.append(types.Content(role="user", parts=[
            types.Part(function_response=types.FunctionResponse(
                name=c.name, id=c.id, response={"output": result_for(c.name, dict(c.args or {}))})) for c in calls]))


LOOPS = {"anthropic": anthropic_loop, "anthropic-async": anthropic_async_loop, "openai-chat": chat_loop, "openai": responses_loop, "gemini": gemini_loop}

if __name__ == "__main__":
    LOOPS[sys.argv[1]](sys.argv[2])
