"""The redactor the ledger runs over every entry's text (``ledger.redaction``).

Held secrets are matched exactly first, then token patterns; overlapping
finds merge into one, each replaced by ``[REDACTED:<rule>]`` (``held-secret``
for a held value, the gitleaks rule id, or ``url-password``), and the count
is what the entry records. Text is capped at ``MAX_SCAN`` characters per
string for the patterns (held values are matched everywhere): a larger string
in an entry is rare (outputs are capped long before) and scanning it whole
would stall the write.
"""

from __future__ import annotations

from .held import HELD_RULE, SecretRegistry
from .patterns import RuleSet, default_rules

MAX_SCAN = 4 * 1024 * 1024


class Redactor:
    """Exact held secrets plus token patterns; ``redact`` is what ``ledger.redaction.Redactor`` asks."""

    def __init__(self, held: SecretRegistry | None = None, rules: RuleSet | None = None) -> None:
        self.held = held if held is not None else SecretRegistry()
        self._rules = rules

    @property
    def rules(self) -> RuleSet:
        if self._rules is None:
            self._rules = default_rules()
        return self._rules

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """Where the secrets in ``text`` are: (start, end, rule), by start (the longest first at a start)."""
        spans = [(s, e, HELD_RULE) for s, e in self.held.find(text)]
        head = text if len(text) <= MAX_SCAN else text[:MAX_SCAN]
        spans += [(f.start, f.end, f.rule) for f in self.rules.find(head)]
        spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        return spans

    def redact(self, text: str) -> tuple[str, int]:
        spans = self.spans(text)
        if not spans:
            return text, 0
        out: list[str] = []
        pos = 0
        count = 0
        for start, end, rule in spans:
            if start < pos:  # inside (or overlapping) a span already replaced
                if end > pos:
                    pos = end
                continue
            out.append(text[pos:start])
            out.append(f"[REDACTED:{rule}]")
            pos = end
            count += 1
        out.append(text[pos:])
        return "".join(out), count
