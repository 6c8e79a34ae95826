#!/usr/bin/env bash
# Installs what the scale-out tests of make test-go need beyond tools/setup.sh (run by tools/system-setup.sh, make setup-system): Debian's haproxy,
# which services/codemode-host's tests run in front of several hosts with
# deploy/haproxy/haproxy.cfg. Idempotent: nothing happens when haproxy is on the PATH. Installing
# needs apt-get and root, or sudo without a password (GitHub's runners); without them it fails
# with what to do, so the phase never passes without the proxy (the test itself also fails when
# CI is set and haproxy is missing).
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"

if command -v haproxy >/dev/null; then
  exit 0
fi
apt_install haproxy-setup haproxy || exit 1
command -v haproxy >/dev/null || {
  echo "haproxy-setup: apt-get installed haproxy, but it is not on the PATH" >&2
  exit 1
}
echo "haproxy-setup: $(haproxy -v | head -n 1) installed"
