"""The ``agentdesk`` console script: no arguments opens the desktop, anything else is the CLI."""

from __future__ import annotations

import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        from .app import run

        return run()
    from kernel.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
