import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { classifyProviderError, providerInfraError, redactSecrets } from '../../src/core/agents/providerErrors';
import { tallyRecords } from '../../src/core/band/fromRecords';
import { bandReport } from '../../src/core/band/report';
import { renderBandText } from '../../src/core/band/format';
import { decodeReport, encodeReport } from '../../src/core/protocol/bandWire';
import { isBandReport } from '../../src/core/protocol/bandPanel';
import { recoverRuns, RECORD_FILE, unrecordedTrials, writeRecordFile } from '../../src/core/results/recover';
import { parseTrialsJsonl, readRun } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { notFresh } from '../../src/core/sandbox/harnessDirs';
import { leaseState, RunLease } from '../../src/core/sandbox/lease';
import { classifyTrial, containerFault, deathPhase, isVerdict } from '../../src/core/sandbox/outcome';
import { reapOrphans } from '../../src/core/sandbox/reaper';
import type { ContainerRuntime, ContainerSummary } from '../../src/core/sandbox/runtime';
import { packTar } from '../../src/core/sandbox/tar';
import { tempDir } from '../support/tempDir';

const rec = (over: Partial<TrialRecord>): TrialRecord => ({
  trial: 't1', task: '/t/a', taskId: 'a', agent: 'openai:m', model: 'm', attempt: 1, try: 1, outcome: 'failed', reward: 0,
  startedAt: 'now', durations: { build: 0, agent: 1, verifier: 1 }, logs: 'trials/t1', ...over,
});

void describe('integrity: who a failure belongs to', () => {
  void it('a container that died with a healthy engine is the container, never infra; engine faults stay infra', () => {
    const stopped = { running: false, oomKilled: false, exitCode: 137 };
    assert.equal(containerFault({ engineHealthy: true, engineFault: false, state: stopped }), 'container-died');
    assert.equal(containerFault({ engineHealthy: false, engineFault: false, state: stopped }), 'engine');
    assert.equal(containerFault({ engineHealthy: true, engineFault: true, state: stopped }), 'engine');
    assert.equal(containerFault({ engineHealthy: true, engineFault: false, state: { ...stopped, running: true } }), 'engine');
    // Gone entirely: the agent inside cannot remove its own container.
    assert.equal(containerFault({ engineHealthy: true, engineFault: false }), 'engine');
  });

  void it('classifies container deaths, verifier OOM and tampering by phase', () => {
    const died = (phase: 'agent' | 'verifier', oomKilled: boolean) => classifyTrial({ containerDied: { phase, oomKilled, detail: '' } });
    assert.deepEqual(died('agent', false), { outcome: 'agent-error', reward: null });
    assert.equal(died('agent', true).outcome, 'agent-error', "the agent's own OOM is the agent's");
    assert.equal(died('verifier', true).outcome, 'verifier-oom');
    assert.equal(died('verifier', false).outcome, 'verifier-error', 'a death under the verifier is counted, not excused');
    assert.equal(classifyTrial({ verifierOom: true, reward: 1 }).outcome, 'verifier-oom');
    assert.equal(classifyTrial({ harnessTampered: 'x', reward: 1 }).outcome, 'agent-error');
    assert.equal(classifyTrial({ infra: { kind: 'engine-unreachable', message: '' }, containerDied: { phase: 'agent', oomKilled: false, detail: '' } }).outcome, 'infra-error');
    assert.equal(isVerdict('agent-error'), true);
    assert.equal(isVerdict('verifier-oom'), false);
  });

  void it('dates a death found after the agent\'s phase by the container\'s lifetime, not by when it was noticed', () => {
    // Lived 10.3 s; the agent's phase ended 10 s after the start: the agent's `kill 1` showing late.
    assert.equal(deathPhase(10_300, 10_000), 'agent');
    assert.equal(deathPhase(25_000, 10_000), 'verifier');
    assert.equal(deathPhase(undefined, 10_000), 'verifier', 'without the engine\'s times it is not the agent\'s excuse either: counted');
  });

  void it('judges /tests and the reward folder by the engine\'s archive: only an empty root-owned folder is fresh', () => {
    const dir = (mode = 0o755) => ({ name: 'tests', mode, type: 'dir' as const });
    assert.equal(notFresh('/tests', undefined), undefined);
    assert.equal(notFresh('/tests', packTar([dir()])), undefined);
    assert.match(notFresh('/tests', packTar([dir(), { name: 'tests/conftest.py', mode: 0o644, type: 'file', data: Buffer.from('x') }]))!, /conftest\.py/);
    assert.match(notFresh('/tests', packTar([dir(0o777)]))!, /writable/);
    assert.match(notFresh('/tests', packTar([{ name: 'tests', mode: 0o777, type: 'symlink', linkTarget: '/tmp/evil' }]))!, /not a folder/);
  });
});

