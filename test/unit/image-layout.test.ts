import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { expandVars, layoutOf, type LayoutInput } from '../../src/core/audit/rules/imageLayout';
import { parseDockerfile } from '../../src/core/parse/dockerfile';
import { ensureParsers } from '../../src/core/parse/treeSitter';
import { findingsOf } from './audit-helpers';

// The one model of what the image's COPY/ADD puts where (issue 11). Each case is one Docker rule
// that at least one of the three models it replaced got wrong (noted per case).
const CONTEXT = ['app.py', 'data/in.csv', 'data/expected/out.json', 'tests/test_app.py', 'scripts/run.sh', 'requirements.txt'];
const INPUT: LayoutInput = { contextFiles: CONTEXT, prefix: 'environment/', baseWorkdir: () => '/' };

function layout(text: string, input: LayoutInput = INPUT): { files: string[]; dirs: string[]; workdir?: string; line: (p: string) => number | undefined; source: (p: string) => string | undefined } {
  const l = layoutOf(parseDockerfile(text), input);
  return {
    files: [...l.files.keys()].sort(), dirs: [...l.opaqueDirs.keys()].sort(), ...(l.workdir !== undefined ? { workdir: l.workdir } : {}),
    line: (p) => l.files.get(p)?.line, source: (p) => l.files.get(p)?.source,
  };
}

void describe('imageLayout: what COPY/ADD puts where in the final image', () => {
  before(async () => { await ensureParsers(); });

  void it('keeps only the final stage: a build stage\'s COPY never reaches the image', () => {
    // imageState walked every stage's COPY into the image.
    const l = layout('FROM python:3.12 AS build\nWORKDIR /src\nCOPY data/ /src/data/\nRUN make\n\nFROM python:3.12-slim\nWORKDIR /app\nCOPY app.py .\n');
    assert.deepEqual(l.files, ['/app/app.py']);
  });

  void it('carries files through COPY --from=<stage>, by the path the stage holds them at', () => {
    const l = layout('FROM alpine AS build\nWORKDIR /src\nCOPY data/ ./data/\nRUN tar czf /out.tgz data\n\nFROM alpine\nCOPY --from=build /src/data/expected /opt/expected\nCOPY --from=build /out.tgz /opt/\n');
    assert.deepEqual(l.files, ['/opt/expected/out.json']);
    assert.equal(l.source('/opt/expected/out.json'), 'environment/data/expected/out.json');
    assert.equal(l.line('/opt/expected/out.json'), 6);
    // What the stage built (its RUNs) is unlisted, but the build's: each destination is an opaque folder too.
    assert.deepEqual(l.dirs, ['/opt', '/opt/expected']);
  });

  void it('resolves each relative COPY against the WORKDIR in force at its line', () => {
    // imagePaths resolved every COPY against the last WORKDIR.
    const l = layout('FROM ubuntu:24.04\nWORKDIR /srv\nCOPY app.py .\nWORKDIR /app\nCOPY requirements.txt ./\n');
    assert.deepEqual(l.files, ['/app/requirements.txt', '/srv/app.py']);
    assert.equal(l.workdir, '/app');
  });

  void it('chains relative WORKDIRs, each against the one before', () => {
    const l = layout('FROM ubuntu:24.04\nWORKDIR /app\nWORKDIR src\nWORKDIR ../lib\nCOPY app.py main.py\n');
    assert.deepEqual(l.files, ['/app/lib/main.py']);
    assert.equal(l.workdir, '/app/lib');
  });

  void it('treats a trailing slash, several sources, a glob or an existing folder as a folder destination', () => {
    const l = layout('FROM ubuntu:24.04\nWORKDIR /app\nCOPY app.py /opt/tool/\nCOPY app.py requirements.txt /etc/task\nCOPY data/*.csv /in/\nCOPY scripts/run.sh /usr/local/bin\nCOPY app.py /app\nCOPY requirements.txt /srv/req.txt\n');
    assert.deepEqual(l.files, ['/app/app.py', '/etc/task/app.py', '/etc/task/requirements.txt', '/in/in.csv', '/opt/tool/app.py', '/srv/req.txt', '/usr/local/bin/run.sh']);
  });

  void it('copies the build context tree with `COPY . /app`, and a folder\'s contents into its destination', () => {
    // verifierAgentCode knew only the destination folder, not what lands in it.
    const l = layout('FROM python:3.12\nCOPY . /app\nCOPY data /data\n');
    assert.deepEqual(l.files, [...CONTEXT.map((f) => `/app/${f}`), '/data/expected/out.json', '/data/in.csv'].sort());
    const ignored = layout('FROM python:3.12\nCOPY . /app\n', { ...INPUT, contextFiles: CONTEXT.filter((f) => !f.startsWith('tests/')) });
    assert.ok(!ignored.files.includes('/app/tests/test_app.py'));
  });

  void it('expands ARG and ENV values in COPY and WORKDIR paths', () => {
    const l = layout('ARG ROOT=/work\nFROM ubuntu:24.04\nARG ROOT\nENV APP_HOME=${ROOT}/app\nWORKDIR $APP_HOME\nCOPY app.py ${DEST:-bin}/\nCOPY requirements.txt $UNSET/x\n');
    assert.deepEqual(l.files, ['/work/app/bin/app.py']);
    assert.equal(expandVars('${A}/b', new Map([['A', '/a']])), '/a/b');
    assert.equal(expandVars('$NOPE/b', new Map()), undefined);
  });

  void it('honours a later `RUN rm` in the same stage, files, folders and globs', () => {
    const l = layout('FROM python:3.12\nWORKDIR /app\nCOPY . .\nRUN rm -rf tests && rm -f /app/data/*.csv\nRUN rm scripts/run.sh\n');
    assert.deepEqual(l.files, ['/app/app.py', '/app/data/expected/out.json', '/app/requirements.txt']);
  });

  void it('removes through an `rm` of a later stage built on the one that copied (`FROM base`)', () => {
    const l = layout('FROM python:3.12 AS base\nCOPY tests/ /app/tests/\nFROM base\nRUN rm -rf /app/tests\nCOPY app.py /app/\n');
    assert.deepEqual(l.files, ['/app/app.py']);
  });

  void it('inherits files, WORKDIR and ENV from a stage named as the base (`FROM base`)', () => {
    const l = layout('FROM python:3.12 AS base\nENV D=/opt/d\nWORKDIR /app\nCOPY app.py .\nFROM base\nCOPY requirements.txt $D/\n');
    assert.deepEqual(l.files, ['/app/app.py', '/opt/d/requirements.txt']);
    assert.equal(l.workdir, '/app');
  });

  void it('starts a stage in the base image\'s folder, and leaves relative paths alone when that is unknown', () => {
    const known = layout('FROM custom/base:1\nCOPY app.py .\n', { ...INPUT, baseWorkdir: () => '/app' });
    assert.deepEqual(known.files, ['/app/app.py']);
    const unknown = layout('FROM custom/base:1\nCOPY app.py .\nCOPY requirements.txt /abs/\n', { ...INPUT, baseWorkdir: () => undefined });
    assert.deepEqual(unknown.files, ['/abs/requirements.txt']);
  });

  void it('marks what it cannot list as opaque folders: --from an image, an archive ADD, an unlisted folder', () => {
    const l = layout('FROM python:3.12\nCOPY --from=ghcr.io/astral-sh/uv:0.5 /uv /bin/uv\nADD vendor.tar.gz /opt/vendor\nCOPY missing/ /m/\nCOPY notlisted.txt /n/\nADD https://example.com/x.bin /dl/\n');
    assert.deepEqual(l.dirs, ['/bin/uv', '/m', '/opt/vendor']);
    assert.deepEqual(l.files, ['/dl/x.bin', '/n/notlisted.txt']);
  });
});

