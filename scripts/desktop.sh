#!/usr/bin/env bash
# Install Agentdesk (and the libraries Qt needs on a real display), then open the desktop.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh desktop
exec .venv/bin/agentdesk "$@"
