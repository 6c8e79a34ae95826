#!/usr/bin/env bash
# Installs what the browser tests need beyond tools/setup.sh (run by tools/system-setup.sh, make setup-system): Debian's chromium, which
# playwright-core drives (the test never downloads a browser of its own). Idempotent: nothing
# happens when /usr/bin/chromium exists. Installing needs apt-get and root, or sudo without a
# password (GitHub's runners); without them it fails with what to do, so the browser phase never
# passes without a browser.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"

chromium=${CHROMIUM:-/usr/bin/chromium}
if [ -x "$chromium" ]; then
  exit 0
fi
if [ "$chromium" != /usr/bin/chromium ]; then
  echo "browser-setup: CHROMIUM=$chromium does not exist (apt-get would install /usr/bin/chromium)" >&2
  exit 1
fi
apt_install browser-setup chromium || {
  echo "browser-setup: or set CHROMIUM=/path/to/chromium" >&2
  exit 1
}
[ -x "$chromium" ] || {
  echo "browser-setup: apt-get installed chromium, but $chromium does not exist" >&2
  exit 1
}
echo "browser-setup: $("$chromium" --version 2>/dev/null || echo chromium) installed"
