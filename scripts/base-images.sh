#!/usr/bin/env bash
# Build, without any container registry, the local base images that Taskwright's examples and tests use.
#
#   debian:bookworm-slim        Debian 12 minbase + python3 (3.11), pytest, pip, venv, bash, coreutils,
#                               procps, tmux, ca-certificates (built with mmdebstrap from Debian's apt mirror).
#                               NOTE: the real debian:bookworm-slim has no python3 and no pytest.
#   python:3.11-slim            that image laid out like the real python:3.11-slim: python, python3, pip and
#   python:3.11-slim-bookworm   pip3 in /usr/local/bin, no Debian EXTERNALLY-MANAGED marker (so `pip install`
#                               works as on the real image), PYTHON_VERSION set. pytest 7.2.1 is already
#                               installed, so a pinned `RUN pip install pytest==7.2.1` (what a task needs on the
#                               real image, which has no pytest) is satisfied offline. No python:3.12-* tag is
#                               made: the interpreter would not be 3.12.
#   busybox:latest, busybox:1.35, busybox:1.36
#                               Debian's busybox-static (1.35.0) with its applet links
#
# THESE TAGS ARE LOCAL STAND-INS, NOT THE REAL IMAGES from Docker Hub: they exist so task Dockerfiles that
# say `FROM debian:bookworm-slim` build offline. Every image carries the label taskwright=base.
#
# Idempotent: an image whose tag already exists is skipped. The expensive Debian build is cached as a
# `docker save | gzip -1` tarball, so a second run on a fresh daemon only runs `docker load`.
#
# Environment:
#   TASKWRIGHT_CACHE          cache root (default ~/.cache/taskwright); tarballs go in $TASKWRIGHT_CACHE/images
#   TASKWRIGHT_DEBIAN_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#   TASKWRIGHT_REBUILD=1      rebuild even if the tags exist and the cache is warm
set -euo pipefail

