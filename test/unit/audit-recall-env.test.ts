/**
 * Environment, oracle and verifier-image defects a blind reading of real Harbor tasks found and the
 * audit missed (issue 11): downloads that keep an error page, moving URLs, an oracle that fetches its
 * fix, a verifier image FROM a tag nobody builds, a project folder the image never makes, and a
 * verifier that needs Python in an image without it. Each asserts the exact finding or its absence.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import type { Files } from './audit-cases';
import { makeTask, removeTemp, type CaseBase } from './audit-helpers';
import { LOCAL_BASE_TOML, PR_SOLVE, VENDOR_DOCKER, VERIFIER_DOCKER } from './audit-cases-recall';

/** `rule severity file:line` (1-based) of every finding of the given rules. */
async function findingsOf(base: CaseBase, files: Files, rules: readonly string[]): Promise<string[]> {
  const dir = await makeTask(base, files);
  try {
    const all = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
    return all.filter((f) => rules.includes(f.rule)).map((f) => `${f.rule} ${f.severity} ${f.file ?? ''}:${f.range ? f.range.start.line + 1 : ''}`).sort();
  } finally {
    await removeTemp(dir);
  }
}

const SH = (body: string): string => `#!/bin/bash\nset -euo pipefail\nmkdir -p /logs/verifier\n\n${body}\n`;

void describe('download-without-fail', () => {
  const rule = ['download-without-fail'];
  void it('reports a vendor file saved without --fail (the error page would become the file)', async () => {
    const df = VENDOR_DOCKER('curl -sLo /app/vendor/react.js https://unpkg.com/react@18.3.1/umd/react.production.min.js');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': df }, rule), ['download-without-fail info environment/Dockerfile:4']);
  });
  void it('reports `curl URL > file` and `curl -O`', async () => {
    const df = VENDOR_DOCKER('curl -L https://example.org/data/v2/cities.csv > /app/cities.csv && \\\n    curl -sSLO https://example.org/data/v2/roads.csv');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': df }, rule), ['download-without-fail info environment/Dockerfile:4', 'download-without-fail info environment/Dockerfile:5']);
  });
  void it('is a note when the download is piped on or unpacked at once (the next step fails loudly)', async () => {
    const df = VENDOR_DOCKER('curl -sL https://example.org/tool-1.2.0.tar.gz -o /tmp/tool.tgz && tar xzf /tmp/tool.tgz -C /opt && \\\n    curl -sL https://example.org/install-1.2.0.sh | bash');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': df }, rule), ['download-without-fail info environment/Dockerfile:4', 'download-without-fail info environment/Dockerfile:5']);
  });
  void it('leaves -f in a flag cluster, --fail-with-body, a checked checksum, a status read with -w, and wget', async () => {
    const df = VENDOR_DOCKER([
      'curl -fsSLo /app/vendor/a.js https://example.org/a-1.0.js',
      'curl --fail-with-body -sL -o /app/vendor/b.js https://example.org/b-1.0.js',
      'curl -sL -w "%{http_code}" -o /app/vendor/c.js https://example.org/c-1.0.js',
      'wget -qO /app/vendor/d.js https://example.org/d-1.0.js',
    ].join(' && \\\n    '));
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': df }, rule), []);
    const summed = VENDOR_DOCKER('curl -sLo /app/tool.bin https://example.org/tool-1.0.bin && \\\n    echo "0123abcd  /app/tool.bin" | sha256sum -c -');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': summed }, rule), []);
  });
  void it('reads the reference solution too', async () => {
    const solve = PR_SOLVE('curl -sL https://example.org/assets/v3/logo.svg -o /app/static/logo.svg');
    assert.deepEqual(await findingsOf('clean-harbor', { 'solution/solve.sh': solve }, rule), ['download-without-fail info solution/solve.sh:4']);
  });
});

