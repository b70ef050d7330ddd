"""The Settings dialog's rules, without Qt: read a form's values, say what is wrong, build Settings.

The dialog copies its fields into ``FormValues``; ``check_form`` lists every
problem as ``(field, message)`` in words a person can act on, and
``apply_form`` turns valid values into a new ``Settings``. Keys are kept
apart: they are returned separately and stored by ``SettingsStore.save_key``,
never put into ``Settings`` (so never into settings.json).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping
from urllib.parse import urlparse

from kernel import home
from kernel.api import (
    CACHE_WRITE, KEY_VARIABLES, PRICE_FIELDS, PRICE_MAX, PROVIDERS, ConfigError, KeySource, Settings, check_workspace,
)
from kernel.api import check_settings  # model routes: default fallbacks and the utility model


@dataclass(frozen=True)
class ProviderValues:
    key: str = ""              # typed in this session; empty keeps what is saved
    forget_key: bool = False   # remove the saved key
    base_url: str = ""
    model: str = ""
    prices: str | None = None  # "model input output cached_input cache_write" per line, per million tokens; None: unchanged
    fallbacks: str = ""        # "provider:model, provider:model": its default route after the default model


@dataclass(frozen=True)
class FormValues:
    user_name: str
    workspace: str
    default_lease_min: int
    request_expiry_s: int
    default_budget: int
    provider: str
    providers: Mapping[str, ProviderValues] = field(default_factory=dict)
    sandbox_read_only: str = ""   # one folder per line: what shell commands may read besides the workspace
    fallback_any_vendor: bool = False  # default routes may send a conversation to another vendor
    utility_model: str = ""            # provider:model for housekeeping (summaries, titles); empty: the agent's own
    compact_at_percent: int = 75       # the share of the model's window at which the context is made smaller
    context_window: str = ""           # tokens, as typed ("32,768"); empty: each model's known window


def values_from(settings: Settings) -> FormValues:
    """The form as it opens, from the current settings (keys are never shown)."""
    return FormValues(
        user_name=settings.user_name, workspace=settings.workspace,
        default_lease_min=max(1, round(settings.default_lease_s / 60)),
        request_expiry_s=int(settings.request_expiry_s), default_budget=settings.default_budget,
        provider=settings.provider,
        providers={p: ProviderValues(base_url=settings.base_urls.get(p, ""), model=settings.model_for(p),
                                     prices=prices_text(settings.prices.get(p, {})),
                                     fallbacks=", ".join(settings.fallbacks_for(p)))
                   for p in PROVIDERS},
        sandbox_read_only="\n".join(settings.sandbox_read_only),
        fallback_any_vendor=settings.fallback_any_vendor, utility_model=settings.utility_model,
        compact_at_percent=round(settings.compact_at * 100),
        context_window=f"{settings.context_window:,}" if settings.context_window > 0 else "",
    )


COMPACT_AT_RANGE = (10, 95)  # percent: below, a conversation is summarized almost at once; above, too late to fit
WINDOW_MIN, WINDOW_MAX = 1_024, 100_000_000


def window_tokens(text: str) -> int | None:
    """The context window typed ("32,768", "32 768", "32768"; empty: 0, each model's known one), or None."""
    digits = text.strip().replace(",", "").replace("_", "").replace(" ", "").replace("\u00a0", "")
    if not digits:
        return 0
    return int(digits) if digits.isascii() and digits.isdigit() else None


def context_problems(values: FormValues) -> list[tuple[str, str]]:
    """The compaction threshold and the user's context window, in words a person can act on."""
    errors: list[tuple[str, str]] = []
    low, high = COMPACT_AT_RANGE
    if not low <= values.compact_at_percent <= high:
        errors.append(("compact_at", f"Compact the conversation at {low}% to {high}% of the model's window "
                                     f"({values.compact_at_percent}% is outside that)."))
    window = window_tokens(values.context_window)
    if window is None:
        errors.append(("context_window", "The context window must be a whole number of tokens, such as 32,768 "
                                         "(empty: each model's known window)."))
    elif window and not WINDOW_MIN <= window <= WINDOW_MAX:
        errors.append(("context_window", f"The context window must be from {WINDOW_MIN:,} to {WINDOW_MAX:,} tokens "
                                         "(empty: each model's known window)."))
    return errors


def fallback_list(text: str) -> list[str]:
    """The fallbacks written in one field: provider:model names separated by commas or spaces."""
    return [t for t in text.replace(",", " ").split() if t]


def route_problems(values: FormValues) -> list[tuple[str, str]]:
    """The default routes and the utility model, checked by the settings' own rules (kernel/config/schema)."""
    data = {"fallbacks": {name: fallback_list(pv.fallbacks) for name, pv in values.providers.items()},
            "utility_model": values.utility_model.strip()}
    return [(exc.field or "fallbacks", exc.message[0].upper() + exc.message[1:] + ".")
            for exc in check_settings(data).errors]


PRICE_LINE_HELP = ("one model per line: its name, then input, output, cached input and cache write per million "
                   "tokens (cache write - when the provider has no such price)")
NO_PRICE = "-"


def prices_text(table: Mapping[str, Mapping[str, float]]) -> str:
    """A provider's prices as the form shows them: ``claude-sonnet-4-5  3  15  0.3  3.75`` per line."""
    return "\n".join(f"{model}  {row['input']:g}  {row['output']:g}  {row['cached_input']:g}  "
                     + (NO_PRICE if row.get(CACHE_WRITE) is None else f"{row[CACHE_WRITE]:g}")
                     for model, row in table.items())


def parse_prices(text: str) -> tuple[dict[str, dict[str, float]], str | None]:
    """The prices typed for one provider, or the first line that is wrong (in words)."""
    out: dict[str, dict[str, float]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words:
            continue
        write = words[4] if len(words) == 5 else NO_PRICE  # four words: a line without the new column
        try:
            amounts = [float(w) for w in words[1:4]] + ([] if write == NO_PRICE else [float(write)])
        except ValueError:
            amounts = []
        if len(words) not in (4, 5) or len(amounts) < 3 or not all(0 <= a <= PRICE_MAX for a in amounts):
            return out, (f"line {number} ({' '.join(words)[:40]}) should be {PRICE_LINE_HELP}, "
                         f"each from 0 to {PRICE_MAX:,.0f}")
        out[words[0]] = dict(zip((*PRICE_FIELDS, CACHE_WRITE), amounts))
    return out, None


def read_only_folders(text: str) -> tuple[str, ...]:
    """The folders typed one per line (blank lines and surrounding spaces dropped)."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def check_form(values: FormValues, agentdesk_home: Path | None = None) -> list[tuple[str, str]]:
    """Every problem, as (field, message); empty when the form can be saved. ``agentdesk_home``
    (default ``$AGENTDESK_HOME``) holds the ledger and keys, so no workspace may contain it."""
    errors: list[tuple[str, str]] = []
    if not values.user_name.strip():
        errors.append(("user_name", "Enter your name (agents address you by it)."))
    ws = values.workspace.strip()
    refused = ws and check_workspace(ws, agentdesk_home or home(), Path.home())
    if not ws:
        errors.append(("workspace", "Choose a workspace folder."))
    elif refused:
        errors.append(("workspace", refused[0].upper() + refused[1:] + "."))
    elif not Path(ws).expanduser().is_dir():
        errors.append(("workspace", f"The workspace folder {ws} does not exist."))
    if not 1 <= values.default_lease_min <= 480:
        errors.append(("default_lease", "The default lease must last from 1 minute to 8 hours (480 minutes)."))
    if values.request_expiry_s < 10:
        errors.append(("request_expiry", "Lease requests must stay open for at least 10 seconds."))
    if values.default_budget < 1000:
        errors.append(("default_budget", "The default budget must be at least 1,000 tokens."))
    if values.provider not in PROVIDERS:
        errors.append(("provider", f"Choose one of: {', '.join(PROVIDERS)}."))
    for name, pv in values.providers.items():
        url = pv.base_url.strip()
        if url:
            parsed = urlparse(url)
            if parsed.scheme not in ("http", "https") or not parsed.netloc:
                errors.append((f"{name}.base_url", f"The {name} base URL must start with http:// or https://"
                                                   " and name a host."))
        if pv.key and (pv.key != pv.key.strip() or any(c.isspace() for c in pv.key)):
            errors.append((f"{name}.key", f"The {name} API key must not contain spaces or line breaks."))
        if pv.prices is not None:
            _table, wrong = parse_prices(pv.prices)
            if wrong is not None:
                errors.append((f"{name}.prices", f"The {name} prices: {wrong}."))
    chosen = values.providers.get(values.provider)
    if chosen is not None and not chosen.model.strip():
        errors.append((f"{values.provider}.model", f"Enter a default model for {values.provider}."))
    errors.extend(route_problems(values))
    errors.extend(context_problems(values))
    for folder in read_only_folders(values.sandbox_read_only):
        if not (folder.startswith("/") or folder.startswith("~")):
            errors.append(("sandbox_read_only", f"Folders commands may read must be absolute paths or start "
                                                f"with ~ ({folder} is neither)."))
            break
    return errors


def apply_form(values: FormValues, base: Settings, agentdesk_home: Path | None = None) -> Settings:
    """New settings from valid form values (raises ConfigError for anything ``check_form`` missed)."""
    problems = check_form(values, agentdesk_home)
    if problems:
        raise ConfigError(problems[0][1], problems[0][0])
    models = dict(base.models)
    base_urls = dict(base.base_urls)
    prices: dict[str, Mapping[str, Mapping[str, float]]] = {name: dict(table) for name, table in base.prices.items()}
    for name, pv in values.providers.items():
        if pv.prices is not None:
            prices[name] = parse_prices(pv.prices)[0]
        if pv.model.strip():
            models[name] = pv.model.strip()
        if pv.base_url.strip():
            base_urls[name] = pv.base_url.strip()
        else:
            base_urls.pop(name, None)
    fallbacks = {name: tuple(fallback_list(pv.fallbacks)) for name, pv in values.providers.items()
                 if fallback_list(pv.fallbacks)}
    base = replace(base, fallbacks=fallbacks, fallback_any_vendor=values.fallback_any_vendor,
                   utility_model=values.utility_model.strip(), compact_at=values.compact_at_percent / 100,
                   context_window=window_tokens(values.context_window) or 0)
    new = replace(base, user_name=values.user_name.strip(), workspace=str(Path(values.workspace.strip()).expanduser()),
                  default_lease_s=float(values.default_lease_min * 60), request_expiry_s=float(values.request_expiry_s),
                  default_budget=values.default_budget, provider=values.provider, models=models, base_urls=base_urls,
                  sandbox_read_only=read_only_folders(values.sandbox_read_only), prices=prices)
    new.validate()
    return new


def key_changes(values: FormValues) -> dict[str, str | None]:
    """What to store in keys.json: a new key per provider, or None to forget one."""
    out: dict[str, str | None] = {}
    for name, pv in values.providers.items():
        if pv.key:
            out[name] = pv.key
        elif pv.forget_key:
            out[name] = None
    return out


def key_source_text(provider: str, source: KeySource | ConfigError, saved: bool) -> str:
    """Where the key in use comes from, in words (never the key): the environment, keys.json, the system
    keyring, or nowhere yet, with how to set one; or why keys.json cannot be used."""
    variable = KEY_VARIABLES[provider]
    if isinstance(source, ConfigError):
        return f"Key in use: none — {source.message}. Type a key here and Save, or set {variable}."
    if source.where == "environment":
        text = f"Key in use: from {source.name} (environment)."
        return text + (" The key saved in keys.json is not used while it is set." if saved else "")
    if source.where in ("keys.json", "keyring"):
        whose = "" if source.name == provider else f" (the {source.name} key)"
        where = "keys.json" if source.where == "keys.json" else "the system keyring"
        return f"Key in use: saved in {where}{whose}."
    return f"Key in use: not set — type a key here and Save, or set {variable} in the environment."