cache_dir="${TASKWRIGHT_CACHE:-$HOME/.cache/taskwright}/images"
mirror="${TASKWRIGHT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security_mirror="${TASKWRIGHT_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
rebuild="${TASKWRIGHT_REBUILD:-0}"

debian_packages="python3,python3-pytest,python3-pip,python3-venv,python-is-python3,bash,coreutils,procps,tmux,ca-certificates"
debian_tags=(debian:bookworm-slim python:3.11-slim python:3.11-slim-bookworm)
# Debian 12's busybox-static is 1.35.0: busybox:1.35 is its own version; busybox:1.36 is kept because
# test fixtures may name it, and the two differ in nothing those fixtures use.
busybox_tags=(busybox:latest busybox:1.35 busybox:1.36)
# Bump when the recipe changes so an old cached tarball is not reused.
recipe_version=1
python_tags=(python:3.11-slim python:3.11-slim-bookworm)
# The label that marks the python:* layout; a python tag without it (an older recipe) is rebuilt.
python_layout='python:3.11-slim-layout-1'
# What `pip install pytest==…` finds already installed (Debian 12's python3-pytest).
python_pytest='7.2.1'

say() { printf 'base-images: %s\n' "$*"; }
fail() { printf 'base-images: error: %s\n' "$*" >&2; exit 1; }

docker version >/dev/null 2>&1 || fail "no Docker daemon answers; run scripts/docker-engine.sh first."

# Serialize concurrent callers (CI and a test tier may both ask for the images).
mkdir -p "$cache_dir"
exec 8>"$cache_dir/.lock"
flock -w 900 8 || fail "timed out waiting for $cache_dir/.lock (another base-images.sh is stuck?)"

has_image() { docker image inspect "$1" >/dev/null 2>&1; }
all_present() { local t; for t in "$@"; do has_image "$t" || return 1; done; }

# Tags other than the first point at the first one's image.
tag_rest() {
  local first="$1"; shift
  local t
  for t in "$@"; do docker tag "$first" "$t"; done
}

apt_updated=0
ensure_apt_tools() {
  local missing=() pkg
  command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
    || fail "building these images needs Debian's $* (a Debian or Ubuntu host with apt-get)."
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || fail "needs ${missing[*]} (apt-get install) and that needs root."
  say "installing ${missing[*]} (apt-get) ..."
  if [ "$apt_updated" != 1 ]; then
    apt-get update -qq >/dev/null
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/taskwright-base-images.XXXXXX")"
trap 'rm -rf "$work_dir"' EXIT

build_busybox() {
  if [ "$rebuild" != 1 ] && all_present "${busybox_tags[@]}"; then
    say "busybox: ${busybox_tags[*]} exist, skipped."
    return 0
  fi
  ensure_apt_tools busybox-static
  local root="$work_dir/busybox" applet
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/root"
  chmod 1777 "$root/tmp"
  cp /bin/busybox "$root/bin/busybox"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  while read -r applet; do
    [ -n "$applet" ] || continue
    mkdir -p "$root/$(dirname "$applet")"
    [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
  done < <("$root/bin/busybox" --list-full)
  tar -C "$root" -c . | docker import \
    --change 'CMD ["/bin/sh"]' \
    --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'LABEL taskwright=base' \
    --change 'LABEL taskwright.stand-in=busybox' \
    - "${busybox_tags[0]}" >/dev/null
  tag_rest "${busybox_tags[@]}"
  say "busybox: built ${busybox_tags[*]} from Debian's busybox-static."
}

build_debian() {
  if [ "$rebuild" != 1 ] && all_present "${debian_tags[@]}"; then
    say "debian: ${debian_tags[*]} exist, skipped."
    # A tag pulled from Docker Hub is not the stand-in: the real debian:bookworm-slim has no python3
    # or pytest, so the bundled examples' verifiers cannot run on it. Say so; never overwrite it unasked.
    local t
    for t in "${debian_tags[@]}"; do
      if [ "$(docker image inspect --format '{{ index .Config.Labels "taskwright" }}' "$t" 2>/dev/null)" != base ]; then
        say "debian: WARNING: $t is not Taskwright's stand-in (no label taskwright=base), e.g. the Docker Hub image."
        say "         The bundled examples need python3 and pytest in it; TASKWRIGHT_REBUILD=1 $0 replaces the tag"
        say "         with the stand-in (\`docker pull $t\` brings the real one back)."
      fi
    done
    return 0
  fi
  local key tarball
  key="$(printf '%s|%s|%s' "$recipe_version" "$debian_packages" "$(uname -m)" | sha256sum | cut -c1-12)"
  tarball="$cache_dir/debian-bookworm-slim-$key.tar.gz"

  if [ "$rebuild" != 1 ] && [ -s "$tarball" ]; then
    say "debian: loading cached $tarball ..."
    if gzip -dc "$tarball" | docker load >/dev/null; then
      tag_rest "${debian_tags[@]}"
      say "debian: loaded ${debian_tags[*]} from the cache."
      return 0
    fi
    say "debian: the cached tarball did not load; rebuilding it."
    rm -f "$tarball"
  fi

  ensure_apt_tools mmdebstrap
  local hook=/usr/share/mmdebstrap/hooks/merged-usr
  [ -d "$hook" ] || fail "mmdebstrap's merged-usr hook is missing at $hook."
  local root="$work_dir/debian"
  say "debian: mmdebstrap bookworm (minbase + $debian_packages) ..."
  mmdebstrap --quiet --variant=minbase --mode=root \
    --include="$debian_packages" \
    --hook-dir="$hook" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb' \
    --customize-hook='rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/info/* "$1"/var/log/apt/* "$1"/var/log/dpkg.log' \
    bookworm "$root" \
    "deb $mirror bookworm main" \
    "deb $mirror bookworm-updates main" \
    "deb $security_mirror bookworm-security main" \
    </dev/null >"$work_dir/mmdebstrap.log" 2>&1 \
    || fail "mmdebstrap failed (is Debian's apt mirror $mirror reachable?). Last lines of its output:
$(tail -n 25 "$work_dir/mmdebstrap.log")"
  # __pycache__ is kept on purpose: without it `import pytest` is several times slower in every trial.

  say "debian: docker import ..."
  tar -C "$root" -c . | docker import \
    --change 'CMD ["/bin/bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'LABEL taskwright=base' \
    --change 'LABEL taskwright.stand-in=debian:bookworm-slim+python3+pytest' \
    - "${debian_tags[0]}" >/dev/null
  tag_rest "${debian_tags[@]}"
  rm -rf "$root"

  mkdir -p "$cache_dir"
  say "debian: caching to $tarball ..."
  docker save "${debian_tags[@]}" | gzip -1 >"$tarball.partial"
  mv "$tarball.partial" "$tarball"
  say "debian: built ${debian_tags[*]}."
}

# The python:* tags: the Debian image re-laid out like the official python image, by a container
# commit (no builder, no registry). Images other runs use are never removed: the tags move.
build_python() {
  local t ok=1
  for t in "${python_tags[@]}"; do
    [ "$(docker image inspect --format '{{ index .Config.Labels "taskwright.stand-in" }}' "$t" 2>/dev/null)" = "$python_layout" ] || ok=0
  done
  if [ "$rebuild" != 1 ] && [ "$ok" = 1 ]; then
    say "python: ${python_tags[*]} exist, skipped."
    return 0
  fi
  local cid
  cid="$(docker create --network none --label taskwright=base debian:bookworm-slim bash -euc '
    rm -f /usr/lib/python3*/EXTERNALLY-MANAGED
    for b in python python3; do ln -sf /usr/bin/python3 /usr/local/bin/$b; done
    for b in pip pip3; do ln -sf /usr/bin/pip3 /usr/local/bin/$b; done
    printf "[global]\nno-cache-dir = true\ndisable-pip-version-check = true\n" >/etc/pip.conf
    # What a task Dockerfile runs on the real image must succeed here, offline.
    pip install --no-index pytest=='"$python_pytest"' >/dev/null
    test "$(python -c "import pytest; print(pytest.__version__)")" = '"$python_pytest"'
  ')"
  if ! docker start -a "$cid" >"$work_dir/python.log" 2>&1; then
    docker rm -f "$cid" >/dev/null 2>&1 || true
    fail "python: laying out the python image failed: $(tail -n 20 "$work_dir/python.log")"
  fi
  docker commit \
    --change 'CMD ["python3"]' \
    --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PYTHON_VERSION=3.11.2' \
    --change 'LABEL taskwright=base' \
    --change "LABEL taskwright.stand-in=$python_layout" \
    "$cid" "${python_tags[0]}" >/dev/null
  docker rm "$cid" >/dev/null
  tag_rest "${python_tags[@]}"
  say "python: built ${python_tags[*]} (python:3.11-slim layout, pytest $python_pytest satisfied offline)."
}

build_busybox
build_debian
build_python

say "NOTE: these tags are LOCAL STAND-INS built from Debian packages, not the real Docker Hub images"
say "      (Debian 12 minbase with python3 3.11 and pytest 7.2; BusyBox 1.35.0 from busybox-static):"
for t in debian:bookworm-slim "${python_tags[@]}" "${busybox_tags[@]}"; do
  say "  $t  ($(docker image inspect --format '{{.Id}}' "$t" | cut -c8-19), $(( $(docker image inspect --format '{{.Size}}' "$t") / 1000000 )) MB)"
done
