"""Fixtures for the tool tests: a real ledger, a real workspace, a manual clock.

``env.run(tool, **input)`` does what the executor does around a tool: checks
the input against the schema, appends the ``tool`` entry the call is caused
by, runs the coroutine to completion and checks the output data against the
output schema.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from kernel.core.clock import ManualClock
from kernel.core.errors import ToolFailure
from kernel.tools.descriptor import ToolContext, ToolDescriptor, ToolLimits, ToolOutput
from kernel.tools.schema import validate_input, validate_output
from kernel.workspace.root import Workspace
from ledger import FileChange, Ledger, ToolCall


@dataclass
class Env:
    tmp: Path
    ledger: Ledger
    ws: Workspace
    clock: ManualClock
    limits: ToolLimits = field(default_factory=ToolLimits)
    cause: int = 0

    @property
    def root(self) -> Path:
        return self.ws.root

    def put(self, rel: str, content: str | bytes) -> Path:
        """Make a file directly (as the user would), outside the tools."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    def context(self, tool: ToolDescriptor, args: dict[str, Any]) -> ToolContext:
        call = self.ledger.append(ToolCall(actor="a1", tool=tool.name, scope=tool.scope, input=args))
        self.cause = call.seq
        return ToolContext(agent_id="a1", workspace=self.ws, ledger=self.ledger, cause=call.seq,
                           clock=self.clock, limits=self.limits)

    def run(self, tool: ToolDescriptor, **args: Any) -> ToolOutput:
        validate_input(tool, args)
        out = asyncio.run(tool.run(self.context(tool, args), args))
        assert isinstance(out, ToolOutput)
        validate_output(tool, out.data)
        return out

    def fail(self, tool: ToolDescriptor, **args: Any) -> str:
        with pytest.raises(ToolFailure) as info:
            self.run(tool, **args)
        return info.value.message

    def changes(self) -> list[FileChange]:
        """The fs.write entries the last call caused, oldest first."""
        return [e for e in self.ledger.caused_by(self.cause) if isinstance(e, FileChange)]

    def all_changes(self) -> list[FileChange]:
        return self.ledger.file_changes(0)


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    clock = ManualClock()
    (tmp_path / "ws").mkdir()
    ledger = Ledger(tmp_path / "l.db", clock=clock.now)
    try:
        yield Env(tmp_path, ledger, Workspace.at(tmp_path / "ws"), clock)
    finally:
        ledger.close()
