"""What settings.json and keys.json may hold, checked value by value before anything uses them.

Both files are hostile input: a hand edit, a half-written file or another program can put anything
there, and a wrong type used to reach the code as a traceback (``"default_lease_s": "x"``) or be
taken silently (``"shell_timeout_s": -1``). Every field has one rule, and the rule carries the words
for what it allows, so the sentence a person reads (``settings.json: default_lease_s must be a number
of seconds between 1 and 28800 (found "x")``) comes from the same place as the check.

Strict: no coercion (``"5"`` is not a number, ``true`` is not 1, ``2.5`` is not a whole number), NaN
and infinities are refused, every number has a range, mappings name only known providers. Unknown
settings are reported as warnings and otherwise ignored: a misspelt name should be seen, and a
setting written by a newer Agentdesk should not stop an older one.

Hand-written rather than pydantic: on the shared 2-core dev machine (2026-12-01, ``-X importtime``,
median of 9, bytecode cached) this module imports in 2.7 ms, pydantic with ``BaseModel`` in 80 ms
(49-200 ms): more than the rest of ``kernel.config.settings``' start, for sixteen fields, and pydantic's
messages would still need rewording into these sentences. ``benchmarks/settings_bench.py``.

Values from keys.json are secrets: a sentence about one names its type, never its text.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Final, Mapping
from urllib.parse import urlparse

from ..core.errors import ConfigError
from ..leases.lease import MAX_DURATION, WORKING_DAY
from ..accounting.prices import valid_models
from ..providers.catalog import PROVIDER_NAMES
from ..routes.build import CEILING_MAX
from ..routes.route import MAX_FALLBACKS
from ..routes.target import parse_target
from ..trust.hook_config import HOOK_ALLOWED, hooks_ok, policies_ok, to_hooks
from ..trust.policy import MODES

SETTINGS_FILE = "settings.json"
KEYS_FILE: Final = "keys.json"
SHELL_TIMEOUT_MAX_S = WORKING_DAY  # the longest a shell command may run
_SECRET_LIKE = re.compile(r"^(sk-|AIza)|^[A-Za-z0-9_\-]{32,}$")


def _num(n: float) -> str:
    if not float(n).is_integer():
        return str(n)
    return f"{int(n):,}" if n >= 100_000 else str(int(n))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class Rule:
    """What one field accepts: ``allowed`` in words, ``ok`` the check, ``convert`` the stored value;
    ``entries`` the rule for each value of a provider mapping. (A plain class: seven dataclasses cost
    11 ms of import on the 2-core dev machine, 2026-12-01, for what four attributes do.)"""

    __slots__ = ("allowed", "ok", "convert", "entries")

    def __init__(self, allowed: str, ok: Callable[[Any], bool], convert: Callable[[Any], Any] = lambda v: v,
                 entries: "Rule | None" = None) -> None:
        self.allowed, self.ok, self.convert, self.entries = allowed, ok, convert, entries


def number(low: float, high: float, unit: str, whole: bool = False) -> Rule:
    kind = "a whole number" if whole else "a number"

    def ok(value: Any) -> bool:
        return _is_number(value) and (not whole or isinstance(value, int)) and low <= value <= high

    return Rule(f"{kind} of {unit} between {_num(low)} and {_num(high)}", ok, int if whole else float)


def text(allowed: str, max_len: int = 200, check: Callable[[str], bool] = lambda _s: True) -> Rule:
    def ok(value: Any) -> bool:
        return (isinstance(value, str) and 0 < len(value) <= max_len and value.strip() == value
                and value.isprintable() and check(value))

    return Rule(allowed, ok)


def choice(options: tuple[str, ...]) -> Rule:
    return Rule("one of " + ", ".join(options), lambda v: isinstance(v, str) and v in options)


def _folder(path: str) -> bool:
    return path.startswith(("/", "~"))


def _url(url: str) -> bool:
    try:
        parsed = urlparse(url)
    except ValueError:
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.hostname) and not any(c.isspace() for c in url)


FOLDER = text("a folder path, absolute or starting with ~", max_len=4096, check=_folder)
MODEL = text("a model name (text without spaces)", check=lambda s: not any(c.isspace() for c in s))
URL = text("an http:// or https:// URL naming a host", max_len=2048, check=_url)
FLAG = Rule("true or false", lambda v: isinstance(v, bool))


def provider_map(what: str, entries: Rule) -> Rule:
    """An object whose names are providers and whose values each pass ``entries`` (checked one by one)."""
    return Rule(f"an object mapping provider names to {what}", lambda v: isinstance(v, dict), dict, entries)


FOLDER_LIST = Rule("a list of folder paths, each absolute or starting with ~",
                   lambda v: isinstance(v, list) and len(v) <= 256 and all(FOLDER.ok(p) for p in v), tuple)

# trust (kernel/trust): per-scope policies and hooks, each checked whole
POLICIES = Rule("an object mapping scopes (like fs.write, or *) to one of " + ", ".join(MODES),
                lambda v: policies_ok(v, MODES), dict)
HOOKS = Rule(HOOK_ALLOWED, hooks_ok, to_hooks)
PRICE_TABLE = Rule("an object mapping model names to {input, output, cached_input} and optionally cache_write, "
                   "each a number of money per million tokens from 0 to 10000", valid_models)
WEB_SEARCH_BACKENDS = ("none", "brave", "tavily", "searxng")
WEB_DEFAULT_BASE_URLS = {"brave": "https://api.search.brave.com", "tavily": "https://api.tavily.com"}
WEB_KEY_VARIABLES = {"brave": "BRAVE_API_KEY", "tavily": "TAVILY_API_KEY", "searxng": "SEARXNG_API_KEY"}
KEY_NAMES = (*PROVIDER_NAMES, *WEB_SEARCH_BACKENDS[1:])  # what keys.json may hold a key for
OPTIONAL_URL = Rule("an http:// or https:// URL naming a host, or empty", lambda v: v == "" or URL.ok(v))

def _target_ok(value: Any) -> bool:
    try:
        parse_target(value, PROVIDER_NAMES)
    except (ConfigError, AttributeError):
        return False
    return isinstance(value, str)


FALLBACK_LIST = Rule(f"a list of at most {MAX_FALLBACKS} provider:model names",
                     lambda v: isinstance(v, list) and len(v) <= MAX_FALLBACKS and all(_target_ok(t) for t in v), tuple)

SETTINGS_RULES: dict[str, Rule] = {
    "user_name": text("a name of 1 to 200 characters on one line"),
    "workspace": FOLDER,
    "default_lease_s": number(1, MAX_DURATION, "seconds"),
    "request_expiry_s": number(1, 24 * 3600, "seconds"),
    "automation_grace_s": number(0, 7 * 24 * 3600, "seconds"),
    "automation_pause_after": number(1, 100, "failed runs", whole=True),
    "default_budget": number(1, 2_000_000_000, "tokens", whole=True),
    "provider": choice(PROVIDER_NAMES),
    "models": provider_map("model names", MODEL),
    "base_urls": provider_map("http:// or https:// URLs", URL),
    "max_tokens": number(1, 1_000_000, "tokens", whole=True),
    "image_budget_count": number(0, 100, "images", whole=True),
    "image_budget_mb": number(0, 100, "megabytes"),
    "context_window": number(0, 100_000_000, "tokens", whole=True),
    "compact_at": number(0.1, 0.95, "share of the context window"),
    "max_retries": number(0, 10, "retries", whole=True),
    "retry_cap_s": number(0, 3600, "seconds"),
    "request_timeout_s": number(1, 3600, "seconds"),
    "shell_timeout_s": number(1, SHELL_TIMEOUT_MAX_S, "seconds"),
    "allow_unsandboxed_shell": FLAG,
    "blob_max_bytes": number(1, 10**12, "bytes", whole=True),
    "sandbox_read_only": FOLDER_LIST,
    "policies": POLICIES,
    "hooks": HOOKS,
    "prices": provider_map("price tables", PRICE_TABLE),
    "web_allow_private": FLAG,
    "web_fetch_max_bytes": number(1024, 1 << 30, "bytes", whole=True),
    "web_fetch_timeout_s": number(1, 600, "seconds"),
    "web_fetch_max_redirects": number(0, 5, "redirects", whole=True),
    "web_search_backend": choice(WEB_SEARCH_BACKENDS),
    "web_search_base_url": OPTIONAL_URL,
    # model routes (kernel/routes)
    "fallbacks": provider_map("lists of provider:model fallbacks", FALLBACK_LIST),
    "fallback_any_vendor": FLAG,
    "fallback_price_ceiling": number(0.01, CEILING_MAX, "times the primary's price"),
    "utility_model": Rule("provider:model, or empty", lambda v: v == "" or _target_ok(v)),
}


@dataclass(frozen=True)
class Checked:
    """A file's values read leniently: ``values`` holds every field that passed (converted), and
    ``errors`` one ConfigError per field that did not; ``unknown`` names what no rule knows."""

    values: Mapping[str, Any]
    errors: tuple[ConfigError, ...] = ()
    unknown: tuple[str, ...] = ()


def looks_secret(text: str) -> bool:
    """A string that may be an API key (a known prefix, or a long run of token characters)."""
    return bool(_SECRET_LIKE.search(text))


def found(value: Any) -> str:
    """A short, printable, one-line rendering of a bad value (a secret-looking string is not shown)."""
    if isinstance(value, str) and looks_secret(value):
        return f"a string of {len(value)} characters"
    text = json.dumps(value, ensure_ascii=False)
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if len(text) <= 60 else text[:59] + "\u2026"


def kind_of(value: Any) -> str:
    """A JSON value's type in words (what a sentence about a secret may say)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "an empty string" if not value else "a string"
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "an object"


