"""The tokens of requests in flight, kept beside the ledger so a killed kernel does not lose them.

A request is recorded in the ledger once it is over (``records.record_request``).
A kernel killed mid-stream (kill -9, a crash, the machine's OOM killer) recorded
nothing, though the provider had already counted the input tokens it reported at
the start of the stream (Anthropic's ``message_start``): after the restart the
agent's tokens and today's spend dropped to what its finished requests said (0
after a first request). So every usage report of a request in flight rewrites
a small journal beside the ledger (``ledger.inflight.json``, 0600 like the
ledger; one line per agent working), and the request's record removes its line.
When the kernel starts again, each line still there is recorded as the
request it was: ``cancelled`` by the stop, with the tokens last reported
(``record_cut``), before the agents are rebuilt from the record.

The journal is replaced whole (write, then rename) and not fsynced: a process
killed keeps what it wrote in the page cache; only a power cut between the
report and the record loses it, as it would the reply itself. A usage report
comes once or twice a request (start and end), so this costs one small file
write each time, not one per streamed chunk.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ledger import Ledger, ModelRequest

from ..accounting.budget import Usage
from ..config.private import FILE_MODE

log = logging.getLogger(__name__)
CUT = "the kernel stopped during this request; its tokens are those reported before it stopped"


@dataclass(frozen=True)
class InFlight:
    """One request being streamed: who asked, why, from which provider and model, and its usage so far."""

    agent: str
    reason: str
    provider: str
    model: str
    start: float
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class InFlightJournal:
    """The requests in flight of one kernel, mirrored to ``path`` (None: not kept, an in-memory ledger)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._open: dict[str, InFlight] = {}

    @classmethod
    def beside(cls, ledger: Ledger) -> "InFlightJournal":
        where = getattr(ledger, "path", "")
        if not where or where == ":memory:":
            return cls(None)
        return cls(Path(where).with_name(Path(where).name.replace(".db", "") + ".inflight.json"))

    def report(self, flight: InFlight, usage: Usage) -> None:
        """The request of ``flight.agent`` has used ``usage`` so far."""
        self._open[flight.agent] = InFlight(flight.agent, flight.reason, flight.provider, flight.model, flight.start,
                                            usage.input_tokens, usage.output_tokens, usage.cached_tokens,
                                            usage.written_tokens)
        self._write()

    def done(self, agent: str) -> None:
        """Its request is on the record now."""
        if self._open.pop(agent, None) is not None:
            self._write()

    def _write(self) -> None:
        if self.path is None:
            return
        text = json.dumps([asdict(f) for f in self._open.values()])
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, self.path)
        except OSError as exc:  # a full disk loses the figure of a cut request, never the request
            log.warning("could not keep the tokens of requests in flight: %s", exc)

    def record_cut(self, ledger: Ledger) -> int:
        """At start: record each request the last kernel left in flight (``cancelled``, its tokens as last
        reported) and empty the journal; how many. The file is hostile input: what cannot be read is dropped."""
        if self.path is None or not self.path.exists():
            return 0
        try:
            found = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found = []
        entries = [e for e in (_entry(item) for item in (found if isinstance(found, list) else [])) if e is not None]
        if entries:
            ledger.append_many(entries)
        try:
            self.path.unlink()
        except OSError:
            pass
        return len(entries)


def _entry(item: Any) -> ModelRequest | None:
    if not isinstance(item, dict):
        return None
    text = {k: item.get(k) for k in ("agent", "reason", "provider", "model")}
    counts = [item.get(k) for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")]
    start = item.get("start")
    if not all(isinstance(v, str) and v for v in text.values()) or not isinstance(start, (int, float)):
        return None
    tokens = [v for v in counts if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10**12]
    if len(tokens) != len(counts):
        return None
    return ModelRequest(actor=str(text["agent"]), reason=str(text["reason"]), provider=str(text["provider"]),
                        model=str(text["model"]), status="cancelled", start=float(start), error=CUT,
                        input_tokens=tokens[0], output_tokens=tokens[1], cache_read_tokens=tokens[2],
                        cache_write_tokens=tokens[3])