// The rules that read the model, on tasks where an old model answered wrong.
const TEST_PY = 'import json\n\n\ndef test_totals():\n    got = json.load(open("/app/totals.json"))\n    want = json.load(open("/opt/grading/expected_totals.json"))\n    assert got == want\n';
void describe('imageLayout: the rules that use it', () => {
  void it('answer-in-image: a build stage\'s COPY is not in the image, a COPY --from of it is', async () => {
    const stage = 'FROM python:3.12-slim-bookworm AS grading\nCOPY expected_totals.json /opt/grading/\n\nFROM python:3.12-slim-bookworm\nWORKDIR /app\nCOPY data/ /app/data/\n';
    const files = { 'environment/expected_totals.json': '{"north": 12.5}\n', 'tests/test_outputs.py': TEST_PY };
    // imageState counted the build stage's COPY as the image's.
    assert.deepEqual(await findingsOf('clean-harbor', { ...files, 'environment/Dockerfile': stage }, ['answer-in-image']), []);
    // …and ignored COPY --from, which does carry the file into the agent's image.
    assert.deepEqual(await findingsOf('clean-harbor', { ...files, 'environment/Dockerfile': `${stage}COPY --from=grading /opt/grading /opt/grading\n` }, ['answer-in-image']), ['answer-in-image info 7']);
  });

  void it('verifier-runs-agent-writable-code: tests copied by a quoted COPY into the workdir are the agent\'s to edit', async () => {
    const files = {
      'environment/repo/unit_tests/test_core.py': 'def test_core():\n    assert True\n',
      'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\ncd /app\npytest unit_tests > /app/unit.log 2>&1\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
    };
    // verifierAgentCode's destinations kept the quotes (`/app/"/app/"`) and missed it.
    const quoted = await findingsOf('clean-harbor', { ...files, 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nWORKDIR /app\nCOPY "repo/" "/app/"\n' }, ['verifier-runs-agent-writable-code']);
    assert.deepEqual(quoted, ['verifier-runs-agent-writable-code error 4']);
    // A build stage's copy of the tests never reaches the agent's image.
    const staged = await findingsOf('clean-harbor', { ...files, 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm AS b\nWORKDIR /app\nCOPY repo/ /app/\nFROM python:3.12-slim-bookworm\nWORKDIR /app\n' }, ['verifier-runs-agent-writable-code']);
    assert.deepEqual(staged, []);
  });
});
