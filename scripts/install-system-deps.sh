#!/usr/bin/env bash
# Debian packages the tests need: Chromium for the browser tests. Skipped when already present.
# --if-possible (npm test's pretest): without root, or when apt cannot install, leave it to the
# test runner, which skips the browser tests with one line (and fails under CI).
set -euo pipefail
if [ -x "${SWITCHBOARD_CHROMIUM:-/usr/bin/chromium}" ]; then exit 0; fi
soft=false
[ "${1:-}" = "--if-possible" ] && soft=true
if [ "$(id -u)" != "0" ]; then
  $soft && exit 0
  echo "install-system-deps: need root to apt-get install chromium (or install it yourself)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }; then
  echo "install-system-deps: apt-get could not install chromium" >&2
  $soft && exit 0
  exit 1
fi
