/**
 * False findings the fourth blind held-out set met (bench/accuracy/labels/blind4.json), one fixture
 * per cause, written here in the style of what was read: each asserts the absence (or the note) on
 * the false case and that the true case still fires. (The multi-step shared tests/ case lives with
 * the other multi-step cases in audit-rules-a.test.ts.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { loadTask } from '../../src/core/loader/index';
import { describeCases, findingsOf as found, type PatternCase as Case } from './audit-helpers';
import { tempTree } from '../support/taskFolders';

/** An API the agent must call, and tests of the file it writes. */
const API_TEST = (third: string): string => `import json\nfrom pathlib import Path\n\nITEMS = Path("/app/items.json")\n\n\ndef test_items_file_is_valid_json():\n    items = json.loads(ITEMS.read_text())\n    assert isinstance(items, list)\n\n\ndef test_harbor_item_present():\n${third}`;

/** Routes shipped in the image, a policy file the agent derives from them. */
const ROUTES_DOCKER = 'FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY data/ /app/data/\nCOPY app/ /app/\n';
const ROUTES_JSON = '[{"route": "/api/profile", "middleware_enforced": false}, {"route": "/api/orders", "middleware_enforced": true}]\n';
const ROUTES_TEST = (pin: string): string => `import json\nfrom pathlib import Path\n\n\ndef _meta():\n    return {m["route"]: m for m in json.loads(Path("/app/route_metadata.json").read_text())}\n\n\ndef test_enforced_matches_metadata():\n    meta = _meta()\n    for p in json.loads(Path("/app/route_policies.json").read_text()):\n        assert p["middleware_enforced"] == meta[p["route"]]["middleware_enforced"]\n${pin}`;
const PROFILE_PIN = '\n\ndef test_profile_is_not_enforced():\n    policies = {p["route"]: p for p in json.loads(Path("/app/route_policies.json").read_text())}\n    assert "/api/profile" in policies\n    assert policies["/api/profile"]["middleware_enforced"] is False\n';
const ROUTES_FILES = (test: string): Case['files'] => ({
  'environment/Dockerfile': ROUTES_DOCKER, 'environment/app/route_metadata.json': ROUTES_JSON,
  'instruction.md': 'The routes are listed in `/app/route_metadata.json`. Write `/app/route_policies.json` with one entry per route.\n',
  'tests/test_outputs.py': test,
});

