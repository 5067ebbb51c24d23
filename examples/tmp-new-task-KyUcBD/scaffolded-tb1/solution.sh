#!/bin/bash
set -euo pipefail

cat > /app/wordcount.py <<'PY'
import sys

print(len(sys.stdin.read().split()))
PY
