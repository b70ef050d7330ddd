"""A strict scripted provider, for tests, benchmarks and demos.

Each ``stream`` call takes the next ``ScriptedTurn`` and yields its events.
It fails loudly on a call nobody scripted, and ``assert_done`` fails when a
step was never used, so a test cannot pass by accident. A ``Hold`` in a step
pauses the stream until its event is set (to kill an agent mid-stream), and
a ``ProviderError`` in a step is raised at that point.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Mapping, Union

from ..core.errors import ProviderError
from .base import ProviderRequest, StreamEnd, StreamEvent, TextChunk, ToolCallReady, UsageReport


@dataclass(frozen=True)
class Hold:
    """Pause the stream here until ``gate`` is set."""

    gate: asyncio.Event
    reached: asyncio.Event | None = None  # set when the stream gets here


Item = Union[StreamEvent, Hold, ProviderError]
_ids = itertools.count(1)


@dataclass(frozen=True)
class ScriptedTurn:
    events: tuple[Item, ...]
    check: Callable[[ProviderRequest], None] | None = None


def reply(text: str | None = None, *, tools: tuple[tuple[str, Mapping[str, Any]], ...] = (),
          usage: tuple[int, int] = (10, 5), stop: str | None = None, chunks: int = 1,
          check: Callable[[ProviderRequest], None] | None = None) -> ScriptedTurn:
    """A turn: optional text (in ``chunks`` deltas), tool calls ``(name, input)``, usage, stop reason."""
    events: list[Item] = [UsageReport(input_tokens=usage[0], output_tokens=0)]
    if text:
        size = max(1, -(-len(text) // max(1, chunks)))
        events += [TextChunk(text[i:i + size]) for i in range(0, len(text), size)]
    for name, tool_input in tools:
        events.append(ToolCallReady(f"call_{next(_ids)}", name, dict(tool_input)))
    events.append(UsageReport(output_tokens=usage[1]))
    events.append(StreamEnd(stop or ("tool_use" if tools else "end_turn")))
    return ScriptedTurn(tuple(events), check)


class UnexpectedRequest(AssertionError):
    pass


@dataclass
class ScriptedProvider:
    steps: list[ScriptedTurn] = field(default_factory=list)
    name: str = "scripted"
    requests: list[ProviderRequest] = field(default_factory=list)
    unexpected: int = 0

    def script(self, *steps: ScriptedTurn) -> "ScriptedProvider":
        self.steps.extend(steps)
        return self

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        if not self.steps:
            self.unexpected += 1
            raise UnexpectedRequest(f"unexpected request #{len(self.requests)}: nothing scripted")
        step = self.steps.pop(0)
        if step.check is not None:
            step.check(request)
        for item in step.events:
            if isinstance(item, Hold):
                if item.reached is not None:
                    item.reached.set()
                await item.gate.wait()
            elif isinstance(item, ProviderError):
                raise item
            else:
                yield item

    def assert_done(self) -> None:
        if self.steps:
            raise AssertionError(f"{len(self.steps)} scripted step(s) never requested")
        if self.unexpected:
            raise AssertionError(f"{self.unexpected} unexpected request(s)")

    async def aclose(self) -> None:
        return None
