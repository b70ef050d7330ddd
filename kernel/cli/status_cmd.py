"""``agentdesk status``: is this home's kernel healthy? Exit 0 healthy, 1 not.

Healthy: a kernel serves the home and its ledger checked out at start. The
report names the pid, uptime, agents by state, how far the ledger is
verified, whether the shell sandbox can run here, and which providers have a
key (never the key).
"""

from __future__ import annotations

import argparse
import json
import time

from ._service import NO_KERNEL, channel

EXIT_HEALTHY, EXIT_UNHEALTHY = 0, 1


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="the kernel service's health (exit 0 healthy, 1 not)",
                       description="Report whether a kernel serves this home and how it is.")
    p.add_argument("--json", action="store_true", help="one JSON object")


def run(args: argparse.Namespace) -> int:
    from ..sandbox import Sandbox
    from ..service.protocol import ServiceError

    sandbox = Sandbox().check()
    ch = channel("status")
    report: dict[str, object] = {"kernel": "down", "sandbox_usable": sandbox.ok}
    if ch is not None:
        try:
            report.update(ch.call("status"))
            report["kernel"] = "up"
        except ServiceError as exc:
            report["kernel"] = f"not answering ({exc})"
        finally:
            ch.close()
    healthy = report["kernel"] == "up" and bool(report.get("ledger_intact"))
    if args.json:
        print(json.dumps(report))
    else:
        _print(report, sandbox.reason)
    return EXIT_HEALTHY if healthy else EXIT_UNHEALTHY


def _print(r: dict, sandbox_reason: str) -> None:
    from ..words import plural

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
        else:
            print(f"ledger: BROKEN: {r.get('ledger_problem')}")
        keyed = r.get("providers_with_key") or []
        print("providers with a key: " + (", ".join(keyed) or "none"))
    print("sandbox: usable" if r["sandbox_usable"] else f"sandbox: not usable: {sandbox_reason}")
