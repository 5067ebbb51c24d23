import csv
import json
from pathlib import Path

import pytest

REPORT = Path("/app/report.json")
# The verifier's own copy of the input: the agent can edit /app/data but not /tests.
SOURCE = Path(__file__).with_name("sales.csv")


def expected():
    units, cents = {}, {}
    with SOURCE.open(newline="") as fh:
        for row in csv.DictReader(fh):
            if not (row.get("units") or "").strip():
                continue
            region = row["region"].strip().lower()
            n = int(row["units"])
            whole, _, frac = row["unit_price"].partition(".")
            price_cents = int(whole) * 100 + int((frac + "00")[:2])
            units[region] = units.get(region, 0) + n
            cents[region] = cents.get(region, 0) + n * price_cents
    return units, cents


def load_report():
    assert REPORT.is_file(), "/app/report.json was not written"
    return json.loads(REPORT.read_text())


def test_region_names_are_normalised():
    report = load_report()
    units, _ = expected()
    assert sorted(report["regions"]) == sorted(r.title() for r in units)


def test_units_per_region():
    report = load_report()
    units, _ = expected()
    for region, n in units.items():
        got = report["regions"][region.title()]["units"]
        assert isinstance(got, int) and got == n, region


def test_revenue_per_region():
    report = load_report()
    _, cents = expected()
    for region, c in cents.items():
        assert report["regions"][region.title()]["revenue"] == pytest.approx(c / 100, abs=0.005), region


def test_top_region():
    report = load_report()
    _, cents = expected()
    assert report["top_region"] == max(cents, key=cents.get).title()
