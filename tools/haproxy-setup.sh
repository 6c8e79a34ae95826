#!/usr/bin/env bash
# Installs what the scale-out tests of make test-go need beyond tools/setup.sh: Debian's haproxy,
# which services/codemode-host's tests run in front of several hosts with
# deploy/haproxy/haproxy.cfg. Idempotent: nothing happens when haproxy is on the PATH. Installing
# needs apt-get and root, or sudo without a password (GitHub's runners); without them it fails
# with what to do, so the phase never passes without the proxy (the test itself also fails when
# CI is set and haproxy is missing).
set -euo pipefail

if command -v haproxy >/dev/null; then
  exit 0
fi
die() {
  echo "haproxy-setup: $*" >&2
  exit 1
}
command -v apt-get >/dev/null ||
  die "haproxy is missing and apt-get is not available: install HAProxy (2.4 or newer) and put it on the PATH"
# Root installs directly; elsewhere (a CI runner, a workstation) sudo is used if it needs no password.
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2>/dev/null ||
    die "haproxy is missing and installing it needs root: run 'sudo apt-get install -y haproxy'"
  as_root=(sudo -n)
fi
echo "haproxy-setup: installing Debian's haproxy (apt-get install haproxy)"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y --no-install-recommends haproxy >/tmp/haproxy-setup-apt.log 2>&1; then
  # A fresh machine may have no package lists yet.
  "${as_root[@]}" apt-get update -qq >>/tmp/haproxy-setup-apt.log 2>&1 || true
  "${as_root[@]}" apt-get install -y --no-install-recommends haproxy >>/tmp/haproxy-setup-apt.log 2>&1 ||
    die "apt-get install haproxy failed (log: /tmp/haproxy-setup-apt.log): $(tail -n 3 /tmp/haproxy-setup-apt.log)"
fi
command -v haproxy >/dev/null || die "apt-get installed haproxy, but it is not on the PATH"
echo "haproxy-setup: $(haproxy -v | head -n 1) installed"
