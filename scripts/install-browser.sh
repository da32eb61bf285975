#!/usr/bin/env bash
# Install what the web app's end-to-end tests drive: Debian's Chromium (/usr/bin/chromium) and
# the Playwright Python package. Idempotent: apt runs only when the browser is missing. We never
# run `playwright install` (it downloads a browser build of its own); the tests launch
# /usr/bin/chromium through executable_path instead.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
fi
python3 -m pip install --quiet --disable-pip-version-check "playwright>=1.40"
