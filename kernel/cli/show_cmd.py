"""``agentdesk show ID [--json]``: an agent's transcript, from the running kernel or else from the ledger.

Text: each message under its role, tool calls and results on their own lines; with ``--json`` one object per
message (``role`` and its ``parts``, each with its ``type``). What the model or a tool wrote is shown as text,
never obeyed by the terminal: control and bidi codes are escaped (``terminal.shown``), except in ``--json``,
where JSON's own escaping applies.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any, Sequence

from ledger import LedgerError

from ..core.errors import ConfigError, KernelError
from . import EXIT_USAGE, one_line


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("show", help="print an agent's transcript", description="Print an agent's transcript: "
                       "its messages, tool calls and results (--json: one JSON object per message).")
    p.add_argument("agent", metavar="ID", help="the agent's id (agentdesk ps --all)")
    p.add_argument("--json", action="store_true", help="one JSON object per message")


def run(args: argparse.Namespace) -> int:
    try:
        messages = _conversation(args.agent)
        notes = [] if args.json else _answered(args.agent)
    except (ConfigError, KernelError, LedgerError) as exc:
        print(f"agentdesk show: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    lines = [json.dumps(as_json(m), ensure_ascii=False) for m in messages] if args.json else transcript(messages, notes)
    if lines and not args.json:
        lines.append(_usage_line(args.agent))
    if lines:
        print("\n".join(lines))
    return 0


def _usage_line(agent_id: str) -> str:
    """Its tokens, the share of input read from the provider's cache and how full the window was."""
    import time

    from ..agents.rebuild import summarise
    from ._home_ledger import open_existing

    ledger = open_existing()
    if ledger is None:
        return "── usage: not on the record"
    with ledger:
        record = summarise(ledger, time.time(), tails=False).agents.get(agent_id)
        if record is None:
            return "── usage: not on the record"
        used = record.usage
        requests = [e for e in ledger.of_actor(agent_id, ("request",), after=record.spawn.seq)[-1:]]
    cache = f" · cache {used.cached_tokens / used.input_tokens:.0%}" if used.input_tokens else ""
    last = getattr(requests[0], "input_tokens", 0) if requests else 0
    from ..config.settings import SettingsStore, home
    from ..context.window import window_tokens

    try:
        settings = SettingsStore(home()).load()
    except ConfigError:
        from ..config.settings import Settings
        settings = Settings()
    window = window_tokens(record.spawn.provider, record.spawn.model, settings)
    context = f" · context {last / window:.0%}" if isinstance(last, int) and last and window else ""
    return f"── usage: {used.input_tokens:,} in · {used.output_tokens:,} out{cache}{context}"


def _conversation(agent_id: str) -> Sequence[Any]:
    from ._service import channel

    ch = channel("show")
    if ch is not None:
        try:
            found = ch.call("agents.conversation", {"agent_id": agent_id})
        finally:
            ch.close()
        from .. import api

        if not isinstance(found, (list, tuple)) or not all(isinstance(m, api.Message) for m in found):
            raise KernelError("the kernel sent a transcript that is not a list of messages")
        return list(found)
    import time

    from ..agents.rebuild import conversation_of, summarise
    from ._home_ledger import open_existing

    ledger = open_existing()  # read only: nothing is brought back to work, no ledger is made
    if ledger is None:
        raise KernelError(f"no agent {agent_id!r}: there is no ledger yet")
    with ledger:
        record = summarise(ledger, time.time()).agents.get(agent_id)
        if record is None:
            raise KernelError(f"no agent {agent_id!r} (see 'agentdesk ps --all')")
        return list(conversation_of(ledger, record.spawn))


def _answered(agent_id: str) -> list[str]:
    """Per reply (its ``ok`` request, oldest first), who answered it when not the model asked for."""
    from ..routes.words import answered_by
    from ._service import channel

    ch = channel("show")
    entries: list[Any] = []
    if ch is not None:
        from .. import api

        try:
            before = None
            while True:
                page = ch.call("ledger.page", {"filters": api.LedgerFilter(actor=agent_id, kind="request"),
                                               "before": before, "limit": 1000})
                if not isinstance(page, list) or not page:
                    break
                entries.extend(page)
                before = getattr(page[-1], "seq", None)
                if not isinstance(before, int) or len(page) < 1000:
                    break
        finally:
            ch.close()
    else:
        from ._home_ledger import open_existing

        ledger = open_existing()
        if ledger is None:
            return []
        with ledger:
            before = None
            while page := ledger.page(actor=agent_id, kind="request", before=before, limit=1000):
                entries.extend(page)
                before = page[-1].seq
    return [answered_by(e) for e in reversed(entries) if getattr(e, "status", None) == "ok"]


def as_json(message: Any) -> dict[str, Any]:
    return {"role": message.role, "parts": [{"type": type(p).__name__, **asdict(p)} for p in message.parts]}


def transcript(messages: Sequence[Any], notes: Sequence[str] = ()) -> list[str]:
    """The messages as lines; ``notes`` (one per assistant message, in order) say who answered each."""
    from .. import api
    from .terminal import shown

    out: list[str] = []
    replies = 0
    for m in messages:
        note = ""
        if m.role == "assistant":
            note = notes[replies] if replies < len(notes) else ""
            replies += 1
        out.append(f"── {m.role}" + (f"  ({shown(note)})" if note else ""))
        for part in m.parts:
            if isinstance(part, api.TextPart) and m.role == "user" and api.is_state_block(part.text):
                continue  # the kernel's state block, not the user's words
            if isinstance(part, api.TextPart):
                out.extend(shown(line, lines=True) for line in part.text.split("\n"))
            elif isinstance(part, api.ToolUse):
                out.append(f"[tool call] {shown(part.name)} {shown(json.dumps(dict(part.input), ensure_ascii=False))}")
            elif isinstance(part, api.ToolResultPart):
                mark = "error" if part.is_error else "result"
                out.append(f"[tool {mark}] {shown(part.name)}:")
                out.extend(f"  {shown(line, lines=True)}" for line in part.content.split("\n"))
    return out
