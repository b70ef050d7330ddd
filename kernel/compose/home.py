"""``open_home``: the kernel of a home folder, as the kernel service and the desktop's in-process mode run it.

Settings, the ledger, the providers (built lazily by ``kernel.providers.lazy``,
in host processes when a UI must stay responsive), the secrets the ledger
keeps out of the record, and the mail accounts: all read from the home and
handed to ``build_kernel``. The providers come back with the kernel, so a
caller can forget them after a settings change and close them at the end
without building (or importing) them itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

from .build import build_kernel

if TYPE_CHECKING:
    from pathlib import Path

    from ledger import Ledger

    from ..config.settings import Settings, SettingsStore
    from ..core.clock import Clock
    from ..facade import Kernel
    from ..providers.base import Provider
    from ..tools.registry import ToolRegistry


class Providers(Protocol):
    """The kernel's provider factory, as its owner sees it: built on first use, forgotten after a settings
    change (keys or base URLs), closed at the end (their host processes)."""

    def __call__(self, name: str) -> Provider: ...
    def forget(self) -> None: ...
    async def aclose(self) -> None: ...


class _Given:
    """Providers a caller made (tests, demos): nothing to forget or close."""

    def __init__(self, factory: Callable[[str], Any]) -> None:
        self._factory = factory

    def __call__(self, name: str) -> Provider:
        provider: Provider = self._factory(name)
        return provider

    def forget(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


@dataclass
class HomeKernel:
    """A home's kernel and what was built with it."""

    kernel: Kernel
    ledger: Ledger
    providers: Providers
    store: SettingsStore

    async def start(self) -> list[str]:
        """Scheduled runs start firing and the home's MCP servers start (on the running loop); returns a
        sentence for each server that could not."""
        from ..extensions.setup import start_configured_mcp

        self.kernel.automations.start()
        return await start_configured_mcp(self.kernel.extensions, self.store.root)

    async def stop_mcp(self) -> None:
        """Stop the MCP servers (their tools stay listed; the kernel and the ledger stay open)."""
        await self.kernel.extensions.stop_mcp()

    async def aclose(self) -> None:
        """The kernel, then its providers, then the ledger."""
        await self.kernel.aclose()
        await self.providers.aclose()
        self.ledger.close()


def open_home(root: Path, *, out_of_process: bool, settings: Settings | None = None, attached: bool = False,
              watch_workspaces: bool = False, restore: bool = True, clock: Clock | None = None,
              providers: Callable[[str], Any] | None = None, tools: ToolRegistry | None = None,
              check_later: bool = False) -> HomeKernel:
    """The kernel of the home folder ``root``. ``out_of_process``: providers run their SDKs in host processes
    (the desktop: a UI to keep responsive; the service has none); ``settings`` stand in for the home's
    (the desktop shows a bad file's problems and runs on defaults); ``providers`` and ``tools`` replace the
    real ones (tests); ``clock`` is the ledger's and the kernel's; ``check_later``: the checks at start are the
    caller's (the kernel service serves first: kernel/service/start_checks.py)."""
    from ledger import Ledger

    from ..config.private import repair_home
    from ..config.secrets import SecretStore
    from ..config.settings import SettingsStore
    from ..mail.wiring import held_account_secrets, mail_for_home
    from ..providers.lazy import LazyProviders, missing_key_message
    from ..redaction import SecretRegistry

    repair_home(root)  # owner-only, a home made before issue 23 too (kernel.config.private)
    store = SettingsStore(root)
    settings = settings or store.check().settings
    kernel: Kernel | None = None

    def current() -> Settings:
        assert kernel is not None  # providers are built on first use: after the kernel is
        return kernel.settings

    made: Providers = _Given(providers) if providers is not None else LazyProviders(
        store, current, out_of_process=out_of_process)
    ledger = Ledger(store.ledger_path) if clock is None else Ledger(store.ledger_path, clock=clock.now)
    kernel = build_kernel(ledger=ledger, settings=settings, providers=made, clock=clock, attached=attached,
                          snapshot_dir=root / "snapshots", watch_workspaces=watch_workspaces,
                          provider_problem=lambda name: missing_key_message(name, store), tools=tools,
                          restore=restore,  # the agents on the record come back (working ones: interrupted)
                          secrets=SecretRegistry([*store.held_secrets(), *held_account_secrets(store)]),
                          web_keys=store.web_key, mail=mail_for_home(store), check_later=check_later,
                          channel_token=lambda name: SecretStore(store).get(name))  # (the keyring: ~0.2 s to
    # detect, at a channel's start rather than the kernel's)
    return HomeKernel(kernel, ledger, made, store)
