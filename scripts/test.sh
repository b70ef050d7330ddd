#!/usr/bin/env bash
# Install Agentdesk with its test extra, check the layer contracts, pyflakes and types, run the whole suite
# on two pytest-xdist workers per core (PYTEST_WORKERS=N to choose, 0 for this one process; extra arguments
# go to pytest). Two per core, not one: much of the suite waits on processes it started (kernels, provider
# hosts, MCP and mail servers); tests/service with tests/providers/test_process_host.py on a shared 2-core
# machine took 228 s on 2 workers and 193 s on 4.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time goes to stderr, so a slow run says where its time went (the ten-minute CI goal).
phase() { echo "test.sh: $1 took $((SECONDS - started)) s" >&2; started=$SECONDS; }
started=$SECONDS
scripts/bootstrap.sh test
phase "set-up (packages, .venv, npm)"
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
.venv/bin/lint-imports
.venv/bin/ruff check --quiet desktop kernel ledger tests benchmarks docs
.venv/bin/mypy
phase "lint-imports, ruff and mypy"
workers=${PYTEST_WORKERS:-$(( $(nproc) * 2 ))}
exec .venv/bin/python -m pytest -n "$workers" "$@"
