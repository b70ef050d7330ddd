#!/usr/bin/env bash
# Install Agentdesk with its test extra, check the layer contracts, pyflakes and types, run the whole suite
# on one pytest-xdist worker per core (PYTEST_WORKERS=0 runs it in this one process; extra arguments go to pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh test
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
.venv/bin/lint-imports
.venv/bin/ruff check --quiet desktop kernel ledger tests benchmarks docs
.venv/bin/mypy
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-auto}" "$@"
