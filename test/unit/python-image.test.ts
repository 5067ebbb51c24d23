import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { pipInstallLine, pipTargetOf, pipTargetOfImage } from '../../src/core/audit/pythonImage';
import { loadTask } from '../../src/core/loader/index';
import { applyFix, makeTask, removeTemp } from './audit-helpers';

const kind = (ref: string): string => pipTargetOfImage(ref).kind;

void describe('pythonImage: does pip install into the base image\'s system Python', () => {
  void it('knows the distributions that refuse a system-wide pip (PEP 668)', () => {
    for (const ref of ['debian:bookworm-slim', 'debian:12', 'debian:12.5-slim', 'debian:trixie', 'debian', 'debian:latest', 'docker.io/library/debian:bookworm',
      'ubuntu:24.04', 'ubuntu:noble', 'ubuntu:23.04', 'ubuntu', 'alpine:3.19', 'alpine:3.20', 'alpine:latest', 'buildpack-deps:bookworm']) {
      assert.equal(kind(ref), 'managed', ref);
    }
  });

  void it('knows the images where a plain pip install works', () => {
    for (const ref of ['python:3.12-slim-bookworm', 'python:3.11-slim', 'python', 'pypy:3.10', 'debian:bullseye-slim', 'debian:11',
      'ubuntu:22.04', 'ubuntu:jammy', 'ubuntu:20.04', 'alpine:3.18']) {
      assert.equal(kind(ref), 'free', ref);
    }
  });

  void it('says it does not know an image it has no rule for', () => {
    assert.equal(kind('ghcr.io/acme/runner:1.2'), 'unknown');
    assert.equal(kind('fedora:40'), 'unknown');
    assert.equal(kind(`debian:bookworm@sha256:${'a'.repeat(64)}`), 'managed', 'a digest does not hide the tag');
  });

  void it('reads the final stage, a virtual environment on PATH, PIP_BREAK_SYSTEM_PACKAGES and build arguments', () => {
    assert.equal(pipTargetOf('FROM python:3.12 AS build\nRUN true\nFROM debian:bookworm-slim\n').kind, 'managed');
    assert.equal(pipTargetOf('FROM debian:bookworm-slim AS base\nRUN apt-get update\nFROM base\n').kind, 'managed', 'a stage built on an earlier one');
    assert.equal(pipTargetOf('FROM debian:bookworm-slim\nRUN python3 -m venv /opt/venv\nENV PATH="/opt/venv/bin:$PATH"\n').kind, 'free');
    assert.equal(pipTargetOf('FROM ubuntu:24.04\nENV PIP_BREAK_SYSTEM_PACKAGES=1\n').kind, 'free');
    assert.equal(pipTargetOf('ARG BASE=debian:bookworm\nFROM ${BASE}\n').kind, 'unknown');
    assert.equal(pipTargetOf('# no FROM\n').kind, 'unknown');
  });

  void it('writes a line that builds on each kind of image', () => {
    assert.equal(pipInstallLine(pipTargetOfImage('debian:bookworm-slim'), ['requests==2.32.3']), 'RUN python3 -m pip install --no-cache-dir --break-system-packages requests==2.32.3');
    assert.equal(pipInstallLine(pipTargetOfImage('python:3.12-slim'), ['a==1', 'b==2']), 'RUN pip install --no-cache-dir a==1 b==2');
    // An older pip ignores an environment setting it does not know, so the unknown case works on both.
    assert.equal(pipInstallLine(pipTargetOfImage('fedora:40'), ['a==1']), 'RUN PIP_BREAK_SYSTEM_PACKAGES=1 pip install --no-cache-dir a==1');
  });
});

void describe('test-time-network-install: the quick fix knows the base image', () => {
  const temps: string[] = [];
  after(async () => { for (const t of temps) await removeTemp(t); });
  const TEST_SH = '#!/bin/bash\n\nmkdir -p /logs/verifier\n\npip install requests==2.32.3\npytest --noconftest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then\n  echo 1 > /logs/verifier/reward.txt\nelse\n  echo 0 > /logs/verifier/reward.txt\nfi\n';

  for (const [base, expected] of [
    ['debian:bookworm-slim', 'RUN python3 -m pip install --no-cache-dir --break-system-packages requests==2.32.3'],
    ['python:3.12-slim-bookworm', 'RUN pip install --no-cache-dir requests==2.32.3'],
  ] as const) {
    void it(`on ${base}: ${expected}`, async () => {
      const dir = await makeTask('clean-harbor', {
        'tests/test.sh': TEST_SH,
        'environment/Dockerfile': `FROM ${base}\n\nWORKDIR /app\nCOPY data/ /app/data/\n`,
      });
      temps.push(dir);
      const hit = (await auditTask(await loadTask(dir))).find((f) => f.rule === 'test-time-network-install');
      assert.ok(hit?.fix, 'the finding offers its fix');
      assert.equal(hit.fix.title.includes('--break-system-packages'), base.startsWith('debian'), hit.fix.title);
      await applyFix(dir, hit.fix);
      const dockerfile = await fs.readFile(path.join(dir, 'environment', 'Dockerfile'), 'utf8');
      assert.equal(dockerfile.trimEnd().split('\n').pop(), expected);
      const after = await auditTask(await loadTask(dir));
      assert.deepEqual(after.filter((f) => f.rule === 'test-time-network-install'), [], 'the fix removes the finding');
    });
  }
});
