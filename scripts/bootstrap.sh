#!/usr/bin/env bash
# Shared set-up for scripts/desktop.sh and scripts/test.sh: Debian packages,
# a virtual environment in .venv, and the project installed into it.
# Usage: scripts/bootstrap.sh [desktop|test]
set -euo pipefail
cd "$(dirname "$0")/.."
purpose=${1:-test}

# Debian packages. bubblewrap sandboxes shell commands; the xcb libraries are
# what Qt's xcb platform plugin needs on a real display (offscreen needs none).
packages=(bubblewrap fonts-dejavu-core)
if [ "$purpose" = desktop ]; then
  packages+=(libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
             libxcb-xkb1 libxkbcommon-x11-0 libxcb-shape0 libxcb-randr0 libegl1 libgl1 libfontconfig1 libdbus-1-3)
else
  # dovecot-imapd: the loopback IMAP server of the mail tests (run unprivileged, never the system service)
  packages+=(libegl1 libgl1 libfontconfig1 libxkbcommon0 libglib2.0-0 libdbus-1-3 dovecot-imapd)
  # The keyboard tests under a real X server and window manager (tests/desktop/x11.py): Xvfb, openbox,
  # xdotool, and the xcb libraries Qt's xcb platform plugin needs (as for the desktop above).
  packages+=(xvfb openbox xdotool libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
             libxcb-xkb1 libxkbcommon-x11-0 libxcb-shape0 libxcb-randr0)
  # chromium: the WebChat page is tested in a real headless browser, driven by Playwright (issue 27)
  packages+=(chromium)
fi
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
target=.
[ "$purpose" = test ] && target='.[test]'
# uv resolves and installs the same packages as pip in a tenth of the CPU (a fresh .venv with the test
# extra, measured 2026-12-03 on a loaded 2-core machine: pip 76 s of CPU, uv 7 s; the same 130 packages).
# pip stays the fallback where uv cannot be had.
if [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q uv >/dev/null 2>&1; then
  VIRTUAL_ENV="$PWD/.venv" .venv/bin/uv pip install -q -e "$target"
else
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e "$target"
fi

# Published MCP servers on npm that the extension tests run (pinned by the lock file; test only).
if [ "$purpose" = test ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "installing Debian packages: nodejs npm"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  (cd tests/extensions/npm && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
fi

# The MCP conformance suite and the Node 22 it needs (tests/conformance; test only, pinned by the lock file).
if [ "$purpose" = test ]; then
  (cd tests/conformance/npm && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
fi
