"""``python -m kernel.service``: the same as ``agentdesk kernel`` (how clients start one detached)."""

import sys

from ..cli import main

sys.exit(main(["kernel", *sys.argv[1:]]))
