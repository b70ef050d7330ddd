"""Settings: a small JSON file in ``$AGENTDESK_HOME``, and keys kept apart.

``settings.json`` holds preferences (user name, workspace, lease and budget
defaults, provider models and base URLs). API keys are saved in the system
keyring when one is usable (``save_secret_key``, kernel/config/secrets.py), else
in ``keys.json`` with mode 0600; they are never written to the ledger or logs,
and are only read when a provider is built; the SDKs' own environment
variables win over them.

Both files are checked value by value (``config.schema``): ``load`` raises
the first problem as a ``ConfigError`` naming the file, the field and what it
allows; ``check`` reads leniently (bad fields fall back to their defaults)
so the desktop can start and offer to fix them; ``restore_default`` rewrites
just the field a problem names, keeping the rest of the file as it was.
"""

from __future__ import annotations

import getpass
import json
import os
import stat
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, Mapping

from ledger.limits import MAX_BLOB_BYTES

from ..core.errors import ConfigError
from ..accounting.prices import DEFAULT_PRICES, frozen_prices
from ..providers.catalog import CATALOG
from ..trust.hook_config import Hook
from .private import make_home, write_private
from .schema import (
    KEYS_FILE, PROVIDER_NAMES, SETTINGS_FILE, WEB_KEY_VARIABLES, Checked, check_keys, check_settings, unreadable,
)

PROVIDERS = PROVIDER_NAMES
MAX_FILE_BYTES = 1 << 20  # a settings or keys file larger than this is not read
# Views of the provider catalog (kernel/providers/catalog.py), by provider name.
DEFAULT_MODELS: Mapping[str, str] = MappingProxyType({n: p.default_model for n, p in CATALOG.items()})
KEY_VARIABLES: Mapping[str, str] = MappingProxyType({n: p.key_variable for n, p in CATALOG.items()})
BASE_URL_VARIABLES: Mapping[str, str] = MappingProxyType({n: p.base_url_variable for n, p in CATALOG.items()})


from .home import home as home  # noqa: E402  # in a module of its own: ask finds the kernel without the rest


@dataclass(frozen=True)
class Settings:
    user_name: str = field(default_factory=lambda: _login_name())
    # A folder of its own by default: a shell command's first snapshot reads every file in the
    # workspace, and the whole home folder is far more than an agent should start with.
    workspace: str = field(default_factory=lambda: str(Path.home() / "Agentdesk"))
    default_lease_s: float = 15 * 60.0
    request_expiry_s: float = 2 * 60.0
    default_budget: int = 200_000
    provider: str = "anthropic"
    models: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_MODELS))
    base_urls: Mapping[str, str] = field(default_factory=dict)
    max_tokens: int = 8192
    image_budget_count: int = 8   # pictures sent per request, newest first (older ones: a placeholder line)
    image_budget_mb: float = 8.0  # and their megabytes
    # the context engine (kernel/context): a model's window when the catalog does not know it (a local model;
    # 0: the catalog's), and the share of it at which old tool results are cleared, then the conversation compacted
    context_window: int = 0
    compact_at: float = 0.75
    max_retries: int = 3
    retry_cap_s: float = 30.0
    request_timeout_s: float = 120.0
    shell_timeout_s: float = 120.0
    allow_unsandboxed_shell: bool = False
    blob_max_bytes: int = MAX_BLOB_BYTES
    sandbox_read_only: tuple[str, ...] = ()  # folders a shell command may read (absolute or ~); kernel/sandbox/view.py
    # trust (kernel/trust): per-scope policy (ask · confirm · auto · deny) and hooks around tool calls
    policies: Mapping[str, str] = field(default_factory=dict)
    hooks: tuple[Hook, ...] = ()
    # provider → model → {input, output, cached_input[, cache_write]} per million tokens (kernel/accounting/prices.py)
    prices: Mapping[str, Mapping[str, Mapping[str, float]]] = field(default_factory=lambda: frozen_prices(DEFAULT_PRICES))
    # The web tools (kernel/tools/web): what web_fetch may read, and which search service web_search uses.
    web_allow_private: bool = False         # let web_fetch reach private, loopback and link-local addresses
    web_fetch_max_bytes: int = 2 * 1024 * 1024
    web_fetch_timeout_s: float = 20.0
    web_fetch_max_redirects: int = 5        # hops web_fetch follows (0 to 5), each one checked again
    web_search_backend: str = "none"        # none · brave · tavily · searxng
    web_search_base_url: str = ""           # empty: the back-end's own (SearXNG has none: set yours)
    automation_grace_s: float = 12 * 3600.0  # a missed slot older than this is not caught up (kernel/automations)
    automation_pause_after: int = 3  # failed slots in a row before an automation pauses itself
    # model routes (kernel/routes): default fallbacks per provider ("provider:model", in order), whether they
    # may be at another vendor, the most a fallback may cost (times the primary's price), the housekeeping model
    fallbacks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    fallback_any_vendor: bool = False
    fallback_price_ceiling: float = 1.0
    utility_model: str = ""  # "provider:model" for summaries and titles; "" = the agent's own provider's default

    def fallbacks_for(self, provider: str) -> tuple[str, ...]:
        return tuple(self.fallbacks.get(provider, ()))

    def model_for(self, provider: str) -> str:
        return self.models.get(provider) or DEFAULT_MODELS.get(provider, "")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["models"] = dict(self.models)
        data["base_urls"] = dict(self.base_urls)
        data["sandbox_read_only"] = list(self.sandbox_read_only)
        data["policies"] = dict(self.policies)
        data["hooks"] = [h.to_json() for h in self.hooks]
        data["prices"] = frozen_prices(self.prices)
        data["fallbacks"] = {p: list(f) for p, f in self.fallbacks.items()}
        return data

    @classmethod
    def from_checked(cls, checked: Checked) -> "Settings":
        """Settings from the values that passed; every failed field keeps its default. A price table
        saved before the cache-write column gains Anthropic's (``prices.with_cache_write``)."""
        values = dict(checked.values)
        if "prices" in values:
            values["prices"] = frozen_prices(values["prices"])
        if "fallbacks" in values:
            values["fallbacks"] = {p: tuple(f) for p, f in values["fallbacks"].items()}
        return cls(**values)

    def validate(self) -> None:
        """ConfigError naming the first field whose value settings.json could not hold."""
        checked = check_settings(self.to_json())
        if checked.errors:
            raise checked.errors[0]


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (ImportError, KeyError, OSError):  # no pwd module, no passwd entry (3.11), or both (3.13)
        return "user"


