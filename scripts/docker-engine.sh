#!/usr/bin/env bash
# Make sure a Docker Engine answers on this machine.
#
# If a daemon already answers (a laptop with Docker Desktop, a CI runner), only check and say so.
# Otherwise install Debian's docker.io when dockerd is missing and start dockerd detached, with no
# bridge network and no iptables (trials run with network mode `none`), and with registry traffic
# pointed at a closed local port so an accidental pull fails at once instead of hanging.
#
# Idempotent and safe to run concurrently: callers are serialized with flock.
#
# `--second` starts (or reuses) a second daemon on its own socket, data root, exec root and pid file,
# standing in for a second host (integration tests of engine pools and engine faults). It prints
# `DOCKER_HOST=unix://...` as its last line; point DOCKER_HOST there to use it.
#
# `--second --copy-images` also copies the offline base images (the tags scripts/base-images.sh makes,
# or those in TASKWRIGHT_COPY_IMAGES) that the first daemon has and the second lacks, with
# `docker save | docker -H <second> load` (a few seconds; no rebuild, the same image ids).
#
# Environment:
#   TASKWRIGHT_DOCKERD2_DIR  state folder of the second daemon (default /tmp/taskwright-dockerd2):
#                            socket docker.sock, data root data/, exec root exec/, pid file dockerd.pid
#   TASKWRIGHT_DOCKERD_DIR   folder for the daemon's log and lock (default /tmp/taskwright-dockerd)
#   TASKWRIGHT_DOCKERD_WAIT  seconds to wait for the daemon to answer (default 30)
set -euo pipefail

second=0
copy_images=0
first_host="${DOCKER_HOST:-}"
if [ "${1:-}" = "--second" ]; then second=1; shift; fi
if [ "$second" = 1 ] && [ "${1:-}" = "--copy-images" ]; then copy_images=1; shift; fi
extra_args=()
if [ "$second" = 1 ]; then
  state_dir="${TASKWRIGHT_DOCKERD2_DIR:-/tmp/taskwright-dockerd2}"
  mkdir -p "$state_dir/data" "$state_dir/exec"
  export DOCKER_HOST="unix://$state_dir/docker.sock"
  extra_args=(--host "$DOCKER_HOST" --data-root "$state_dir/data" --exec-root "$state_dir/exec"
    --pidfile "$state_dir/dockerd.pid")
else
  state_dir="${TASKWRIGHT_DOCKERD_DIR:-/tmp/taskwright-dockerd}"
fi
wait_sec="${TASKWRIGHT_DOCKERD_WAIT:-30}"
log_file="$state_dir/dockerd.log"
lock_file="$state_dir/lock"

say() { printf 'docker-engine: %s\n' "$*"; }
fail() { printf 'docker-engine: error: %s\n' "$*" >&2; exit 1; }

answers() { docker version >/dev/null 2>&1; }

# The base images from the first daemon into the second, those it lacks (never a registry).
copy_base_images() {
  [ "$copy_images" = 1 ] || return 0
  local wanted="${TASKWRIGHT_COPY_IMAGES:-debian:bookworm-slim python:3.11-slim python:3.11-slim-bookworm busybox:latest busybox:1.35 busybox:1.36}"
  local missing=() img
  for img in $wanted; do
    docker image inspect "$img" >/dev/null 2>&1 && continue
    DOCKER_HOST="$first_host" docker image inspect "$img" >/dev/null 2>&1 || continue
    missing+=("$img")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  say "copying ${missing[*]} from the first daemon (docker save | docker load)"
  DOCKER_HOST="$first_host" docker save "${missing[@]}" | docker load -q >/dev/null
}

describe() {
  local server
  server="$(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?')"
  say "Docker Engine $server answers ($(docker context show 2>/dev/null || echo default) context)."
}

if command -v docker >/dev/null 2>&1 && answers; then
  describe
  say "A daemon was already running: nothing started."
  copy_base_images
  [ "$second" = 1 ] && echo "DOCKER_HOST=$DOCKER_HOST"
  exit 0
fi

mkdir -p "$state_dir"
exec 9>"$lock_file"
flock -w 300 9 || fail "timed out waiting for $lock_file (another docker-engine.sh is stuck?)"

# Another caller may have started it while we waited for the lock.
if command -v docker >/dev/null 2>&1 && answers; then
  describe
  say "A daemon was already running: nothing started."
  copy_base_images
  [ "$second" = 1 ] && echo "DOCKER_HOST=$DOCKER_HOST"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] || fail "dockerd is missing and installing it needs root (apt-get install docker.io)."
  command -v apt-get >/dev/null 2>&1 || fail "dockerd is missing and there is no apt-get: install Docker Engine yourself."
  say "installing Debian's docker.io (apt-get) ..."
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >/dev/null
  command -v dockerd >/dev/null 2>&1 || fail "apt-get install docker.io did not provide dockerd."
fi
command -v docker >/dev/null 2>&1 || fail "no docker CLI found after installing docker.io."

[ "$(id -u)" -eq 0 ] || fail "no daemon answers and starting dockerd needs root."

# A dockerd that died uncleanly leaves its pid file behind, and a new one refuses to start.
pid_file=/var/run/docker.pid
[ "$second" = 1 ] && pid_file="$state_dir/dockerd.pid"
if [ -s "$pid_file" ] && ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then
  say "removing stale $pid_file (pid $(cat "$pid_file") is not running)"
  rm -f "$pid_file"
fi

say "starting dockerd (no bridge, no iptables, registry pulls blocked); log: $log_file"
# The lock's descriptor (9) is closed for the daemon, or it would hold the lock for its lifetime.
HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 \
  http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
  NO_PROXY=localhost,127.0.0.1,::1 no_proxy=localhost,127.0.0.1,::1 \
  setsid dockerd --bridge=none --iptables=false --ip6tables=false --ip-masq=false "${extra_args[@]}" \
  </dev/null >>"$log_file" 2>&1 9>&- &
daemon_pid=$!

deadline=$((SECONDS + wait_sec))
until answers; do
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    fail "dockerd (pid $daemon_pid) exited before answering. Last lines of $log_file:
$(tail -n 20 "$log_file" 2>/dev/null)"
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    # A daemon that never answered would hold the socket and confuse the next attempt.
    kill "$daemon_pid" 2>/dev/null || true
    fail "dockerd (pid $daemon_pid) did not answer within ${wait_sec}s. Last lines of $log_file:
$(tail -n 20 "$log_file" 2>/dev/null)"
  fi
  sleep 0.2
done
describe
say "started dockerd (pid $daemon_pid)."
copy_base_images
[ "$second" = 1 ] && echo "DOCKER_HOST=$DOCKER_HOST"
exit 0