void describe('unversioned-download-url', () => {
  const rule = ['unversioned-download-url'];
  void it('reports a CDN package without a version, @latest, a latest release and a raw main branch', async () => {
    const df = VENDOR_DOCKER([
      'curl -fsSLo /app/vendor/babel.js https://unpkg.com/@babel/standalone/babel.min.js',
      'curl -fsSLo /app/vendor/d3.js https://cdn.jsdelivr.net/npm/d3@latest/dist/d3.min.js',
      'curl -fsSLo /usr/local/bin/yq https://github.com/mikefarah/yq/releases/latest/download/yq_linux_amd64',
      'curl -fsSLo /app/schema.json https://raw.githubusercontent.com/acme/specs/main/schema.json',
    ].join(' && \\\n    '));
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': df }, rule), [4, 5, 6, 7].map((l) => `unversioned-download-url warning environment/Dockerfile:${l}`));
  });
  void it('leaves versioned CDN paths, cdnjs with its version segment, tags and commits', async () => {
    const df = VENDOR_DOCKER([
      'curl -fsSLo /app/vendor/react.js https://unpkg.com/react@18.3.1/umd/react.production.min.js',
      'curl -fsSLo /app/vendor/pdf.js https://cdnjs.cloudflare.com/ajax/libs/pdf.js/3.11.174/pdf.min.js',
      'curl -fsSLo /app/schema.json https://raw.githubusercontent.com/acme/specs/v2.1.0/schema.json',
      'curl -fsSLo /app/x.json https://raw.githubusercontent.com/acme/specs/4f2c0a9d1b7e/x.json',
    ].join(' && \\\n    '));
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': df }, rule), []);
  });
});

void describe('solution-fetches-fix', () => {
  const rule = ['solution-fetches-fix'];
  void it('notes an oracle that applies a pull request diff it downloads (online: a note)', async () => {
    const solve = PR_SOLVE('curl -sL https://github.com/acme/widgets/pull/812.diff -o /tmp/fix.diff');
    assert.deepEqual(await findingsOf('clean-harbor', { 'solution/solve.sh': solve }, rule), ['solution-fetches-fix info solution/solve.sh:4']);
  });
  void it('reports a clone of the default branch; says the network is cut when the task cuts it', async () => {
    const solve = PR_SOLVE('git clone https://github.com/acme/widgets-fixed.git /tmp/fixed && cp -r /tmp/fixed/src /app/');
    const toml = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\nnetwork_mode = "no-network"\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'solution/solve.sh': solve, 'task.toml': toml }, rule), ['solution-fetches-fix warning solution/solve.sh:4']);
  });
  void it('leaves a commit-pinned patch, a clone checked out at a commit, and a fix shipped in solution/', async () => {
    const pinned = PR_SOLVE('curl -fsSL https://github.com/acme/widgets/commit/4f2c0a9d1b7e3c5a6f8e9d0c1b2a3f4e5d6c7b8a.diff -o /tmp/fix.diff');
    assert.deepEqual(await findingsOf('clean-harbor', { 'solution/solve.sh': pinned }, rule), []);
    const checkedOut = PR_SOLVE('git clone https://github.com/acme/widgets.git /tmp/w && git -C /tmp/w checkout 4f2c0a9');
    assert.deepEqual(await findingsOf('clean-harbor', { 'solution/solve.sh': checkedOut }, rule), []);
    assert.deepEqual(await findingsOf('clean-harbor', {}, rule), []);
  });
});

void describe('verifier-image-local-base', () => {
  const rule = ['verifier-image-local-base'];
  void it('reports a separate verifier image FROM a bare tag nothing builds', async () => {
    const files = { 'task.toml': LOCAL_BASE_TOML, 'tests/Dockerfile': VERIFIER_DOCKER('orders-env') };
    assert.deepEqual(await findingsOf('clean-harbor', files, rule), ['verifier-image-local-base warning tests/Dockerfile:2']);
  });
  void it('leaves official and registry images, a stage of the same file, and a base the environment shares', async () => {
    for (const from of ['python:3.12-slim-bookworm', 'public.ecr.aws/docker/library/golang:1.24-bookworm', 'ghcr.io/acme/verifier-base:1.2']) {
      assert.deepEqual(await findingsOf('clean-harbor', { 'task.toml': LOCAL_BASE_TOML, 'tests/Dockerfile': VERIFIER_DOCKER(from) }, rule), [], from);
    }
    const staged = 'FROM python:3.12-slim AS tools\nRUN pip install pytest==8.3.3\nFROM tools\nCOPY test.sh /tests/\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'task.toml': LOCAL_BASE_TOML, 'tests/Dockerfile': staged }, rule), []);
    const shared = { 'task.toml': LOCAL_BASE_TOML, 'environment/Dockerfile': 'FROM team-base:latest\nWORKDIR /app\n', 'tests/Dockerfile': VERIFIER_DOCKER('team-base:latest') };
    assert.deepEqual(await findingsOf('clean-harbor', shared, rule), []);
  });
  void it('reports a compose service image no service builds, and leaves one another service builds', async () => {
    const compose = 'services:\n  main:\n    build:\n      context: .\n  grader:\n    image: orders-grader\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/docker-compose.yaml': compose }, rule), ['verifier-image-local-base warning environment/docker-compose.yaml:6']);
    const built = 'services:\n  main:\n    build:\n      context: .\n    image: orders-grader\n  grader:\n    image: orders-grader\n  db:\n    image: postgres:16\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/docker-compose.yaml': built }, rule), []);
  });
});

