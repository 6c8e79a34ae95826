#!/usr/bin/env bash
# Installs what the browser tests need beyond tools/setup.sh: Debian's chromium, which
# playwright-core drives (the test never downloads a browser of its own). Idempotent: nothing
# happens when /usr/bin/chromium exists. Installing needs apt-get and root, or sudo without a
# password (GitHub's runners); without them it fails with what to do, so the browser phase never
# passes without a browser.
set -euo pipefail

chromium=${CHROMIUM:-/usr/bin/chromium}
if [ -x "$chromium" ]; then
  exit 0
fi
die() {
  echo "browser-setup: $*" >&2
  exit 1
}
command -v apt-get >/dev/null ||
  die "$chromium is missing and apt-get is not available: install Chromium and set CHROMIUM=/path/to/chromium"
# Root installs directly; elsewhere (a CI runner, a workstation) sudo is used if it needs no password.
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2>/dev/null ||
    die "$chromium is missing and installing it needs root: run 'sudo apt-get install -y chromium', or set CHROMIUM=/path/to/chromium"
  as_root=(sudo -n)
fi
echo "browser-setup: installing Debian's chromium (apt-get install chromium)"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y --no-install-recommends chromium >/tmp/browser-setup-apt.log 2>&1; then
  # A fresh machine may have no package lists yet.
  "${as_root[@]}" apt-get update -qq >>/tmp/browser-setup-apt.log 2>&1 || true
  "${as_root[@]}" apt-get install -y --no-install-recommends chromium >>/tmp/browser-setup-apt.log 2>&1 ||
    die "apt-get install chromium failed (log: /tmp/browser-setup-apt.log): $(tail -n 3 /tmp/browser-setup-apt.log)"
fi
[ -x "$chromium" ] || die "apt-get installed chromium, but $chromium does not exist"
echo "browser-setup: $("$chromium" --version 2>/dev/null || echo chromium) installed"
