import json
import subprocess
import sys

SCRIPT = "/app/merge.py"
# The interpreter running the tests, by absolute path: a "python3" the agent puts earlier on PATH could
# print a fake pytest summary that TB1's parser would read from the captured output.
PYTHON = sys.executable


def run(tmp_path, *layers):
    paths = []
    for i, layer in enumerate(layers):
        p = tmp_path / f"layer{i}.json"
        p.write_text(layer if isinstance(layer, str) else json.dumps(layer))
        paths.append(str(p))
    return subprocess.run([PYTHON, SCRIPT, *paths], capture_output=True, text=True, timeout=20)


def merged(tmp_path, *layers):
    proc = run(tmp_path, *layers)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_single_file_is_printed_sorted_and_indented(tmp_path):
    proc = run(tmp_path, {"b": 1, "a": {"d": 2, "c": 3}})
    assert proc.returncode == 0
    assert proc.stdout == json.dumps({"a": {"c": 3, "d": 2}, "b": 1}, indent=2, sort_keys=True) + "\n"


def test_nested_objects_merge_recursively(tmp_path):
    got = merged(tmp_path, {"db": {"host": "a", "pool": {"min": 1, "max": 5}}}, {"db": {"pool": {"max": 9}}})
    assert got == {"db": {"host": "a", "pool": {"min": 1, "max": 9}}}


def test_lists_and_scalars_are_replaced(tmp_path):
    got = merged(tmp_path, {"f": [1, 2], "x": {"y": 1}, "n": 1}, {"f": [3], "x": 5, "n": {"k": True}})
    assert got == {"f": [3], "x": 5, "n": {"k": True}}


def test_null_removes_a_key_at_any_depth(tmp_path):
    got = merged(tmp_path, {"a": 1, "b": {"c": 2, "d": 3}}, {"a": None, "b": {"c": None}, "zz": None})
    assert got == {"b": {"d": 3}}


def test_layers_apply_left_to_right(tmp_path):
    got = merged(tmp_path, {"v": 1, "keep": True}, {"v": 2}, {"v": 3, "w": None}, {"v": None}, {"v": "last"})
    assert got == {"v": "last", "keep": True}


def test_invalid_input_exits_1(tmp_path):
    assert run(tmp_path, {"a": 1}, "[1, 2]").returncode == 1
    assert run(tmp_path, "{not json").returncode == 1
    assert subprocess.run([PYTHON, SCRIPT, str(tmp_path / "missing.json")], capture_output=True).returncode == 1