@dataclass
class SettingsStore:
    """Reads and writes settings.json and keys.json under one home folder."""

    root: Path

    @property
    def settings_path(self) -> Path:
        return self.root / "settings.json"

    @property
    def keys_path(self) -> Path:
        return self.root / "keys.json"

    @property
    def ledger_path(self) -> Path:
        return self.root / "ledger.db"

    def load(self) -> Settings:
        """The settings (defaults when there is no file); ConfigError for the first problem."""
        result = self.check()
        if result.errors:
            raise result.errors[0]
        return result.settings

    def check(self) -> "SettingsCheck":
        """settings.json read leniently: usable settings, every problem, and the unknown names."""
        try:
            data = _read_json(self.settings_path, SETTINGS_FILE)
        except ConfigError as exc:
            return SettingsCheck(Settings(), (exc,))
        if data is None:
            return SettingsCheck(Settings())
        checked = check_settings(data)
        return SettingsCheck(Settings.from_checked(checked), checked.errors, checked.unknown)

    def problems(self) -> tuple[ConfigError, ...]:
        """Every problem in settings.json, then in keys.json."""
        return self.check().errors + self._check_keys().errors

    def save(self, settings: Settings) -> None:
        settings.validate()
        make_home(self.root)
        write_private(self.settings_path, json.dumps(settings.to_json(), indent=2))

    def keys(self) -> dict[str, str]:
        """The saved keys; ConfigError (never quoting a key) when keys.json holds anything else."""
        checked = self._check_keys()
        if checked.errors:
            raise checked.errors[0]
        return dict(checked.values)

    def _check_keys(self) -> Checked:
        try:
            data = _read_json(self.keys_path, KEYS_FILE)
        except ConfigError as exc:
            return Checked({}, (exc,))
        return Checked({}) if data is None else check_keys(data)

    def save_key(self, provider: str, key: str | None) -> None:
        keys = self.keys()
        if key:
            keys[provider] = key
        else:
            keys.pop(provider, None)
        make_home(self.root)
        write_private(self.keys_path, json.dumps(keys, indent=2))

    def api_key(self, provider: str, env: Mapping[str, str] | None = None) -> str | None:
        """The key for a provider: its SDK's environment variable first, then keys.json."""
        return self._find_key(provider, env)[1]

    def key_source(self, provider: str, env: Mapping[str, str] | None = None) -> "KeySource":
        """Where the key in use for ``provider`` comes from (never the key itself)."""
        return self._find_key(provider, env)[0]

    def _find_key(self, provider: str, env: Mapping[str, str] | None) -> tuple["KeySource", str | None]:
        env = os.environ if env is None else env
        info = CATALOG[provider]
        for name in info.key_variables:
            if env.get(name):
                return KeySource("environment", name), env[name]
        keys = self.keys()
        for name in info.saved_key_names:
            if keys.get(name):
                return KeySource(KEYS_FILE, name), keys[name]
        from .secrets import keyring_secret  # keys moved to the system keyring (kernel.config.secrets)
        for name in info.saved_key_names:
            secret = keyring_secret(name)
            if secret:
                return KeySource("keyring", name), secret
        return KeySource(None, info.key_variable), None

    def web_key(self, backend: str, env: Mapping[str, str] | None = None) -> str | None:
        """A web search back-end's key: its environment variable first, then keys.json, then the keyring (never raises)."""
        env = os.environ if env is None else env
        variable = WEB_KEY_VARIABLES.get(backend)
        if variable and env.get(variable):
            return env[variable]
        saved: str | None = self._check_keys().values.get(backend)
        if saved:
            return saved
        from .secrets import keyring_names, keyring_secret  # a key saved to the system keyring

        return keyring_secret(backend) if backend in keyring_names(self.root) else None

    def held_secrets(self) -> list[tuple[str, str]]:
        """Every key keys.json and the keyring hold, as (where, value), for the ledger's redactor (never raises;
        the keyring is asked only when this home keeps something there)."""
        from .secrets import keyring_held

        held = [(f"keys.json {name}", value) for name, value in self._check_keys().values.items()]
        return held + [(f"keyring {name}", value) for name, value in keyring_held(self.root)]

    def keyring_names(self) -> list[str]:
        """The key names this home keeps in the system keyring (names only; no keyring probe)."""
        from .secrets import keyring_names

        return keyring_names(self.root)

    def save_secret_key(self, name: str, key: str | None) -> str:
        """Save (or, None, forget) a provider or web key where secrets go: the system keyring when one is
        usable, else keys.json. Where it went, in words (never the key)."""
        from .secrets import SecretStore

        secrets = SecretStore(self)
        if key:
            return secrets.set(name, key)
        secrets.delete(name)
        return "the system keyring" if secrets.backend is not None else "keys.json"

    def base_url(self, provider: str, settings: Settings, env: Mapping[str, str] | None = None) -> str | None:
        env = os.environ if env is None else env
        return env.get(CATALOG[provider].base_url_variable) or settings.base_urls.get(provider) or None


    def restore_default(self, problem: ConfigError) -> None:
        """Undo what ``problem`` names: drop that one field from its file (so its default applies), or
        set an unusable file aside as ``<name>.broken`` (kept, never deleted)."""
        path = {SETTINGS_FILE: self.settings_path, KEYS_FILE: self.keys_path}.get(problem.file or "")
        if path is None:
            raise ValueError(f"not a problem in a settings file: {problem}")
        data = None if problem.field is None else _read_json_or_none(path)
        if problem.field is None or not isinstance(data, dict):
            if path.exists():
                os.replace(path, path.with_name(path.name + ".broken"))
            return
        if problem.field in data:
            del data[problem.field]
        else:  # an entry of a mapping: models.gemini
            name, _, entry = problem.field.partition(".")
            if isinstance(data.get(name), dict):
                data[name].pop(entry, None)
        write_private(path, json.dumps(data, indent=2))


