#!/usr/bin/env bash
# Runs one of the real-VS Code tiers: `bash test/vscode/run.sh integration|e2e [runner options]`.
#   integration — the mocha suite (test/suite) inside code-server's extension host (run-integration.mjs)
#   e2e         — the packaged VSIX in code-server, driven through chromium (e2e.mjs)
# Installs the rig first when it is missing (setup.sh) and builds the project. Never passes silently:
# without the rig it fails and says how to get it.
set -euo pipefail
RIG=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RIG/../.." && pwd)
MODE=${1:-}
shift || true
case "$MODE" in
  integration) RUNNER=run-integration.mjs ;;
  e2e) RUNNER=e2e.mjs ;;
  *) echo "usage: bash test/vscode/run.sh integration|e2e [options]" >&2; exit 2 ;;
esac

if ! bash "$RIG/setup.sh"; then
  cat >&2 <<MSG
[vscode] the real VS Code rig is not available, so the $MODE tier cannot run.
[vscode] Get it with 'bash test/vscode/setup.sh' on Debian/Ubuntu with Node 20 (>= 20.19), as root
[vscode] (or after 'sudo apt-get install build-essential python3 pkg-config libkrb5-dev ripgrep chromium
[vscode] fonts-liberation'); it needs only the npm registry and the apt repositories.
[vscode] With internet and desktop VS Code, 'npx vscode-test' runs the same suite (.vscode-test.mjs).
0 passed, 1 failed
MSG
  exit 1
fi

if [ "${TASKWRIGHT_SKIP_BUILD:-}" != 1 ]; then
  (cd "$ROOT" && node scripts/build.mjs) || { echo "[vscode] build failed (node scripts/build.mjs)"; echo "0 passed, 1 failed"; exit 1; }
fi
exec node "$RIG/$RUNNER" "$@"
