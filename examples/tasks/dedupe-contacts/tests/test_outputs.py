import csv
from pathlib import Path

OUTPUT = Path("/app/contacts_clean.csv")
SOURCE = Path(__file__).with_name("contacts.csv")


def read(path):
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        return next(reader), list(reader)


def expected_rows():
    header, rows = read(SOURCE)
    email = header.index("email")
    seen, keep = set(), []
    for row in rows:
        key = row[email].strip().lower()
        if key not in seen:
            seen.add(key)
            keep.append(row[:email] + [key] + row[email + 1:])
    return header, keep


def test_header_is_kept():
    header, _ = read(OUTPUT)
    assert header == ["name", "email", "phone"]


def test_one_row_per_contact_in_original_order():
    _, rows = read(OUTPUT)
    _, want = expected_rows()
    assert rows == want


def test_emails_are_unique_and_normalised():
    _, rows = read(OUTPUT)
    emails = [r[1] for r in rows]
    assert len(emails) == len(set(emails))
    assert all(e == e.strip().lower() for e in emails)
