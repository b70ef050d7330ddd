"""``agentdesk status``: is this home's kernel healthy? Exit 0 healthy, 1 not.

Healthy: a kernel serves the home and its ledger, and the automation
records' own chain, checked out at start — or are still being checked (the
kernel serves first and checks after: "ledger: checking the ledger…", exit 0,
``"ledger_checking": true`` in ``--json``; nothing found wrong so far). The
report names the pid, uptime, agents by state, how far the ledger is
verified, whether the shell sandbox can run here, how shell commands are
captured (on an overlay, or by snapshots and why: the kernel's own answer when
one runs), its MCP servers (state, protocol, tools: ``"mcp"`` in ``--json``), and which providers have a key
(never the key).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ._service import NO_KERNEL, channel

if TYPE_CHECKING:
    from ..sandbox.overlay import OverlayStatus
    from ..service.client import SyncChannel

EXIT_HEALTHY, EXIT_UNHEALTHY = 0, 1


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="the kernel service's health (exit 0 healthy, 1 not)",
                       description="Report whether a kernel serves this home and how it is.")
    p.add_argument("--json", action="store_true", help="one JSON object")


def run(args: argparse.Namespace) -> int:
    from ..sandbox.bwrap import Sandbox
    from ..service.protocol import ServiceError

    sandbox = Sandbox().check()
    ch = channel("status")
    report: dict[str, object] = {"kernel": "down", "sandbox_usable": sandbox.ok}
    mode = None
    if ch is not None:
        try:
            report.update(ch.call("status"))
            report.pop("provider_env", None)  # keyed hashes for ask's check (service/provider_env.py), not a figure
            report["kernel"] = "up"
            mode = _kernel_mode(ch)
            report["mcp"] = _mcp_servers(ch)
        except ServiceError as exc:
            report["kernel"] = f"not answering ({exc})"
        finally:
            ch.close()
    if mode is None:  # no kernel to ask: this machine's own probe, for the workspace in Settings
        mode = _local_mode()
    report["sandbox_mode"] = mode.mode if mode is not None else None
    report["overlay"] = bool(mode is not None and mode.overlay)
    healthy = report["kernel"] == "up" and bool(report.get("ledger_intact") or report.get("ledger_checking")) \
        and report.get("automations_intact") is not False  # while checking: nothing found wrong so far
    if args.json:
        print(json.dumps(report))
    else:
        _print(report, sandbox.reason)
    return EXIT_HEALTHY if healthy else EXIT_UNHEALTHY


def _print(r: dict, sandbox_reason: str) -> None:
    from ..core.checking import CHECKING_WORDS
    from ..core.words import plural

    if r["kernel"] != "up":
        print(f"kernel: {NO_KERNEL}" if r["kernel"] == "down" else f"kernel: {r['kernel']}")
    else:
        up = int(time.time() - float(r.get("started_at", time.time())))
        print(f"kernel: up, pid {r.get('pid')}, uptime {up // 3600}h {up % 3600 // 60}m {up % 60}s, "
              f"{plural(int(r.get('clients', 0)), 'client')} connected"
              + (", a client answers lease requests" if r.get("attached") else ""))
        agents = r.get("agents") or {}
        print("agents: " + (", ".join(f"{n} {s}" for s, n in sorted(agents.items())) or "none"))
        if r.get("ledger_intact"):
            print(f"ledger: verified through #{r.get('ledger_verified_through')}")
        elif r.get("ledger_checking") and not r.get("ledger_problem"):
            print(f"ledger: {CHECKING_WORDS} (the kernel serves meanwhile; undo and automations wait for it)")
        else:
            print(f"ledger: BROKEN: {r.get('ledger_problem')}")
        if r.get("automations_intact") is False:
            print(f"automation records: BROKEN at {r.get('automations_problem')}")
        elif r.get("automations_intact") is None and r.get("ledger_intact"):
            print(f"automation records: {CHECKING_WORDS.replace('the ledger', 'them')}")
        elif r.get("automations_rows"):
            print(f"automation records: verified ({plural(int(r.get('automations_rows') or 0), 'row')})")
        servers = r.get("mcp") or []
        print("MCP servers: " + ("; ".join(_mcp_words(m) for m in servers) or "none"))
        keyed = r.get("providers_with_key") or []
        print("providers with a key: " + (", ".join(keyed) or "none"))
    if not r["sandbox_usable"]:
        print(f"sandbox: not usable: {sandbox_reason}")
    elif r.get("sandbox_mode"):
        print(f"sandbox: {r['sandbox_mode']}")
    else:
        print("sandbox: usable")


def _mcp_servers(ch: "SyncChannel") -> list[dict[str, object]]:
    """Each MCP server as the kernel runs it: name, state, protocol, how many tools, why it failed."""
    from ..extensions.mcp_status import McpServerStatus

    try:
        statuses = ch.call("extensions.mcp_status")
    except Exception:  # noqa: BLE001 - a detail of the report, never a reason to fail it
        return []
    return [{"name": s.name, "state": s.state, "protocol": s.protocol, "tools": len(s.tools), "error": s.error}
            for s in statuses if isinstance(s, McpServerStatus)]


def _mcp_words(server: dict) -> str:
    from ..core.words import plural

    detail = [str(server["protocol"])] if server.get("protocol") else []
    if server.get("state") == "connected":
        detail.append(plural(int(server.get("tools") or 0), "tool"))
    words = f"{server['name']} {server['state']}" + (f" ({', '.join(detail)})" if detail else "")
    return words + (f": {server['error']}" if server.get("error") else "")


def _kernel_mode(ch: "SyncChannel") -> "OverlayStatus | None":
    """The kernel's own answer (an older kernel without it: None, and this machine's probe stands in)."""
    from ..sandbox.overlay import OverlayStatus

    try:
        mode = ch.call("sandbox_mode", {})
    except Exception:  # noqa: BLE001 - the mode is a detail of the report, never a reason to fail it
        return None
    return mode if isinstance(mode, OverlayStatus) else None


def _local_mode() -> "OverlayStatus | None":
    from ..sandbox.overlay import overlay_status
    from ..config.settings import SettingsStore, home

    try:
        workspace = SettingsStore(home()).check().settings.workspace
    except Exception:  # noqa: BLE001 - unreadable settings: say nothing about the mode rather than fail status
        return None
    return overlay_status(Path(workspace).expanduser())
