"""The configured provider's SDK, imported the moment the kernel's socket listens (issue 28).

``import anthropic`` costs 2-3 s on this 2-core machine (2.7 s of CPU,
3.3 s of wall time measured by ``benchmarks/start_bench.py``, 2026-12-03),
far longer than the kernel takes to serve: a first ``ask`` sent at the
kernel's readiness line used to wait for it, because the warm-up began only
after serving. Now ``agentdesk kernel`` starts this import in a thread right
after its socket listens (``daemon.serve``; started at the process's start
instead, it took turns at the GIL with the imports before listening and
doubled the time to accept), beside the kernel's build, and the warm-up
that follows (``daemon._warm_provider``) finds the modules loaded and only
builds the client. That import is the floor under the first ``ask`` after a
cold start: no reordering inside one interpreter brings it under the SDK's
import time.

A thread rather than a pre-started helper process: the request needs the SDK
in the kernel's own process (that is where it streams: see
``benchmarks/service_bench.py`` for the host process's cost), so a helper
process would only move the import, not spare it — its interpreter start and
the pipe are extra, and on a saturated machine it has no idle core to win
on. Measured here (the steps of ``benchmarks/start_bench.py --only
preimport``: build the kernel of a 100 × 200 home while importing anthropic;
medians of 3 at load 20-38, 2026-12-03), kernel built / SDK ready: SDK after
the build 3.8 s / 13.7 s, thread 4.2 s / 12.3 s, helper process 4.5 s /
13.4 s: the thread had the SDK ready soonest; it slows the build by taking
turns at the GIL (here by less than the noise). The thread is a daemon: a kernel stopping
meanwhile does not wait for it.

Which provider: the settings' default (``settings.json``'s ``provider``,
read raw here so this module imports nothing of the kernel's settings), the
one an Ask uses unless told otherwise; the SDKs of other providers are
imported when first used, as before. Nothing here can fail the kernel: a
provider that cannot be imported is met again, and reported, by its first
request.
"""

from __future__ import annotations

import importlib
import json
import threading
from pathlib import Path

from .catalog import CATALOG

DEFAULT_PROVIDER = "anthropic"  # Settings.provider's default (kernel/config/settings.py)


def configured_provider(home: Path) -> str:
    """The default provider named in ``home``'s settings.json, or the built-in default (unreadable, unknown)."""
    try:
        named = json.loads((home / "settings.json").read_text(encoding="utf-8")).get("provider")
    except (OSError, ValueError, AttributeError):
        return DEFAULT_PROVIDER
    return named if isinstance(named, str) and named in CATALOG else DEFAULT_PROVIDER


def sdk_modules(provider: str) -> tuple[str, ...]:
    """The provider's adapter module and the SDK modules it declares (``sdk_modules``)."""
    module, _, cls = CATALOG[provider].adapter.partition(":")
    adapter = importlib.import_module(f"{__package__}.{module}")
    return tuple(getattr(getattr(adapter, cls), "sdk_modules", ()))


def import_sdk(provider: str) -> None:
    """Import ``provider``'s adapter and SDK; a failure is left for its first request to meet and report."""
    try:
        for name in sdk_modules(provider):
            importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any failure here is met again, and reported, by the first request
        return


def start(home: Path) -> threading.Thread:
    """Begin importing the configured provider's SDK in a daemon thread; returns the thread."""
    thread = threading.Thread(target=lambda: import_sdk(configured_provider(home)), name="sdk-preimport",
                              daemon=True)
    thread.start()
    return thread