def check_settings(data: Any, rules: Mapping[str, Rule] = SETTINGS_RULES) -> Checked:
    """Every problem in a parsed settings.json, and the values that are fine."""
    if not isinstance(data, dict):
        return Checked({}, (ConfigError.invalid(SETTINGS_FILE, None, "a JSON object of settings",
                                                kind_of(data)),))
    values: dict[str, Any] = {}
    errors: list[ConfigError] = []
    for name, value in data.items():
        rule = rules.get(name)
        if rule is None:
            continue
        if not rule.ok(value):
            errors.append(ConfigError.invalid(SETTINGS_FILE, name, rule.allowed, found(value)))
        elif rule.entries is not None:
            values[name], bad = _check_map(name, rule.entries, value)
            errors.extend(bad)
        else:
            values[name] = rule.convert(value)
    unknown = tuple(name for name in data if name not in rules)
    return Checked(values, tuple(errors), unknown)


def _check_map(name: str, entries: Rule, value: dict[str, Any]) -> tuple[dict[str, str], list[ConfigError]]:
    good: dict[str, str] = {}
    errors: list[ConfigError] = []
    for provider, item in value.items():
        field = f"{name}.{provider}"
        if provider not in PROVIDER_NAMES:
            errors.append(_not_a_provider(SETTINGS_FILE, field))
        elif not entries.ok(item):
            errors.append(ConfigError.invalid(SETTINGS_FILE, field, entries.allowed, found(item)))
        else:
            good[provider] = item
    return good, errors