const CASES: readonly Case[] = [
  // weak-assertion: a value the output must contain is a value check
  { name: 'a required value among the output\'s names (`"harbor" in names`, names a list of values) is a value check', base: 'clean-harbor', rules: ['weak-assertion'],
    files: { 'tests/test_outputs.py': API_TEST('    names = [item["name"] for item in json.loads(ITEMS.read_text())]\n    assert "harbor" in names\n') }, want: [] },
  { name: 'a field present in a parsed object is still shape only', base: 'clean-harbor', rules: ['weak-assertion'],
    files: { 'tests/test_outputs.py': API_TEST('    first = json.loads(ITEMS.read_text())[0]\n    assert "name" in first\n') }, want: ['weak-assertion warning 12', 'weak-assertion warning 7'] },
  // expected-from-agent-writable-path: pinned values from the shipped inputs close the trivial-input hole
  { name: 'a recomputed check beside a test pinning a route the shipped inputs hold is a note', base: 'clean-harbor', rules: ['expected-from-agent-writable-path'],
    files: ROUTES_FILES(ROUTES_TEST(PROFILE_PIN)), want: ['expected-from-agent-writable-path info 6'] },
  { name: 'the same recomputed check with nothing pinned is reported too (a note, like the whole rule; the output named on the line that names an input of its folder is still output)', base: 'clean-harbor', rules: ['expected-from-agent-writable-path'],
    files: ROUTES_FILES(ROUTES_TEST('')), want: ['expected-from-agent-writable-path info 6'] },
  { name: 'a pinned format string that no input holds does not anchor the check', base: 'clean-harbor', rules: ['expected-from-agent-writable-path'],
    files: ROUTES_FILES(ROUTES_TEST('\n\ndef test_policy_header():\n    assert "package policies" in Path("/app/policies.rego").read_text()\n')), want: ['expected-from-agent-writable-path info 6'] },
  // Found while checking these fixes on every corpus: outputs the instruction names in other words.
  { name: 'a file the instruction says to save (a sentence led by "Save", the verb before an "and") is output, not input', base: 'clean-harbor', rules: ['expected-from-agent-writable-path'],
    files: { ...ROUTES_FILES(ROUTES_TEST('')), 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY data/ /app/data/\n', 'instruction.md': 'Collect the service routes.\n\nSave your corrected and complete metadata as a JSON file at `/app/route_metadata.json`, then write `/app/route_policies.json`.\n' }, want: [] },
  { name: 'files a success criterion says exist are output, not input', base: 'clean-harbor', rules: ['expected-from-agent-writable-path'],
    files: { ...ROUTES_FILES(ROUTES_TEST('')), 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY data/ /app/data/\n', 'instruction.md': 'Collect the routes, then write `/app/route_policies.json` with one entry per route.\n\nYou are done when:\n- `/app/route_metadata.json` exists containing the cleaned routes\n' }, want: [] },
];

describeCases('audit precision (blind4 false findings): one fixture per cause', CASES);

/** A verifier that fetches uv with curl, the Harbor template's first lines. */
const CURL_SH = (install: string): string => `#!/bin/bash\n${install}\ncurl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh\nsource $HOME/.local/bin/env\nuvx -w pytest==8.4.1 pytest --noconftest /tests/test_outputs.py -rA\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n`;
const IMAGE = (from: string, extra = ''): string => `FROM ${from}\n\nRUN pip install --no-cache-dir pytest==8.3.3\n${extra}\nWORKDIR /app\nCOPY data/ /app/data/\n`;

const INSTALL_CASES: readonly Case[] = [
  { name: 'apt-get install of a package the image lacks, at verify time: a warning at the install (recall, blind readings)', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': CURL_SH('apt-get update\napt-get install -y curl') }, want: ['unpinned-test-dependency warning 3'] },
  { name: 'the same install on a full official image (buildpack-deps ships curl) is quiet', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': CURL_SH('apt-get update\napt-get install -y curl'), 'environment/Dockerfile': IMAGE('python:3.12-bookworm') }, want: [] },
  { name: 'the same install of a package the Dockerfile installs already is quiet', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': CURL_SH('apt-get update\napt-get install -y curl'), 'environment/Dockerfile': IMAGE('python:3.12-slim-bookworm', 'RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*\n') }, want: [] },
  { name: 'offline, the install is test-time-network-install\'s warning alone', base: 'clean-harbor', rules: ['unpinned-test-dependency', 'test-time-network-install'],
    files: { 'tests/test.sh': CURL_SH('apt-get update\napt-get install -y curl'), 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\nbuild_timeout_sec = 600.0\nallow_internet = false\n' }, want: ['test-time-network-install warning 3'] },
  { name: '`uv run --with pytest` resolves pytest at every run: unpinned; `--with pytest==8.4.1,requests==2.32.3` is pinned', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': '#!/bin/bash\nuv run --with pytest==8.4.1,requests==2.32.3 pytest --noconftest /tests/test_outputs.py -rA\nuv run --with pytest pytest --noconftest /tests/test_outputs.py -rA\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: ['unpinned-test-dependency warning 3'] },
];

void describe('audit recall (blind4 misses): installs at verify time', () => {
  for (const c of INSTALL_CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});

const UV_DOCKER = (copy: string): string => `FROM python:3.12-slim-bookworm\n${copy}\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY data/ /app/data/\n`;
const SIDECAR_COMPOSE = 'services:\n  main:\n    build:\n      context: ${CONTEXT_DIR}\n    image: ${MAIN_IMAGE_NAME}\n  tools:\n    build: ./tools\n';

const IMAGE_CASES: readonly Case[] = [
  { name: '`COPY --from=ghcr.io/astral-sh/uv:latest` follows latest: a warning at the COPY', base: 'clean-harbor', rules: ['base-image-unpinned'],
    files: { 'environment/Dockerfile': UV_DOCKER('COPY --from=ghcr.io/astral-sh/uv:latest /uv /uvx /bin/') }, want: ['base-image-unpinned warning 2'] },
  { name: 'a pinned uv image, or a build stage, is quiet', base: 'clean-harbor', rules: ['base-image-unpinned'],
    files: { 'environment/Dockerfile': `FROM python:3.12-slim-bookworm AS build\nRUN echo hi > /x\n${UV_DOCKER('COPY --from=ghcr.io/astral-sh/uv:0.9.7 /uv /uvx /bin/\nCOPY --from=build /x /x')}` }, want: [] },
  { name: 'a compose service the task builds is checked too; a Dockerfile that is only the agent\'s material is not', base: 'clean-harbor', rules: ['base-image-unpinned'],
    files: {
      'environment/docker-compose.yaml': SIDECAR_COMPOSE,
      'environment/tools/Dockerfile': 'FROM python:3.12-slim-bookworm\nCOPY --from=ghcr.io/astral-sh/uv:latest /uv /bin/\n',
      'environment/broken/Dockerfile': 'FROM ubuntu:latest\nRUN echo fix me\n',
    },
    want: ['base-image-unpinned warning 2'] },
];

void describe('audit recall (blind4 misses): images that follow latest', () => {
  for (const c of IMAGE_CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});

void describe('loader problems said where the reader looks (blind4)', () => {
  const toml = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n';
  const where = async (files: Record<string, string>, rule: string): Promise<string[]> => {
    const dir = tempTree({ 'task.toml': toml, 'instruction.md': 'Say hello.\n', ...files }, 'tw-where-');
    try {
      return (await loadTask(dir)).problems.filter((p) => p.rule === rule).map((p) => `${p.file ?? '-'} ${p.message.split(': ').slice(1).join(': ')}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  void it('an environment that is a file, not a folder: on that file', async () => {
    assert.deepEqual(await where({ environment: 'x', 'tests/test.sh': '#!/bin/bash\n' }, 'missing-environment'),
      ['environment no environment: environment is a file, not a folder, so there is nothing to build (expected environment/Dockerfile, environment/docker-compose.yaml or [environment] docker_image)']);
  });
  void it('an environment/ without a Dockerfile (a placeholder; scripts the config runs): a note; data alone or no environment/: an error', async () => {
    const severities = async (files: Record<string, string>): Promise<string[]> => {
      const dir = tempTree({ 'task.toml': toml, 'instruction.md': 'Click the button.\n', 'tests/test.sh': '#!/bin/bash\n', ...files }, 'tw-where-');
      try {
        return (await loadTask(dir)).problems.filter((p) => p.rule === 'missing-environment').map((p) => `${p.severity} ${p.file ?? '-'}`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    };
    assert.deepEqual(await severities({ 'environment/.gitkeep': '\n' }), ['info task.toml']);
    // A macOS-simulator task (blind9): the [environment] healthcheck runs environment/driver/setup.sh.
    const sim = { 'environment/driver/setup.sh': '#!/bin/bash\nxcrun simctl boot "$DEVICE"\n', 'environment/app-src/Main.swift': 'import SwiftUI\n' };
    const healthcheck = `${toml}\n[environment.healthcheck]\ncommand = "bash /app/driver/setup.sh"\n`;
    assert.deepEqual(await severities({ ...sim, 'task.toml': healthcheck }), ['info task.toml']);
    // Data alone, or scripts nothing in the config runs: a task Harbor cannot build (blind2).
    assert.deepEqual(await severities(sim), ['error task.toml']);
    assert.deepEqual(await severities({ 'environment/data/orders.csv': 'id,total\n1,2\n' }), ['error task.toml']);
    assert.deepEqual(await severities({ 'README.md': 'Run it.\n' }), ['error task.toml']);
    // A Dockerfile one folder too deep is still astray: an error, on that file.
    assert.deepEqual(await severities({ 'environment/environment/Dockerfile': 'FROM debian:bookworm-slim\n' }), ['error environment/environment/Dockerfile']);
  });
  void it('a verifier in test/ instead of tests/: on the misplaced script; none anywhere: on task.toml', async () => {
    const moved = await where({ 'environment/Dockerfile': 'FROM debian:bookworm-slim\n', 'test/test.sh': '#!/bin/bash\n' }, 'missing-test-entry');
    assert.equal(moved.length, 1);
    assert.match(moved[0] ?? '', /^test\/test\.sh no tests\/test\.sh: .*; this test\.sh is not it: Harbor runs tests\/test\.sh from the task folder$/);
    const none = await where({ 'environment/Dockerfile': 'FROM debian:bookworm-slim\n' }, 'missing-test-entry');
    assert.deepEqual(none.map((x) => x.split(' ')[0]), ['task.toml']);
  });
  void it('a task nested inside environment/ (blind5): each missing part on the copy found deeper, the least deep one', async () => {
    const nested = { 'environment/Dockerfile': 'FROM debian:bookworm-slim\n', 'environment/instruction.md': 'Say hello.\n', 'environment/tests/tests/test.sh': '#!/bin/bash\n', 'environment/tests/solution/solution/solve.sh': '#!/bin/bash\n', 'environment/vendor/lib/x/tests/test.sh': '#!/bin/bash\n' };
    const dir = tempTree({ 'task.toml': toml, ...nested }, 'tw-nested-');
    try {
      const problems = (await loadTask(dir)).problems.filter((p) => /^missing-(instruction|test-entry|solution)$/.test(p.rule)).map((p) => `${p.rule} ${p.file ?? '-'}`).sort();
      assert.deepEqual(problems, ['missing-instruction environment/instruction.md', 'missing-solution environment/tests/solution/solution/solve.sh', 'missing-test-entry environment/tests/tests/test.sh']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