void describe('integrity: model provider failures', () => {
  const headers = new Headers();
  void it('unreachable, refused and the policy\'s own failures are told apart', () => {
    assert.equal(classifyProviderError(new OpenAI.APIConnectionError({ message: 'Connection error.' })), 'unreachable');
    assert.equal(classifyProviderError(new Anthropic.APIConnectionTimeoutError()), 'unreachable');
    assert.equal(classifyProviderError(OpenAI.APIError.generate(401, { error: { message: 'bad key' } }, 'bad key', headers)), 'refused');
    assert.equal(classifyProviderError(OpenAI.APIError.generate(403, undefined, 'forbidden', headers)), 'refused');
    assert.equal(classifyProviderError(OpenAI.APIError.generate(404, undefined, 'model not found', headers)), 'refused');
    assert.equal(classifyProviderError(OpenAI.APIError.generate(529, undefined, 'overloaded', headers)), 'unreachable');
    assert.equal(classifyProviderError(OpenAI.APIError.generate(429, undefined, 'slow down', headers)), 'unreachable');
    assert.equal(classifyProviderError(OpenAI.APIError.generate(400, undefined, 'context too long', headers)), 'policy');
    assert.equal(classifyProviderError(Object.assign(new Error('fetch failed'), { cause: { code: 'ENOTFOUND' } })), 'unreachable');
    assert.equal(classifyProviderError(new Error('something else')), 'policy');
    assert.equal(classifyProviderError(new OpenAI.APIUserAbortError()), 'aborted');
    const refused = providerInfraError(OpenAI.APIError.generate(401, undefined, 'bad key', headers), 'openai m');
    assert.equal(refused.infra?.kind, 'provider-refused');
    assert.equal(refused.infra?.retryable, false);
    assert.equal(providerInfraError(new Error('x'), 'openai m').infra, undefined);
  });

  void it('redacts keys a provider echoes back, known or key-shaped', () => {
    const key = 'my-gateway-token-1234567890';
    const body = `401 {"error":"Incorrect API key provided: ${key}; also sk-ant-api03-AbCdEf123456789 and sk-proj-abcdefghijklmnopqrstuv", "authorization": "Bearer abcdefghij123"}`;
    const out = redactSecrets(body, [key]);
    for (const s of [key, 'sk-ant-api03-AbCdEf123456789', 'sk-proj-abcdefghijklmnopqrstuv', 'abcdefghij123']) assert.ok(!out.includes(s), `${s} left in ${out}`);
    assert.match(out, /Incorrect API key provided: \[redacted\]/);
    assert.equal(redactSecrets('exit 1 after 12 steps'), 'exit 1 after 12 steps');
  });
});

void describe('integrity: verifier-oom through counting and the panel', () => {
  void it('is no attempt, is flagged on the task, and survives the wire; older records still read', () => {
    const records = [rec({ trial: 'a', outcome: 'passed', reward: 1 }), rec({ trial: 'b', attempt: 2, outcome: 'verifier-oom', reward: null }), rec({ trial: 'c', attempt: 3, outcome: 'agent-error', reward: null })];
    const [m] = tallyRecords([{ source: 'r', records, finished: true, expectedAttempts: 3 }]);
    const t = m!.tasks[0]!;
    assert.deepEqual([t.attempts, t.successes, t.verifierOom, t.pending], [2, 1, 1, false]);
    const report = bandReport([m!], { k: 1 });
    assert.equal(report.models[0]!.tasks[0]!.verifierOom, 1);
    assert.ok(isBandReport(report));
    assert.match(renderBandText(report), /1 verifier OOM/);
    assert.equal(decodeReport(encodeReport(report))!.models[0]!.tasks.verifierOom.get(0), 1);
    // Records written before these outcomes existed read the same.
    const old = parseTrialsJsonl(`${JSON.stringify(rec({ outcome: 'infra-error', reward: null, infra: { kind: 'exec-failed', message: 'x' } }))}\n${JSON.stringify(rec({ trial: 'n', outcome: 'verifier-oom', reward: null }))}\n`);
    assert.deepEqual([old.trials.length, old.skipped], [2, 0]);
  });
});

