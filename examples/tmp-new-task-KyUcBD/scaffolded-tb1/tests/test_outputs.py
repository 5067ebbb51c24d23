"""Checks /app/wordcount.py by running it on inputs the agent never saw."""
import subprocess

import pytest

SCRIPT = "/app/wordcount.py"

CASES = [
    ("", 0),
    ("one", 1),
    ("two words\n", 2),
    ("  spaced   out\ttabs\nand  lines  ", 5),
    ("a b c d e f g h i j k l m n o p", 16),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_prints_the_word_count(text, expected):
    result = subprocess.run(["python3", SCRIPT], input=text, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(expected)
