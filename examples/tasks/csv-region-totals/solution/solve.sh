#!/bin/bash
set -euo pipefail

python3 - <<'PY'
import csv
import json
from decimal import Decimal, ROUND_HALF_UP

units = {}
revenue = {}
with open("/app/data/sales.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        if not row.get("units", "").strip():
            continue
        region = row["region"].strip().title()
        n = int(row["units"])
        units[region] = units.get(region, 0) + n
        revenue[region] = revenue.get(region, Decimal(0)) + n * Decimal(row["unit_price"])

report = {
    "regions": {
        r: {"units": units[r], "revenue": float(revenue[r].quantize(Decimal("0.01"), ROUND_HALF_UP))}
        for r in sorted(units)
    },
    "top_region": max(revenue, key=revenue.get),
}
with open("/app/report.json", "w") as fh:
    json.dump(report, fh, indent=2)
PY

cat /app/report.json