void describe('integrity: verdict recovery and leases', () => {
  void it('a record.json without its trials.jsonl line is read, then appended once, after a torn line', () => {
    const dir = tempDir('tw-recover-');
    const run = path.join(dir, 'r1');
    fs.mkdirSync(path.join(run, 'trials', 't1'), { recursive: true });
    fs.mkdirSync(path.join(run, 'trials', 't2'), { recursive: true });
    fs.writeFileSync(path.join(run, 'run.json'), JSON.stringify({ id: 'r1', pid: 999_999 }));
    fs.writeFileSync(path.join(run, 'trials.jsonl'), `${JSON.stringify(rec({ trial: 't1' }))}\n{"trial":"t2","tor`);
    writeRecordFile(path.join(run, 'trials', 't1'), rec({ trial: 't1' }));
    writeRecordFile(path.join(run, 'trials', 't2'), rec({ trial: 't2', outcome: 'passed', reward: 1 }));
    assert.ok(fs.existsSync(path.join(run, 'trials', 't2', RECORD_FILE)));
    assert.deepEqual(unrecordedTrials(run, [{ trial: 't1' }]).map((r) => [r.trial, r.recovered]), [['t2', true]]);
    assert.deepEqual(readRun(run).trials.map((r) => r.trial), ['t1', 't2']);
    assert.equal(recoverRuns(dir, () => true), 0, 'a live run is left to its owner');
    assert.equal(recoverRuns(dir, () => false), 1);
    assert.equal(recoverRuns(dir, () => false), 0);
    const parsed = readRun(run);
    // The torn line is cut before the recovered record goes in: no damaged line is left mid-ledger.
    assert.deepEqual([parsed.trials.map((r) => r.trial), parsed.skipped], [['t1', 't2'], 0]);
  });

  void it('a lease is fresh while refreshed, stale after three intervals, gone when released', () => {
    const dir = tempDir('tw-lease-');
    const lease = new RunLease('run-x', dir, 1000);
    assert.equal(leaseState('run-x', Date.now(), dir, 1000), 'absent');
    lease.acquire();
    lease.acquire();
    assert.equal(leaseState('run-x', Date.now(), dir, 1000), 'fresh');
    assert.equal(leaseState('run-x', Date.now() + 3500, dir, 1000), 'stale');
    lease.release();
    assert.equal(leaseState('run-x', Date.now(), dir, 1000), 'fresh', 'a nested hold keeps it');
    lease.release();
    assert.equal(leaseState('run-x', Date.now(), dir, 1000), 'absent');
  });

  void it('the reaper judges leased containers by the lease and the rest by the pid', async () => {
    const host = os.hostname();
    const c = (id: string, pid: number, leased: boolean): ContainerSummary => ({
      id, state: 'running', labels: { taskwright: '1', 'taskwright.run': id, 'taskwright.pid': String(pid), 'taskwright.host': host, ...(leased ? { 'taskwright.lease': '1' } : {}) },
    });
    const list = [c('fresh-deadpid', 1, true), c('stale-livepid', 2, true), c('unseen-livepid', 2, true), c('old-deadpid', 1, false), c('old-livepid', 2, false)];
    const removed: string[] = [];
    const rt = { listByLabel: () => Promise.resolve(list), remove: (id: string) => { removed.push(id); return Promise.resolve(); } } as unknown as ContainerRuntime;
    const leases: Record<string, 'fresh' | 'stale' | 'absent'> = { 'fresh-deadpid': 'fresh', 'stale-livepid': 'stale', 'unseen-livepid': 'absent' };
    await reapOrphans(rt, { alive: (pid) => pid === 2, lease: (run) => leases[run] ?? 'absent' });
    assert.deepEqual(removed.sort(), ['old-deadpid', 'stale-livepid']);
  });
});
