import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './tempDir';

/** Writes a small Harbor task (debian:bookworm-slim, a bash verifier) with `files` on top; returns its folder. */
export function harborTask(dir: string, files: Readonly<Record<string, string>> = {}): string {
  const base: Record<string, string> = {
    'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 60\n\n[agent]\ntimeout_sec = 60\n\n[environment]\nbuild_timeout_sec = 120\ncpus = 1\nmemory_mb = 256\n',
    'instruction.md': 'Write the word hello into /app/greeting.txt.\n',
    'environment/Dockerfile': 'FROM debian:bookworm-slim\nWORKDIR /app\n',
    'solution/solve.sh': '#!/bin/bash\necho hello > /app/greeting.txt\n',
    'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\nif [ "$(cat /app/greeting.txt 2>/dev/null)" = hello ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
  };
  for (const [rel, text] of Object.entries({ ...base, ...files })) {
    const abs = path.join(dir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text, { mode: rel.endsWith('.sh') ? 0o755 : 0o644 });
  }
  return dir;
}

/** A small Terminal-Bench 1 task (task.yaml, run-tests.sh, solution.sh) in `dir`. */
export function tb1Task(dir: string, files: Readonly<Record<string, string>> = {}): string {
  const base: Record<string, string> = {
    'task.yaml': 'instruction: |-\n  Write the word hello into /app/greeting.txt.\ndifficulty: easy\nmax_agent_timeout_sec: 60\nmax_test_timeout_sec: 60\n',
    Dockerfile: 'FROM debian:bookworm-slim\nWORKDIR /app\n',
    'solution.sh': '#!/bin/bash\necho hello > /app/greeting.txt\n',
    'run-tests.sh': '#!/bin/bash\necho "=========== short test summary info ==========="\n[ "$(cat /app/greeting.txt 2>/dev/null)" = hello ] && echo "PASSED tests/test_outputs.py::test_greeting" || echo "FAILED tests/test_outputs.py::test_greeting"\n',
    'tests/test_outputs.py': 'def test_greeting():\n    assert open("/app/greeting.txt").read().strip() == "hello"\n',
  };
  for (const [rel, text] of Object.entries({ ...base, ...files })) {
    const abs = path.join(dir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text, { mode: rel.endsWith('.sh') ? 0o755 : 0o644 });
  }
  return dir;
}

/** A new temporary folder holding `files` (relative path → text); the caller removes it. */
export function tempTree(files: Readonly<Record<string, string>>, prefix = 'tw-tree-'): string {
  const dir = tempDir(prefix);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}