def check_keys(data: Any) -> Checked:
    """Every problem in a parsed keys.json (never quoting a key), and the usable keys."""
    if not isinstance(data, dict):
        return Checked({}, (ConfigError.invalid(KEYS_FILE, None, "a JSON object mapping provider names to "
                                                "API keys", kind_of(data)),))
    good: dict[str, str] = {}
    errors: list[ConfigError] = []
    for provider, key in data.items():
        if isinstance(provider, str) and provider.startswith("account:") and isinstance(key, str) and key:
            good[provider] = key  # a mail account's password, when no system keyring is usable
            continue
        if isinstance(provider, str) and provider.startswith("mcp:") and isinstance(key, str) and key:
            good[provider] = key  # an MCP server's secrets (kernel/extensions/mcp_secrets), likewise
            continue
        if isinstance(provider, str) and provider.startswith("channel:") and isinstance(key, str) and key:
            good[provider] = key  # a chat channel's token (kernel/channels), likewise
            continue
        if isinstance(provider, str) and provider.startswith("kernel:") and isinstance(key, str) and key:
            good[provider] = key  # the kernel's own secrets (the outward ids' salt: kernel/mail/effect_ids)
            continue
        if provider not in KEY_NAMES:
            errors.append(_not_a_provider(KEYS_FILE, provider, KEY_NAMES))
        elif not isinstance(key, str):
            errors.append(ConfigError.invalid(KEYS_FILE, provider, "an API key string", kind_of(key)))
        elif key and (len(key) > 4096 or not key.isprintable() or any(c.isspace() for c in key)):
            errors.append(ConfigError.invalid(KEYS_FILE, provider, "an API key without spaces or line breaks",
                                              "a string with spaces or control characters"))
        elif key:
            good[provider] = key
    return Checked(good, tuple(errors))


def _not_a_provider(file: str, field: str, names: tuple[str, ...] = PROVIDER_NAMES) -> ConfigError:
    allowed = "one of " + ", ".join(names)
    return ConfigError(f"{file}: {found(field)} names no provider (allowed: {allowed})", field, file=file,
                       field=field, allowed=allowed)


def unreadable(file: str, reason: str) -> ConfigError:
    """The whole file cannot be used (not JSON, cannot be read)."""
    return ConfigError(f"{file} cannot be used: {reason}", file, file=file, field=None,
                       allowed="a JSON object")
