#!/bin/bash
set -euo pipefail

cat > /app/merge.py <<'PY'
import json
import sys


def merge(into, layer):
    for key, value in layer.items():
        if value is None:
            into.pop(key, None)
        elif isinstance(value, dict) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = prune(value)
    return into


def prune(value):
    # A null nested inside a newly added object also means "absent".
    if isinstance(value, dict):
        return {k: prune(v) for k, v in value.items() if v is not None}
    return value


def load(path):
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def main(paths):
    if not paths:
        print("usage: merge.py BASE [OVERRIDE ...]", file=sys.stderr)
        return 1
    result = {}
    for path in paths:
        try:
            layer = load(path)
        except (OSError, ValueError) as err:
            print(f"merge.py: {path}: {err}", file=sys.stderr)
            return 1
        merge(result, layer)
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
PY

python3 /app/merge.py /app/configs/base.json /app/configs/staging.json /app/configs/local.json
