#!/bin/bash
set -euo pipefail

python3 - <<'PY'
import functools


def parse(version):
    core = version.split("+", 1)[0]
    release, _, pre = core.partition("-")
    nums = tuple(int(x) for x in release.split("."))
    return nums, pre.split(".") if pre else []


def cmp_ident(a, b):
    if a.isdigit() and b.isdigit():
        return (int(a) > int(b)) - (int(a) < int(b))
    if a.isdigit() != b.isdigit():
        return -1 if a.isdigit() else 1
    return (a > b) - (a < b)


def cmp_version(x, y):
    (nx, px), (ny, py) = parse(x), parse(y)
    if nx != ny:
        return -1 if nx < ny else 1
    if not px or not py:
        return (not px) - (not py)
    for a, b in zip(px, py):
        c = cmp_ident(a, b)
        if c:
            return c
    return (len(px) > len(py)) - (len(px) < len(py))


with open("/app/versions.txt") as fh:
    versions = list(dict.fromkeys(line.strip() for line in fh if line.strip()))
with open("/app/sorted.txt", "w") as fh:
    fh.write("\n".join(sorted(versions, key=functools.cmp_to_key(cmp_version))) + "\n")
PY

cat /app/sorted.txt
