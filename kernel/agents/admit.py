"""Admitting a tool call from a model: the one shape the rest of the loop may rely on.

Adapters already parse arguments safely (``providers.failures.parse_arguments``),
but a provider is only a protocol: any of them may hand over an id, a name or
input that would break the ledger, an event view or the next request. Each
call of a finished turn passes through ``admit`` before anything else sees
it, so its id and name are clean text of bounded length, and its ``input`` is
either a JSON object every encoder takes or ``None`` with ``error`` saying
why (the executor then answers with an error result the model sees) and
``raw_arguments`` keeping what arrived as safe JSON text for the ledger.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any, Mapping

from ..providers.base import ToolCallReady
from ..core.json_safe import clean_text, object_problem, sanitised

ID_MAX = 128    # provider call ids are 20 to 40 characters
NAME_MAX = 128  # tool names are at most 64 (kernel.tools.registry)


def _bounded(text: str, limit: int) -> str:
    """Clean ``text``; when longer than ``limit``, its head and a digest of the whole (so ids stay distinct)."""
    text = clean_text(text if isinstance(text, str) else repr(text))
    if len(text) <= limit:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return f"{text[:limit - 17]}-{digest}"


def admit(call: ToolCallReady) -> ToolCallReady:
    """``call`` made safe to run, record, show and send back (the same object when it already was)."""
    call_id, name = _bounded(call.id, ID_MAX), _bounded(call.name, NAME_MAX)
    changes: dict[str, Any] = {}
    if (call_id, name) != (call.id, call.name):
        changes.update(id=call_id, name=name)
    if call.input is not None:
        why = object_problem(call.input)
        if why is not None:
            changes.update(input=None, error=why, raw_arguments=json.dumps(sanitised(call.input), ensure_ascii=False))
    elif call.raw_arguments is not None and not isinstance(call.raw_arguments, str):
        changes.update(raw_arguments=repr(call.raw_arguments))
    if call.error is not None and "error" not in changes and clean_text(str(call.error)) is not call.error:
        changes.update(error=clean_text(str(call.error)))
    if object_problem(call.meta) is not None:
        changes.update(meta=sanitised(call.meta) if isinstance(call.meta, Mapping) else {})
    return replace(call, **changes) if changes else call