void describe('test-path-disagrees: a project folder the image never makes', () => {
  const rule = ['test-path-disagrees'];
  const docker = 'FROM node:22-bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates\nRUN git init /testbed && \\\n    cd /testbed && \\\n    git fetch --depth 1 https://github.com/acme/widgets.git 43a045e && \\\n    git checkout FETCH_HEAD\nWORKDIR /testbed\nRUN npm ci\n';
  const test = SH('cd /widgets\nnpm test && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt');
  void it('reports the verifier and the oracle working in a folder the image does not make, while it makes another', async () => {
    const solve = '#!/bin/bash\nset -e\ncd /widgets\ngit apply /solution/fix.diff\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': docker, 'tests/test.sh': test, 'solution/solve.sh': solve }, rule), ['test-path-disagrees warning solution/solve.sh:3', 'test-path-disagrees warning tests/test.sh:5']);
  });
  void it('leaves a folder the image clones into, a guarded cd, the configured workdir and non-generic bases', async () => {
    const cloned = docker.replace('git init /testbed', 'git init /widgets').replace('cd /testbed', 'cd /widgets').replace('WORKDIR /testbed', 'WORKDIR /widgets');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': cloned, 'tests/test.sh': test }, rule), []);
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': docker, 'tests/test.sh': SH('cd /widgets 2>/dev/null || cd /testbed\nnpm test') }, rule), []);
    const toml = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\nworkdir = "/widgets"\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': docker, 'tests/test.sh': test, 'task.toml': toml }, rule), []);
    const custom = docker.replace('FROM node:22-bookworm-slim', 'FROM ghcr.io/acme/widgets-dev:1.4');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': custom, 'tests/test.sh': test }, rule), []);
  });
  void it('leaves a failing cd that changes nothing: no set -e, and only absolute paths after it (labels/blind7.json)', async () => {
    const absolute = '#!/bin/bash\nmkdir -p /logs/verifier\ncd /widgets\npython3 /tests/check.py /testbed/out.json > /logs/verifier/reward.txt\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': docker, 'tests/test.sh': absolute }, rule), []);
    // … but a relative operand after it is read from the wrong folder.
    const relative = absolute.replace('/testbed/out.json', 'out.json');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': docker, 'tests/test.sh': relative }, rule), ['test-path-disagrees warning tests/test.sh:3']);
  });
});

void describe('missing-test-deps-in-image: no Python in the image', () => {
  const rule = ['missing-test-deps-in-image'];
  const docker = 'FROM node:22-bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends git curl\nWORKDIR /app\n';
  const test = SH('pip install -q pytest==8.3.4 2>/dev/null\npython3 /tests/verify.py | tee /logs/verifier/out.log');
  void it('warns when the verifier calls pip/python3 on a slim Node base that nothing gives Python', async () => {
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': docker, 'tests/test.sh': test }, rule), ['missing-test-deps-in-image warning tests/test.sh:5']);
  });
  void it('is a note on a bare distribution, which local stand-ins rebuild with Python', async () => {
    const debian = 'FROM debian:bookworm-slim\nWORKDIR /app\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': debian, 'tests/test.sh': test }, rule), ['missing-test-deps-in-image info tests/test.sh:5']);
  });
  void it('leaves images that install Python, full Node images, a verifier that installs it, and separate verifiers', async () => {
    const installs = docker.replace('git curl', 'git curl python3 python3-pip');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': installs, 'tests/test.sh': test }, rule), []);
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': docker.replace('-slim', ''), 'tests/test.sh': test }, rule), []);
    // The full Go image builds on buildpack-deps' -scm layer, whose Mercurial brings python3 (blind9).
    const stdlibOnly = SH('python3 /tests/verify_explanation.py');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': 'FROM golang:1.22\nWORKDIR /app\n', 'tests/test.sh': stdlibOnly }, rule), []);
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': 'FROM golang:1.22-alpine\nWORKDIR /app\n', 'tests/test.sh': stdlibOnly }, rule), ['missing-test-deps-in-image warning tests/test.sh:5']);
    const selfInstall = SH('apt-get update && apt-get install -y python3-pip\npython3 /tests/verify.py');
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': docker, 'tests/test.sh': selfInstall }, rule), []);
    const separate = { 'environment/Dockerfile': docker, 'tests/test.sh': test, 'task.toml': LOCAL_BASE_TOML, 'tests/Dockerfile': VERIFIER_DOCKER('python:3.12-slim') };
    assert.deepEqual(await findingsOf('clean-harbor', separate, rule), []);
  });
});
