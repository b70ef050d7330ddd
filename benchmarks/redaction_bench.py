"""The cost of keeping secrets out of the ledger: µs per KB of entry text, and of one append.

Corpus: ledger-like text (JSON tool calls with sha256 blob names and commit
ids, ``ls`` lines with UUIDs, prose) of about 110 KB, with eight planted
secrets (AWS, GitHub PAT, Slack, Anthropic, OpenAI project key, Google API
key, JWT, a URL password) and one held key. It prints, best of nine runs
after a warm-up (so rule compilation is not counted; it is printed apart):

- held secrets alone (exact match), µs/KB;
- held secrets + gitleaks' rules under RE2 + the URL-password rule, µs/KB,
  with how many planted secrets were found and how many other spans were
  redacted (false positives: hashes, UUIDs);
- one ``Ledger.append`` of a 4 KB tool result, with and without the redactor.

Goal (LIBRARIES.md §7): about 126 µs/KB for the rule set, no false
positives. "before" is the rule set as it ran until 2026-12-01 (one
substring search per keyword, the URL-password regex unanchored under RE2),
run here on the same corpus; "after" is ``kernel.redaction`` as it is (one
RE2 set pass for every keyword, the URL password matched from each "://").
Run: ``python benchmarks/redaction_bench.py``.
"""

from __future__ import annotations

import hashlib
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.redaction import Redactor, SecretRegistry  # noqa: E402
from kernel.redaction.patterns import (  # noqa: E402
    _URL_PASSWORD, URL_PASSWORD_RULE, Found, Rule, RuleSet, default_rules,
)
from ledger import Ledger, ToolResult  # noqa: E402

HELD = "held-key-Qm38zVx1pL0a"
PLANTED = [
    "AKIAZ3MQ7YB4TX2LPQ5W",
    "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "sk-ant-api03-" + "a1B2c3D4e5" * 9 + "xyzAA",
    "sk-proj-" + ("a1B2c3D4e5F6g7H8" * 5)[:74] + "T3BlbkFJ" + ("Z9y8X7w6V5u4T3s2" * 5)[:74],
    "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "https://deploy:pl4ntedPassw0rd@git.example.com/repo.git",
]


def corpus(size: int = 110_000) -> str:
    rng = random.Random(7)
    words = "the agent read the file and wrote a summary of what changed in the workspace today".split()
    parts: list[str] = []
    n = 0
    while n < size:
        digest = hashlib.sha256(str(n).encode()).hexdigest()
        commit = hashlib.sha1(str(n).encode()).hexdigest()
        line = rng.choice([
            f'{{"tool":"fs_write","input":{{"path":"src/m{n}.py"}},"before":"{digest}","after":"{digest}"}}',
            f"-rw-r--r-- 1 ada ada {rng.randint(1, 99999)} {uuid.UUID(int=rng.getrandbits(128))}.json",
            f"commit {commit} token_id {uuid.UUID(int=rng.getrandbits(128))}",
            " ".join(rng.choice(words) for _ in range(14)),
        ])
        parts.append(line)
        n += len(line) + 1
    step = len(parts) // (len(PLANTED) + 2)
    for i, secret in enumerate(PLANTED + [f"config uses {HELD}"]):
        parts.insert((i + 1) * step, f"found {secret} here")
    return "\n".join(parts)


def before(rules: RuleSet, text: str) -> list[Found]:
    """The rule set's ``find`` as it was: a substring search per keyword, the URL password by its regex."""
    legacy = Rule(id=URL_PASSWORD_RULE, regex=_URL_PASSWORD, keywords=("://",))
    low = text.lower()
    found: list[Found] = []
    for rule in rules.rules:
        rule = legacy if rule.id == URL_PASSWORD_RULE else rule
        if rule.keywords and not any(k in low for k in rule.keywords):
            continue
        found.extend(rule.find(text))
    return found


def best(fn, runs: int = 9) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    text = corpus()
    kb = len(text.encode()) / 1024
    t = time.perf_counter()
    rules = default_rules()
    loaded = time.perf_counter() - t
    held = Redactor(SecretRegistry([("bench", HELD)]), rules)
    t = time.perf_counter()
    redacted, count = held.redact(text)
    first = time.perf_counter() - t
    found = sum(secret.split("://")[-1] not in redacted for secret in PLANTED)
    found_url = "pl4ntedPassw0rd" not in redacted
    only_held = SecretRegistry([("bench", HELD)])
    t_held = best(lambda: only_held.find(text))
    t_all = best(lambda: held.redact(text))
    t_before = best(lambda: (only_held.find(text), before(rules, text)))
    assert sorted(before(rules, text), key=lambda f: f.start) == sorted(rules.find(text), key=lambda f: f.start)
    print(f"corpus: {kb:.0f} KB, {len(PLANTED)} planted secrets + 1 held key")
    print(f"rules loaded in {loaded * 1000:.1f} ms; first redaction (compiles the rules it needs) {first * 1000:.1f} ms")
    print(f"held secrets only:              {t_held / kb * 1e6:8.1f} µs/KB")
    print(f"held + gitleaks (RE2) + URL pw: {t_before / kb * 1e6:8.1f} µs/KB before (a search per keyword)")
    print(f"held + gitleaks (RE2) + URL pw: {t_all / kb * 1e6:8.1f} µs/KB after (one keyword-set pass)")
    print(f"found: {found + (HELD not in redacted) - (not found_url)}/{len(PLANTED) + 1} "
          f"(url password {'yes' if found_url else 'no'}); spans redacted {count}; "
          f"false positives {count - len(PLANTED) - 1}")
    with tempfile.TemporaryDirectory() as tmp:
        output = {"text": text[:4096]}
        for name, redactor in (("without", None), ("with", held)):
            with Ledger(Path(tmp) / f"{name}.db", redactor=redactor) as ledger:
                ledger.append(ToolResult(actor="a1", cause=1, output=output))
                n = 200
                t = time.perf_counter()
                for _ in range(n):
                    ledger.append(ToolResult(actor="a1", cause=1, output=output))
                print(f"append of a 4 KB result {name} the redactor: {(time.perf_counter() - t) / n * 1e6:8.0f} µs")


if __name__ == "__main__":
    main()
