#!/bin/bash
set -euo pipefail

python3 - <<'PY'
import csv

seen = set()
with open("/app/contacts.csv", newline="") as src, open("/app/contacts_clean.csv", "w", newline="") as dst:
    reader = csv.DictReader(src)
    writer = csv.DictWriter(dst, fieldnames=reader.fieldnames, lineterminator="\n")
    writer.writeheader()
    for row in reader:
        key = row["email"].strip().lower()
        if key in seen:
            continue
        seen.add(key)
        row["email"] = key
        writer.writerow(row)
PY

cat /app/contacts_clean.csv
