"""In CI a missing server or tool fails the test; on a developer's machine it skips it.

``scripts/bootstrap.sh test`` installs everything the suite runs (Dovecot, git,
node and the published MCP servers, bubblewrap), so under ``CI=true`` a test
that cannot find one has found a broken set-up, and saying so beats a quiet
``s`` in the summary. tests/conftest.py turns any other skip into a failure
under CI as well.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    """Whether this run is CI (``CI=true``, as GitHub Actions and .ci/run set it)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(reason: str) -> NoReturn:
    """Stop the test for want of ``reason``: a failure in CI, a skip elsewhere."""
    if in_ci():
        pytest.fail(f"CI must provide this, but: {reason}", pytrace=False)
    pytest.skip(reason)
