import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import type { Files } from './audit-cases';
import { makeTask, removeTemp, type CaseBase } from './audit-helpers';
import { KD_BODY, KD_DOCKER, KD_FILES, KD_TASK, KD_TEST, SCHEMA_FILES } from './audit-cases-recall';

/** `rule severity file:line` (1-based) of every finding of the given rules. */
async function findings(base: CaseBase, files: Files, rules: readonly string[]): Promise<string[]> {
  const dir = await makeTask(base, files);
  try {
    const all = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
    return all.filter((f) => rules.includes(f.rule)).map((f) => `${f.rule} ${f.severity} ${f.file ?? ''}:${f.range ? f.range.start.line + 1 : ''}`).sort();
  } finally {
    await removeTemp(dir);
  }
}

void describe('tb1-compose-without-harness-name', () => {
  const rule = ['tb1-compose-without-harness-name'];
  void it('reports a compose file whose only service has no container_name', async () => {
    const compose = 'services:\n  workbench:\n    build:\n      context: .\n    volumes:\n      - ./tests:/app/tests:ro\n    command: sleep infinity\n';
    assert.deepEqual(await findings('clean-tb1', { 'docker-compose.yaml': compose }, rule), ['tb1-compose-without-harness-name warning docker-compose.yaml:2']);
  });
  void it('reports a fixed literal container name', async () => {
    const compose = 'version: "3.8"\nservices:\n  box:\n    build: .\n    container_name: wordcount_box\n';
    assert.deepEqual(await findings('clean-tb1', { 'docker-compose.yaml': compose }, rule), ['tb1-compose-without-harness-name warning docker-compose.yaml:3']);
  });
  void it('leaves the harness template alone', async () => {
    const compose = 'services:\n  client:\n    build:\n      dockerfile: Dockerfile\n    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}\n    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}\n    environment:\n      - TEST_DIR=${T_BENCH_TEST_DIR}\n';
    assert.deepEqual(await findings('clean-tb1', { 'docker-compose.yaml': compose }, rule), []);
  });
  void it('leaves a Harbor task\'s compose file alone', async () => {
    const compose = 'services:\n  main:\n    build:\n      context: .\n';
    assert.deepEqual(await findings('clean-harbor', { 'environment/docker-compose.yaml': compose }, rule), []);
  });
});

void describe('verifier-imports-agent-module', () => {
  const rule = ['verifier-imports-agent-module'];
  void it('reports a shipped module the instruction never assigns, used to score', async () => {
    assert.deepEqual(await findings('clean-tb1', KD_FILES({}), rule), ['verifier-imports-agent-module warning tests/test_outputs.py:5']);
  });
  void it('leaves the module the instruction asks the agent to fix', async () => {
    const test = KD_TEST('from fit import train_step', '    assert train_step(1.0) == 0.5\n');
    assert.deepEqual(await findings('clean-tb1', KD_FILES({ 'tests/test_outputs.py': test }), rule), []);
  });
  void it('leaves a module the tests ship themselves', async () => {
    const test = KD_TEST('from net import Net', KD_BODY).replace('sys.path.append("/app/lib")', 'sys.path.append("/tests")');
    assert.deepEqual(await findings('clean-tb1', KD_FILES({ 'tests/test_outputs.py': test, 'tests/net.py': 'class Net:\n    pass\n' }), rule), []);
  });
});

void describe('unseeded-training-threshold', () => {
  const rule = ['unseeded-training-threshold'];
  void it('reports an accuracy bar on a run the verifier trains without a seed', async () => {
    assert.deepEqual(await findings('clean-tb1', KD_FILES({}), rule), ['unseeded-training-threshold warning tests/test_outputs.py:13']);
  });
  void it('leaves the same bar when the training script seeds torch', async () => {
    const fit = 'import torch\nfrom net import Net\n\ntorch.manual_seed(0)\nnet = Net()\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\nloss = net.loss()\nloss.backward()\nopt.step()\n';
    assert.deepEqual(await findings('clean-tb1', KD_FILES({ 'deps/fit.py': fit }), rule), []);
  });
  void it('leaves a metric the agent reports when nothing in the verifier trains', async () => {
    const run = '#!/bin/bash\nif [ "$PWD" = "/" ]; then\n    exit 1\nfi\npytest --noconftest $TEST_DIR/test_outputs.py -rA\n';
    const test = 'import json\n\n\ndef test_reported_accuracy():\n    epochs = 5\n    acc = json.load(open("/app/out/metrics.json"))["val_acc"]\n    assert acc > 0.9\n';
    assert.deepEqual(await findings('clean-tb1', KD_FILES({ 'run-tests.sh': run, 'tests/test_outputs.py': test }), rule), []);
  });
});

void describe('expected-from-agent-writable-path: neutral names by data flow', () => {
  const rule = ['expected-from-agent-writable-path'];
  void it('reports grading data the image ships beside the agent and the instruction never mentions', async () => {
    assert.deepEqual(await findings('clean-tb1', KD_FILES({}), rule), ['expected-from-agent-writable-path info tests/test_outputs.py:9']);
  });
  void it('is only a note when the instruction hands the file over as input', async () => {
    const task = KD_TASK.replace('reaches a good accuracy.', 'reaches a good accuracy on `/app/data/holdout.pt`.');
    assert.deepEqual(await findings('clean-tb1', KD_FILES({ 'task.yaml': task }), rule), ['expected-from-agent-writable-path info tests/test_outputs.py:9']);
  });
  void it('leaves a shipped file the test reads without comparing it with an output', async () => {
    const test = KD_TEST('', '    split = torch.load("/app/data/holdout.pt")\n    assert len(split["x"]) == 100\n');
    assert.deepEqual(await findings('clean-tb1', KD_FILES({ 'tests/test_outputs.py': test }), rule), []);
  });
  void it('leaves a file the build never makes (the agent\'s output)', async () => {
    const docker = KD_DOCKER.replace('COPY deps/holdout.pt /app/data/holdout.pt\n', '');
    assert.deepEqual(await findings('clean-tb1', KD_FILES({ Dockerfile: docker }), rule), []);
  });
});

void describe('scored-field-not-in-schema', () => {
  const rule = ['scored-field-not-in-schema'];
  void it('reports a scored path whose field the stated shape never lists', async () => {
    assert.deepEqual(await findings('clean-harbor', SCHEMA_FILES('region_totals.rows[1].share'), rule), ['scored-field-not-in-schema warning tests/score_config.json:4']);
  });
  void it('leaves paths the shape lists, and paths into other objects', async () => {
    assert.deepEqual(await findings('clean-harbor', SCHEMA_FILES('region_totals.rows[1].region'), rule), []);
    assert.deepEqual(await findings('clean-harbor', SCHEMA_FILES('meta.version'), rule), []);
  });
  void it('says nothing when the instruction names no shape', async () => {
    const files = { ...SCHEMA_FILES('region_totals.rows[1].share'), 'instruction.md': 'Write `/app/totals.json`.\n' };
    assert.deepEqual(await findings('clean-harbor', files, rule), []);
  });
});
