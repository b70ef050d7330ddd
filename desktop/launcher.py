"""The ``agentdesk`` console script: no arguments opens the desktop, anything else is the CLI."""

from __future__ import annotations

import os
import sys
from typing import Mapping, Sequence


def display_problem(env: Mapping[str, str], platform: str) -> str | None:
    """Why the desktop cannot open here, before Qt aborts with a page of plugin errors."""
    if not platform.startswith("linux") or env.get("QT_QPA_PLATFORM"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return ("no display to open the desktop on (neither DISPLAY nor WAYLAND_DISPLAY is set). "
            "Run it inside a desktop session, or use 'agentdesk ask PROMPT' without one.")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        problem = display_problem(os.environ, sys.platform)
        if problem:
            print(f"agentdesk: {problem}", file=sys.stderr)
            return 2
        from kernel.api import ConfigError

        from .app import run

        try:
            return run()
        except ConfigError as exc:  # what the desktop cannot start without (a bad settings value is not that)
            print(f"agentdesk: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
    from kernel.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