@dataclass(frozen=True)
class SettingsCheck:
    """settings.json read leniently: ``settings`` has defaults where ``errors`` found bad values."""

    settings: Settings
    errors: tuple[ConfigError, ...] = ()
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True)
class KeySource:
    """Where a provider's key comes from: ``environment`` (``name`` is the variable), ``keys.json``
    (``name`` is the entry, ``openai`` for openai-chat), or nowhere (``name`` is the variable to set)."""

    where: Literal["environment", "keys.json", "keyring"] | None
    name: str


def _read_json(path: Path, file: str) -> Any:
    """The parsed file, None when it does not exist, ConfigError when it cannot be used."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # a FIFO must not hang us
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unreadable(file, f"cannot read {path} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise unreadable(file, f"{path} is not a regular file")
    with os.fdopen(fd, "rb") as fh:
        try:
            raw = fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise unreadable(file, f"cannot read {path} ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise unreadable(file, f"{path} is larger than {MAX_FILE_BYTES // 1024} KiB")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise unreadable(file, f"{path} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise unreadable(file, f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}, "
                               f"column {exc.colno})") from None
    except (ValueError, RecursionError):
        raise unreadable(file, f"{path} is not valid JSON (nested too deeply or too large a number)") from None


def _read_json_or_none(path: Path) -> Any:
    try:
        return _read_json(path, path.name)
    except ConfigError:
        return None


def with_overrides(settings: Settings, **changes: Any) -> Settings:
    """A copy with some fields changed (None values ignored), validated."""
    new = replace(settings, **{k: v for k, v in changes.items() if v is not None})
    new.validate()
    return new
