#!/bin/bash
set -euo pipefail

cat > /app/wordfreq.py <<'PY'
import re
import sys
from collections import Counter


def main(argv):
    path = argv[1]
    limit = int(argv[2]) if len(argv) > 2 else 10
    with open(path, encoding="utf-8", errors="replace") as fh:
        words = re.findall(r"[A-Za-z]+", fh.read())
    counts = Counter(w.lower() for w in words)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    for word, count in ranked[:limit]:
        print(f"{count} {word}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
PY

python3 /app/wordfreq.py /app/sample.txt 5
