"""Token patterns: gitleaks' rule set, run under RE2 the way gitleaks runs it.

The rules are gitleaks' own ``config/gitleaks.toml`` (MIT; vendored beside
this module with its licence, pinned at v8.30.0, commit 6eaad03): 221 regular
expressions for vendor tokens, private keys and generic ``api_key = …``
assignments, written in Go's RE2 syntax. Python's ``re`` rejects 26 of them,
so they run under google-re2 (BSD). As gitleaks does, a rule is tried only
when one of its keywords occurs in the lowercased text (most text holds
none, so most rules never run); which keywords occur is found in one pass
for all of them (an RE2 set of the literal keywords), not with one
substring search per keyword, and the secret is the rule's secret group (else
the first group that matched, else the whole match), a rule with an
``entropy`` floor skips secrets of lower Shannon entropy, and a rule's
allowlists (regexes on the secret, the match or the line, and stopwords)
let a match through. LIBRARIES.md §7 measured about 126 µs per KB and no
false positives on hashes and UUIDs. ``benchmarks/redaction_bench.py`` (a
corpus where a quarter of the lines hold a keyword, "token_id", so the
generic-api-key rule runs on all of it) printed 262-765 µs/KB on 2026-12-01
on the shared 2-core machine under load; a profile put most of it in the
keyword prefilter (one ``in`` per keyword: hundreds of scans of the text)
and most of the rest in the URL-password regex (RE2 left its DFA). With the
keyword set and that rule found from each "://" instead, the same bench run
beside the old code printed 68-139 µs/KB after against 636-854 before
(best of nine, load average 7-16 on 2 cores); the rules it runs there sum
to about 40 µs/KB at their quickest. Still 0 false positives. Held values
alone cost about 1 µs/KB. Text shorter than ``MIN_TEXT`` holds no token and
is not scanned.

Each rule is compiled the first time its keywords occur (compiling all 221
takes 30-450 ms on a busy 2-core machine), so a process that never sees a
token never pays for them. One extra rule, not in gitleaks, takes the
password out of ``scheme://user:password@host`` (detect-secrets' BasicAuth).
"""

from __future__ import annotations

import math
import re
import threading
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

GITLEAKS_TOML = Path(__file__).with_name("gitleaks") / "gitleaks.toml"
GITLEAKS_VERSION = "v8.30.0"
URL_PASSWORD_RULE = "url-password"
MIN_TEXT = 8  # shorter text holds no token the rules know ("a://b:c@" is the shortest match)
# scheme://user:password@ — the password is group 1; "@" ends it, so a path or query after it is kept.
_URL_PASSWORD = r"[A-Za-z][A-Za-z0-9+.\-]*://[^:/?#@\s\"'<>]+:([^@/?#\s\"'<>]+)@"
# The same, from just after "://": matched at each "://" (a 2026-12-01 profile: the unanchored regex
# cost ~290 µs/KB under RE2, which gave up its DFA; this costs a few). Bounded by the first stop character.
_USERINFO = re.compile(r"[^:/?#@\s\"'<>]+:([^@/?#\s\"'<>]+)@")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


@dataclass(frozen=True)
class Found:
    """One secret in a text: its span and the rule that found it."""

    start: int
    end: int
    rule: str


@dataclass(frozen=True)
class Allow:
    """One of a rule's allowlists: a match it covers is not a secret."""

    regexes: tuple[str, ...] = ()
    target: str = "secret"  # secret · match · line
    stopwords: tuple[str, ...] = ()
    all_of: bool = False  # condition = "AND": every criterion must hold

    def covers(self, secret: str, match: str, line: str, compiled: list[Any]) -> bool:
        hits = []
        if self.regexes:
            subject = {"match": match, "line": line}.get(self.target, secret)
            hits.append(any(r.search(subject) for r in compiled))
        if self.stopwords:
            low = secret.lower()
            hits.append(any(word in low for word in self.stopwords))
        return bool(hits) and (all(hits) if self.all_of else any(hits))


# Our addition to the generic rules' allowlists: a UUID, or a hex digest the length of a SHA-1 or SHA-256
# (commit ids, blob names, the ledger's own hashes), assigned to a "token_id" or a "key" is an identifier.
IDENTIFIER = Allow(regexes=(r"(?i)^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{40}|[0-9a-f]{64})$",))


