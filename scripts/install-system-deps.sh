#!/usr/bin/env bash
# Debian packages the tests need: Chromium for the browser tests; nats-server and PostgreSQL for
# the cluster suites (scripts/test-services.mjs starts private ones when none answers). Each is
# skipped when already present.
# --if-possible (npm test's pretest): without root, or when apt cannot install, leave it to the
# test runner, which skips those suites with one line (and fails under CI).
set -euo pipefail
missing=()
[ -x "${SWITCHBOARD_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium fonts-dejavu-core)
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
soft=false
[ "${1:-}" = "--if-possible" ] && soft=true
if [ "$(id -u)" != "0" ]; then
  $soft && exit 0
  echo "install-system-deps: need root to apt-get install ${missing[*]} (or install them yourself)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
  echo "install-system-deps: apt-get could not install ${missing[*]}" >&2
  $soft && exit 0
  exit 1
fi
