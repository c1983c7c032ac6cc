#!/usr/bin/env bash
# Headless Chromium (+ a small CJK font so Chinese renders in screenshots) for the browser
# tests (tests/console/test_browser.py) and scripts/screenshots.py. Idempotent: installs only
# what is missing. Playwright drives Debian's chromium; it never downloads a browser itself.
set -euo pipefail

CHROMIUM="${ENGRAM_CHROMIUM:-/usr/bin/chromium}"
missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
dpkg -s fonts-wqy-microhei >/dev/null 2>&1 || missing+=(fonts-wqy-microhei)
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install_browser: $CHROMIUM and CJK font present"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install_browser: no apt-get; install ${missing[*]} yourself (browser tests skip)" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
echo "install_browser: installed ${missing[*]} ($("$CHROMIUM" --version 2>/dev/null || true))"
