import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

COUNTS = "/app/status_counts.json"
TOP_IP = "/app/top_ip.txt"
LOG = Path(__file__).with_name("access.log")
LINE = re.compile(r'^(\S+) \S+ \S+ \[[^\]]*\] "[^"]*" (\d{3}) ')


def parsed():
    rows = [LINE.match(line) for line in LOG.read_text().splitlines() if line.strip()]
    return [(m.group(1), m.group(2)) for m in rows if m]


def test_status_counts():
    if not os.path.exists(COUNTS):
        pytest.skip("status_counts.json has not been generated")
    with open(COUNTS) as fh:
        got = json.load(fh)
    assert got == dict(Counter(status for _, status in parsed()))


def test_top_ip():
    if not os.path.exists(TOP_IP):
        pytest.skip("top_ip.txt has not been generated")
    counts = Counter(ip for ip, _ in parsed())
    best = max(counts.values())
    want = min(ip for ip, n in counts.items() if n == best)
    assert Path(TOP_IP).read_text() == want + "\n"
