import random
import re
import subprocess
from collections import Counter
from pathlib import Path

SCRIPT = Path("/app/wordfreq.py")


def run(path, *args):
    proc = subprocess.run(
        ["python3", str(SCRIPT), str(path), *map(str, args)],
        capture_output=True, text=True, timeout=20,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def reference(text, limit=10):
    counts = Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [f"{c} {w}" for w, c in ranked[:limit]]


def write(tmp_path, text):
    p = tmp_path / "input.txt"
    p.write_text(text, encoding="utf-8")
    return p


def test_script_exists():
    assert SCRIPT.is_file()


def test_counts_and_case(tmp_path):
    p = write(tmp_path, "Apple banana apple. APPLE? banana cherry")
    assert run(p) == ["3 apple", "2 banana", "1 cherry"]


def test_ties_are_alphabetical(tmp_path):
    p = write(tmp_path, "delta alpha charlie bravo alpha bravo")
    assert run(p) == ["2 alpha", "2 bravo", "1 charlie", "1 delta"]


def test_non_letters_separate_words(tmp_path):
    p = write(tmp_path, "don't stop-me now_2 x9y caf\u00e9")
    assert run(p, 20) == reference("don't stop-me now_2 x9y caf\u00e9", 20)
    assert "1 t" in run(p, 20)


def test_limit_argument_and_default(tmp_path):
    words = [f"w{chr(97 + i)}" for i in range(15)]
    text = " ".join(words)
    p = write(tmp_path, text)
    assert len(run(p)) == 10
    assert len(run(p, 3)) == 3
    assert len(run(p, 50)) == 15


def test_empty_file_prints_nothing(tmp_path):
    p = write(tmp_path, "  123 -- !!\n")
    assert run(p) == []


def test_matches_reference_on_generated_text(tmp_path):
    rng = random.Random(20260412)
    vocab = ["lorem", "Ipsum", "dolor", "SIT", "amet", "elit", "sed", "do", "tempor", "labore"]
    text = " ".join(rng.choice(vocab) + rng.choice([" ", ", ", ".\n", "-", "'"]) for _ in range(400))
    p = write(tmp_path, text)
    assert run(p, 7) == reference(text, 7)
