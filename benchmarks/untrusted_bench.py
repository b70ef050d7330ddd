"""What checking a model's tool arguments costs: parsing, admission, keeping the conversation encodable.

Every tool call's arguments are parsed (``parse_arguments``, which now also
looks for nesting, lone surrogates and NaN), admitted by the kernel
(``agents.admit``), and every message appended to a conversation passes
``messages.encodable``; every tool result passes ``clean_text``. Prints the
best and median time of each step for a typical call (``fs_read`` of a path), a
``fs_write`` carrying 1 MB of non-ASCII text, and 100,000-deep nesting
(which used to crash the agent). Run it on an older tree to compare: steps
that tree lacks print "n/a".
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.providers.base import ToolCallReady  # noqa: E402
from kernel.providers.failures import parse_arguments  # noqa: E402

SMALL = json.dumps({"path": "notes/todo.md", "offset": 1, "limit": 40})
BIG_TEXT = "é日本 text line\n" * (1_000_000 // 18)
BIG = json.dumps({"path": "big.md", "content": BIG_TEXT}, ensure_ascii=False)
DEEP = '{"path": ' + "[" * 100_000 + "]" * 100_000 + "}"


def timed(fn: Callable[[], Any], repeat: int) -> str:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            fn()
        except RecursionError:
            return "RecursionError (the agent died)"
        times.append(time.perf_counter() - start)
    return f"best {min(times) * 1e6:,.1f} µs, median {statistics.median(times) * 1e6:,.1f} µs"


def main() -> None:
    try:
        from kernel.agents.admit import admit
        from kernel.core.messages import Message, ToolUse, encodable
        from kernel.core.json_safe import clean_text
    except ImportError:
        admit = encodable = clean_text = None  # type: ignore[assignment]
    for label, raw, repeat in (("typical fs_read", SMALL, 2000), ("fs_write of 1 MB", BIG, 20),
                               ("100,000-deep", DEEP, 20)):
        print(f"{label}:")
        print(f"  parse_arguments   {timed(lambda: parse_arguments(raw), repeat)}")
        if admit is None:
            print("  admit             n/a\n  encodable         n/a")
            continue
        value, error = parse_arguments(raw)
        call = ToolCallReady("call_1", "fs_write", value, raw_arguments=raw, error=error)
        print(f"  admit             {timed(lambda: admit(call), repeat)}")
        message = Message("assistant", (ToolUse("call_1", "fs_write", value or {}),))
        print(f"  encodable         {timed(lambda: encodable(message), repeat)}")
    if clean_text is not None:
        result = "é日本 result line\n" * (256 * 1024 // 20)
        print(f"clean_text of a 256 KB non-ASCII tool result: {timed(lambda: clean_text(result), 50)}")


if __name__ == "__main__":
    main()
