"""Settings: a small JSON file in ``$AGENTDESK_HOME``, and keys kept apart.

``settings.json`` holds preferences (user name, workspace, lease and budget
defaults, provider models and base URLs). API keys live in ``keys.json``
with mode 0600, are never written to the ledger or logs, and are only read
when a provider is built; the SDKs' own environment variables win over them.
"""

from __future__ import annotations

import getpass
import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from .errors import ConfigError

PROVIDERS = ("anthropic", "openai", "openai-chat", "gemini")
DEFAULT_MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-5",
    "openai-chat": "gpt-5",
    "gemini": "gemini-2.5-flash",
}
KEY_VARIABLES = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai-chat": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
BASE_URL_VARIABLES = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
    "openai-chat": "OPENAI_BASE_URL",
    "gemini": "GOOGLE_GEMINI_BASE_URL",
}


def home(env: Mapping[str, str] | None = None) -> Path:
    """Where the ledger and settings live: $AGENTDESK_HOME, else the platform's user data folder."""
    env = os.environ if env is None else env
    if env.get("AGENTDESK_HOME"):
        return Path(env["AGENTDESK_HOME"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("agentdesk", appauthor=False))


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
    max_retries: int = 3
    retry_cap_s: float = 30.0
    request_timeout_s: float = 120.0
    shell_timeout_s: float = 120.0
    allow_unsandboxed_shell: bool = False
    sandbox_read_only: list[str] = field(default_factory=list)  # folders shell commands may read; kernel/sandbox_view.py
    blob_max_bytes: int = 50 * 1024 * 1024

    def model_for(self, provider: str) -> str:
        return self.models.get(provider) or DEFAULT_MODELS.get(provider, "")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["models"] = dict(self.models)
        data["base_urls"] = dict(self.base_urls)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Settings":
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        if self.provider not in PROVIDERS:
            raise ConfigError(f"unknown provider {self.provider!r}: choose one of {', '.join(PROVIDERS)}", "provider")
        if not 0 < self.default_lease_s <= 8 * 3600:
            raise ConfigError("the default lease must last between 1 second and 8 hours", "default_lease_s")
        if self.request_expiry_s <= 0:
            raise ConfigError("lease requests must expire after a positive time", "request_expiry_s")
        if self.default_budget <= 0:
            raise ConfigError("the default budget must be a positive number of tokens", "default_budget")


def _login_name() -> str:
    try:
        return getpass.getuser()
    except Exception:
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
        try:
            data = json.loads(self.settings_path.read_text("utf-8"))
        except FileNotFoundError:
            return Settings()
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read {self.settings_path}: {exc}", "settings.json") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{self.settings_path} does not hold a JSON object", "settings.json")
        return Settings.from_json(data)

    def save(self, settings: Settings) -> None:
        settings.validate()
        self.root.mkdir(parents=True, exist_ok=True)
        _write_private(self.settings_path, json.dumps(settings.to_json(), indent=2), mode=0o644)

    def keys(self) -> dict[str, str]:
        try:
            data = json.loads(self.keys_path.read_text("utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read {self.keys_path}: {exc}", "keys.json") from exc
        return {k: v for k, v in data.items() if isinstance(v, str) and v}

    def save_key(self, provider: str, key: str | None) -> None:
        keys = self.keys()
        if key:
            keys[provider] = key
        else:
            keys.pop(provider, None)
        self.root.mkdir(parents=True, exist_ok=True)
        _write_private(self.keys_path, json.dumps(keys, indent=2), mode=0o600)

    def api_key(self, provider: str, env: Mapping[str, str] | None = None) -> str | None:
        """The key for a provider: its SDK's environment variable first, then keys.json."""
        env = os.environ if env is None else env
        names = [KEY_VARIABLES[provider]]
        if provider == "gemini":
            names.insert(0, "GOOGLE_API_KEY")
        for name in names:
            if env.get(name):
                return env[name]
        return self.keys().get("openai" if provider == "openai-chat" else provider) or self.keys().get(provider)

    def base_url(self, provider: str, settings: Settings, env: Mapping[str, str] | None = None) -> str | None:
        env = os.environ if env is None else env
        return env.get(BASE_URL_VARIABLES[provider]) or settings.base_urls.get(provider) or None


def _write_private(path: Path, text: str, mode: int) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def with_overrides(settings: Settings, **changes: Any) -> Settings:
    """A copy with some fields changed (None values ignored), validated."""
    new = replace(settings, **{k: v for k, v in changes.items() if v is not None})
    new.validate()
    return new
