#!/usr/bin/env bash
# Debian packages the tests need: Chromium for the browser tests. Skipped when already present.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "install-system-deps: need root to apt-get install chromium (or install it yourself)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