@dataclass
class Rule:
    """One pattern with its keywords; compiled on first use."""

    id: str
    regex: str
    keywords: tuple[str, ...] = ()
    entropy: float = 0.0
    secret_group: int = 0
    allows: tuple[Allow, ...] = ()
    _compiled: Any = field(default=None, repr=False)
    _allow_compiled: list[list[Any]] = field(default_factory=list, repr=False)

    def compiled(self) -> Any:
        if self._compiled is None:
            import re2

            self._allow_compiled = [[re2.compile(r) for r in a.regexes] for a in self.allows]
            self._compiled = re2.compile(self.regex)
        return self._compiled

    def find(self, text: str) -> Iterator[Found]:
        for m in self.compiled().finditer(text):
            group = self.secret_group or next((i for i in range(1, (m.lastindex or 0) + 1)
                                               if m.group(i)), 0)
            start, end = m.start(group), m.end(group)
            secret = text[start:end]
            if not secret or (self.entropy and shannon(secret) < self.entropy):
                continue
            if self.allows and self._allowed(text, secret, m):
                continue
            yield Found(start, end, self.id)

    def _allowed(self, text: str, secret: str, m: Any) -> bool:
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        return any(a.covers(secret, m.group(0), line, c) for a, c in zip(self.allows, self._allow_compiled))


def shannon(text: str) -> float:
    """Shannon entropy in bits per character (gitleaks' measure)."""
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


class UrlPasswordRule(Rule):
    """``scheme://user:password@``: the password, found from each "://" with an anchored match."""

    def compiled(self) -> Any:
        return _USERINFO

    def find(self, text: str) -> Iterator[Found]:
        at = text.find("://")
        while at >= 0:
            start = at
            while start > 0 and text[start - 1] in _SCHEME_CHARS:
                start -= 1
            m = _USERINFO.match(text, at + 3)
            # a scheme needs a letter somewhere before "://" (the regex starts at the first one it can)
            if m is not None and any(c.isalpha() for c in text[start:at]):
                yield Found(m.start(1), m.end(1), self.id)
                at = text.find("://", m.end())
            else:
                at = text.find("://", at + 3)


class RuleSet:
    """Rules with gitleaks' keyword prefilter: ``find`` runs only the rules whose keywords occur,
    and finds which keywords occur in one pass (an RE2 set of them all)."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self._lock = threading.Lock()  # first compilation of a rule or of the keyword set, from any thread
        self._always = [n for n, r in enumerate(rules) if not r.keywords]  # positions in ``rules``
        self._keywords = sorted({k for r in rules for k in r.keywords})
        index = {k: i for i, k in enumerate(self._keywords)}
        self._by_keyword: list[list[int]] = [[] for _ in self._keywords]  # keyword → positions of its rules
        for n, rule in enumerate(rules):
            for k in set(rule.keywords):
                self._by_keyword[index[k]].append(n)
        self._set: Any = None

    def _keyword_set(self) -> Any:
        if self._set is None:
            import re2

            with self._lock:
                if self._set is None:
                    found = re2.Set.SearchSet()
                    for k in self._keywords:
                        found.Add(re2.escape(k))
                    found.Compile()
                    self._set = found
        return self._set

    def active(self, text: str) -> list[Rule]:
        """The rules to run on ``text``: those without keywords and those one of whose keywords occurs."""
        hits = self._keyword_set().Match(text.lower()) if self._keywords else None
        chosen = set(self._always)
        for i in hits or ():
            chosen.update(self._by_keyword[i])
        return [self.rules[n] for n in sorted(chosen)]  # in the rules' own order

    def find(self, text: str) -> list[Found]:
        if len(text) < MIN_TEXT:
            return []
        found: list[Found] = []
        for rule in self.active(text):
            if rule._compiled is None:
                with self._lock:
                    rule.compiled()
            found.extend(rule.find(text))
        return found


def load_gitleaks(path: Path = GITLEAKS_TOML) -> list[Rule]:
    """gitleaks' rules (those with a regex; file-path rules do not apply to text)."""
    with open(path, "rb") as fh:
        config = tomllib.load(fh)
    rules = []
    for item in config.get("rules", ()):
        if "regex" not in item:
            continue
        allows = tuple(_allow(a) for a in item.get("allowlists", ()) if "paths" not in a)
        if item["id"].startswith("generic"):
            allows += (IDENTIFIER,)
        rules.append(Rule(id=item["id"], regex=item["regex"],
                          keywords=tuple(k.lower() for k in item.get("keywords", ())),
                          entropy=float(item.get("entropy", 0.0)), secret_group=int(item.get("secretGroup", 0)),
                          allows=allows))
    return rules


def _allow(item: dict[str, Any]) -> Allow:
    return Allow(regexes=tuple(item.get("regexes", ())), target=item.get("regexTarget", "secret"),
                 stopwords=tuple(w.lower() for w in item.get("stopwords", ())),
                 all_of=str(item.get("condition", "OR")).upper() == "AND")


def url_password_rule() -> Rule:
    return UrlPasswordRule(id=URL_PASSWORD_RULE, regex=_URL_PASSWORD, keywords=("://",))


def default_rules() -> RuleSet:
    """gitleaks' rules and the URL-password rule."""
    return RuleSet([*load_gitleaks(), url_password_rule()])
