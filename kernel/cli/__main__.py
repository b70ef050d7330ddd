"""``python -m kernel.cli ...``: the ``agentdesk`` command (how clients start a detached kernel:
``python -m kernel.cli kernel``, the same as ``agentdesk kernel``)."""

import sys

from . import main

sys.exit(main(sys.argv[1:]))
