#!/usr/bin/env bash
# Installs the system packages the tests and benchmarks run that no Go or npm pin can provide:
# Debian's haproxy (the scale-out tests of make test-go and the scale benchmark put it in front
# of several hosts) and chromium (make test-browser drives the playground in it). Only this setup
# step installs system packages (make setup-system; make check runs it first): the test targets
# never do, and fail in CI or skip on a developer's machine when a package is missing.
# Idempotent: a package already present is left alone.
set -euo pipefail
cd "$(dirname "$0")"
./haproxy-setup.sh
./browser-setup.sh
