#!/usr/bin/env bash
# Make sure OpenSSH's server binary is on this machine, for the integration tests that reach a Docker
# engine through a real sshd (test/support/opensshRig.ts starts its own sshd on a free port of
# 127.0.0.1 with a config of its own; nothing here starts one).
#
# When /usr/sbin/sshd is missing and we are root, installs Debian's openssh-server without letting
# apt start the system's sshd on port 22 (a policy-rc.d that refuses service starts for the length
# of the install, when none is there already). Idempotent; serialized with flock.
#
# Environment:
#   TASKWRIGHT_DOCKERD_DIR  folder for the lock (default /tmp/taskwright-dockerd, as docker-engine.sh)
set -euo pipefail

sshd=/usr/sbin/sshd
say() { printf 'sshd: %s\n' "$*"; }
fail() { printf 'sshd: error: %s\n' "$*" >&2; exit 1; }

version() { "$sshd" -V 2>&1 | head -n 1 || true; }

if [ -x "$sshd" ]; then say "$sshd is there ($(version))."; exit 0; fi

state_dir="${TASKWRIGHT_DOCKERD_DIR:-/tmp/taskwright-dockerd}"
mkdir -p "$state_dir"
exec 9>"$state_dir/sshd-install.lock"
flock -w 300 9 || fail "timed out waiting for $state_dir/sshd-install.lock"
if [ -x "$sshd" ]; then say "$sshd is there ($(version))."; exit 0; fi

[ "$(id -u)" -eq 0 ] || fail "$sshd is missing and installing it needs root (apt-get install openssh-server)."
command -v apt-get >/dev/null 2>&1 || fail "$sshd is missing and there is no apt-get: install OpenSSH's server yourself."

policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  # Refuse every service start while apt runs (exit 101: "action forbidden by policy"), then go.
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi

say "installing Debian's openssh-server (apt-get; no system sshd is started) ..."
apt-get update -qq >/dev/null
RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server >/dev/null
[ -x "$sshd" ] || fail "apt-get install openssh-server did not provide $sshd."
say "installed $sshd ($(version))."
