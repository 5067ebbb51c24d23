import subprocess
import tarfile
from pathlib import Path

import pytest

SCRIPT = "/app/backup.sh"

FILES = {
    "plain.txt": "plain\n",
    "with space.txt": "space\n",
    "sub dir/nested [1].txt": "brackets\n",
    "sub dir/deeper/*star*.txt": "star\n",
    "sub dir/deeper/not-text.log": "log\n",
    "b.TXT": "upper-case extension is not .txt\n",
    "-dash.txt": "leading dash\n",
}
TXT = sorted((p for p in FILES if p.endswith(".txt")), key=lambda p: p.encode())


@pytest.fixture
def backup(tmp_path):
    src = tmp_path / "my src"
    for rel, body in FILES.items():
        f = src / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(body)
    dest = tmp_path / "backups dir" / "today"
    proc = subprocess.run(["bash", SCRIPT, str(src), str(dest)], capture_output=True, text=True, timeout=30)
    return proc, dest


def test_exits_with_status_0(backup):
    proc, _ = backup
    assert proc.returncode == 0, proc.stderr


def test_archive_holds_exactly_the_txt_files(backup):
    _, dest = backup
    with tarfile.open(dest / "backup.tar.gz", "r:gz") as tar:
        names = sorted(m.name for m in tar.getmembers() if m.isfile())
    assert sorted(names) == sorted(TXT)


def test_archive_contents_are_intact(backup):
    _, dest = backup
    with tarfile.open(dest / "backup.tar.gz", "r:gz") as tar:
        for rel in TXT:
            member = tar.extractfile(rel)
            assert member is not None, rel
            assert member.read().decode() == FILES[rel]


def test_manifest_is_sorted_relative_paths(backup):
    _, dest = backup
    lines = (dest / "manifest.txt").read_text().splitlines()
    assert lines == TXT
