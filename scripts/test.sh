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
# The static checks (about 50 s, mostly mypy on one core) run beside the suite, which spends much of its
# time waiting on the processes it starts; their output is printed after it, and either failing fails.
checks=$(mktemp)
( .venv/bin/lint-imports && .venv/bin/ruff check --quiet desktop kernel ledger tests benchmarks docs \
    && .venv/bin/mypy ) >"$checks" 2>&1 &
checks_pid=$!
workers=${PYTEST_WORKERS:-$(( $(nproc) * 2 ))}
# Each worker imports every test module, and pytest rewrites its asserts first: 27 s of CPU per worker with
# nothing cached, 11 s with the rewritten modules cached in __pycache__ (measured 2026-12-03 on the 2-core
# machine). One collection first fills that cache (while the checks take the other core), so four workers
# do not each rewrite the same 280 modules at once; it also caches the project's own bytecode, which every
# kernel, ask and server process the tests start reads. Both need bytecode writing on.
unset PYTHONDONTWRITEBYTECODE
if [ "$workers" != 0 ]; then
  .venv/bin/python -m pytest --collect-only -q -p no:randomly >/dev/null 2>&1 || true
  phase "collection (fills the rewritten-test cache)"
fi
status=0
# A worker that dies of a fatal error (a segfault, an abort) writes every thread's stack here (tests/conftest.py);
# xdist prints only the end of it, so it is printed again last, where a CI log's tail shows it.
crashes=$(mktemp -d)
AGENTDESK_CRASH_DIR=$crashes .venv/bin/python -m pytest -n "$workers" "$@" || status=$?
phase "pytest"
checks_status=0
wait "$checks_pid" || checks_status=$?
cat "$checks"
rm -f "$checks"
if [ "$checks_status" -ne 0 ]; then
  echo "test.sh: lint-imports, ruff or mypy failed (exit $checks_status)" >&2
  [ "$status" -ne 0 ] || status=$checks_status
fi
for crash in "$crashes"/*; do
  if [ -s "$crash" ]; then
    echo "test.sh: a test process died ($(basename "$crash")); its error and the stack of the thread that died:" >&2
    { head -n 1 "$crash"; awk '/^Current thread/ {on = 1} on && /^$/ {exit} on' "$crash" | head -n 60; } >&2
  fi
done
rm -rf "$crashes"
exit "$status"
