import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { AuditContext } from '../../src/core/audit/context';
import { layoutOf } from '../../src/core/audit/rules/imageLayout';
import { loadTask } from '../../src/core/loader/index';
import { parseDockerfile } from '../../src/core/parse/dockerfile';
import { ensureParsers } from '../../src/core/parse/treeSitter';
import { findingsOf, makeTask, removeTemp } from './audit-helpers';

// ctx.workdir() and the image-leak rules read the one image layout (issue 11). Each case is one a
// model they used before got wrong: the last WORKDIR of any stage, unexpanded; `rm` and COPY
// destinations compared as written; "left in a build stage" decided without `FROM <stage>`.

async function workdirOf(dockerfile: string): Promise<string> {
  const dir = await makeTask('clean-tb1', { Dockerfile: dockerfile });
  try {
    return (await AuditContext.create(await loadTask(dir))).workdir();
  } finally {
    await removeTemp(dir);
  }
}

void describe('ctx.workdir(): the final image\'s WORKDIR', () => {
  before(async () => { await ensureParsers(); });
  void it('ignores a build stage\'s WORKDIR and chains relative ones', async () => {
    // Was `app` (the last WORKDIR, as written).
    assert.equal(await workdirOf('FROM golang:1.22 AS build\nWORKDIR /src\nRUN go build\nFROM python:3.12-slim\nWORKDIR /srv\nWORKDIR app\n'), '/srv/app');
    // Was /build: a stock image's final stage with no WORKDIR starts in `/`.
    assert.equal(await workdirOf('FROM golang:1.22 AS build\nWORKDIR /build\nFROM python:3.12-slim\nCOPY words.txt /opt/words.txt\n'), '/');
  });

  void it('expands ARG/ENV and inherits from FROM <stage>', async () => {
    // Was `${APP_HOME}`.
    assert.equal(await workdirOf('ARG APP_HOME=/workspace\nFROM python:3.12-slim\nARG APP_HOME\nWORKDIR ${APP_HOME}\n'), '/workspace');
    assert.equal(await workdirOf('FROM python:3.12-slim AS base\nWORKDIR /code\nFROM base\nRUN true\n'), '/code');
  });

  void it('reads an `rm` of a path with an unclosed `[` as a literal, not a broken glob', () => {
    // Seen in a real Dockerfile (a pasted citation marker): the layout threw building its glob.
    const l = layoutOf(parseDockerfile('FROM ubuntu:24.04\nWORKDIR /app\nCOPY app.py .\nRUN rm -f /[cite:notes\n'), { contextFiles: ['app.py'], prefix: '', baseWorkdir: () => '/' });
    assert.deepEqual([...l.files.keys()], ['/app/app.py']);
  });
});

const TB1_TOP = 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\n';

void describe('tests-copied-into-image on the image layout', () => {
  void it('takes an absolute `rm` after a relative COPY as removing the tests', async () => {
    const copy = `${TB1_TOP}WORKDIR /app\nCOPY tests/ tests/\n`;
    // The old check compared the COPY's `tests/tests` with `/app/tests` and still reported it.
    assert.deepEqual(await findingsOf('clean-tb1', { Dockerfile: `${copy}RUN pytest /app/tests && rm -rf /app/tests\n` }, ['tests-copied-into-image']), []);
    assert.deepEqual(await findingsOf('clean-tb1', { Dockerfile: copy }, ['tests-copied-into-image']), ['tests-copied-into-image warning 4']);
  });

  void it('reports tests a final `FROM <stage>` inherits from the stage that copied them', async () => {
    // The old check took any stage but the last as left behind.
    const df = `FROM python:3.12-slim-bookworm AS base\nCOPY tests/ /tests/\n\nFROM base\nWORKDIR /app\n`;
    assert.deepEqual(await findingsOf('clean-tb1', { Dockerfile: df }, ['tests-copied-into-image']), ['tests-copied-into-image warning 2']);
  });

  void it('leaves a build stage\'s tests alone when the final image carries only their task input', async () => {
    const files = { 'tests/fixtures/input.csv': 'a,b\n1,2\n' };
    const df = 'FROM python:3.12-slim-bookworm AS check\nWORKDIR /work\nCOPY tests/ tests/\nRUN python -m pytest tests\n\nFROM python:3.12-slim-bookworm\nCOPY --from=check /work/tests/fixtures/input.csv /app/input.csv\n';
    // The old check saw the stage's folder partly carried and reported the build stage's COPY,
    // with a fix deleting a line the build needs; the final image holds no check.
    assert.deepEqual(await findingsOf('clean-tb1', { ...files, Dockerfile: df }, ['tests-copied-into-image']), []);
    // Carrying the tests themselves is reported at the line that brings them in.
    const all = df.replace('/work/tests/fixtures/input.csv /app/input.csv', '/work/tests /app/tests');
    assert.deepEqual(await findingsOf('clean-tb1', { ...files, Dockerfile: all }, ['tests-copied-into-image']), ['tests-copied-into-image warning 7']);
  });

  void it('solution-copied-into-image: a glob that ships the solution, a later rm through a variable', async () => {
    const top = `${TB1_TOP}WORKDIR /app\n`;
    assert.deepEqual(await findingsOf('clean-tb1', { Dockerfile: `${top}COPY *.sh /app/\n` }, ['solution-copied-into-image']), ['solution-copied-into-image error 4']);
    assert.deepEqual(await findingsOf('clean-tb1', { Dockerfile: `${top}ENV ORACLE=/oracle\nCOPY solution.sh $ORACLE/\nRUN rm -f $ORACLE/solution.sh\n` }, ['solution-copied-into-image']), []);
  });
});
