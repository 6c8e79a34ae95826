#!/usr/bin/env bash
# apt_install installs one Debian package with apt-get, for the setup scripts of test phases
# that need a program the project cannot pin as a Go or npm dependency (tools/browser-setup.sh:
# chromium; tools/haproxy-setup.sh: haproxy). Sourced, not run:
#
#   . "$(dirname "$0")/apt-install.sh"
#   apt_install SCRIPT PACKAGE
#
# Root installs directly; elsewhere (a CI runner, a workstation) sudo is used if it needs no
# password; without either it fails with the command to run. A fresh machine may have no package
# lists yet, so a failed install is retried after apt-get update. The log goes to
# /tmp/SCRIPT-apt.log; on failure its last lines are printed.
apt_install() {
  local script=$1 package=$2 log=/tmp/$1-apt.log
  local as_root=()
  command -v apt-get >/dev/null || {
    echo "$script: $package is missing and apt-get is not available: install it yourself" >&2
    return 1
  }
  if [ "$(id -u)" -ne 0 ]; then
    sudo -n true 2>/dev/null || {
      echo "$script: $package is missing and installing it needs root: run 'sudo apt-get install -y $package'" >&2
      return 1
    }
    as_root=(sudo -n)
  fi
  echo "$script: installing Debian's $package (apt-get install $package)"
  export DEBIAN_FRONTEND=noninteractive
  if "${as_root[@]}" apt-get install -y --no-install-recommends "$package" >"$log" 2>&1; then
    return 0
  fi
  "${as_root[@]}" apt-get update -qq >>"$log" 2>&1 || true
  "${as_root[@]}" apt-get install -y --no-install-recommends "$package" >>"$log" 2>&1 || {
    echo "$script: apt-get install $package failed (log: $log): $(tail -n 3 "$log")" >&2
    return 1
  }
}
