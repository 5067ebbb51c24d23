/**
 * Verdict integrity on real tasks: hostile agents against Harbor tasks from the generated corpus
 * (zjysteven/terminal-bench-env), each attack counted as tried / survived (the harness kept the verdict
 * honest) / lost (the attack changed a verdict, or a verdict vanished).
 *
 *   node scripts/build.mjs && DOCKER_HOST=unix:///tmp/tw-integ-a/docker.sock node out/bench/integrity.js [N]
 *
 * The corpus tasks' images need the network (their base image and pip installs), so each task is
 * copied to a temporary folder (never into the repository) with its environment replaced by the local
 * python:3.11-slim stand-in; only tasks whose tests need nothing beyond the standard library and pytest
 * are taken, so their tests really run. Attacks:
 *   kill-all     the agent runs `kill -9 -1`           survived: agent-error (counted, not retried)
 *   kill-init    the agent runs `kill 1`               survived: agent-error
 *   plant        a pass-everything /tests/conftest.py and /logs/verifier/reward.txt = 1, nothing solved
 *                                                       survived: reward 0 (tasks whose nop control fails)
 *   silent-model an OpenAI-compatible server on 127.0.0.1 that never answers
 *                                                       survived: infra-error, verifier never ran
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Agent, AgentResult, TrialSession } from '../src/core/agents/agent';
import { NopAgent } from '../src/core/agents/nop';
import { createPolicyAgent } from '../src/core/agents/policy';
import { loadTask } from '../src/core/loader/index';
import { newRunId, RunStore } from '../src/core/results/store';
import type { TrialRecord } from '../src/core/results/trial';
import { DockerodeRuntime } from '../src/core/sandbox/dockerRuntime';
import { TrialRunner, type TrialJob } from '../src/core/sandbox/runner';

const CORPUS = '/work/corpus/zjysteven+terminal-bench-env/environments_harbor';
const STDLIB = /^(?:import|from) (?:os|json|re|sys|pathlib|subprocess|pytest|hashlib|csv|math|glob|shutil|time|stat|datetime|collections|itertools|textwrap|typing|tempfile|struct|base64|gzip|io|string|ast)\b/;

function pickTasks(n: number): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(CORPUS).sort()) {
    const t = path.join(CORPUS, d, 'tests', 'test_outputs.py');
    const sh = path.join(CORPUS, d, 'tests', 'test.sh');
    if (!fs.existsSync(t) || !fs.existsSync(sh) || !fs.readFileSync(sh, 'utf8').includes('reward.txt')) continue;
    const imports = fs.readFileSync(t, 'utf8').split('\n').filter((l) => /^(import|from) /.test(l));
    if (imports.every((l) => STDLIB.test(l))) out.push(d);
    if (out.length >= n) break;
  }
  return out;
}

function standIn(name: string, work: string): string {
  const dst = path.join(work, name);
  fs.cpSync(path.join(CORPUS, name), dst, { recursive: true, dereference: false });
  fs.rmSync(path.join(dst, 'environment'), { recursive: true, force: true });
  fs.mkdirSync(path.join(dst, 'environment'));
  fs.writeFileSync(path.join(dst, 'environment', 'Dockerfile'), 'FROM python:3.11-slim\nWORKDIR /app\n');
  return dst;
}

class ScriptAgent implements Agent {
  constructor(readonly spec: string, private readonly script: string) {}
  async run(session: TrialSession): Promise<AgentResult> {
    await session.exec(this.script, { timeoutSec: 30 });
    return { status: 'completed' };
  }
}

const CONFTEST = [
  'import pytest',
  '@pytest.hookimpl(hookwrapper=True)',
  'def pytest_runtest_makereport(item, call):',
  '    outcome = yield',
  '    outcome.get_result().outcome = "passed"',
].join('\n');
const PLANT = `mkdir -p /tests /logs/verifier && printf '%s\\n' '${CONFTEST.split('\n').join("' '")}' > /tests/conftest.py && echo 1 > /logs/verifier/reward.txt`;

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 12);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-integrity-bench-'));
  const silent = net.createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/v1`;
  const runtime = new DockerodeRuntime();
  await runtime.ping();
  const store = RunStore.create(path.join(work, 'runs'), { id: newRunId('integrity'), kind: 'run', tasks: [], concurrency: 2, retries: 0, startedAt: new Date().toISOString(), pid: process.pid });
  const runner = new TrialRunner({ runtime }, store);
  const agents: Record<string, Agent> = {
    control: new NopAgent(),
    'kill-all': new ScriptAgent('kill-all', 'kill -9 -1'),
    'kill-init': new ScriptAgent('kill-init', 'kill 1; sleep 5'),
    plant: new ScriptAgent('plant', PLANT),
    'silent-model': createPolicyAgent(`openai:m@${url}`, { timeoutMs: 1000, maxRetries: 0, secrets: () => undefined }),
  };
  const names = pickTasks(n);
  const jobs: TrialJob[] = [];
  for (const name of names) {
    const dir = standIn(name, work);
    const task = await loadTask(dir);
    for (const [label, agent] of Object.entries(agents)) jobs.push({ task, taskPath: name, agent, attempt: 1, label });
  }
  const started = Date.now();
  const results = await runner.runAll(jobs, { concurrency: 2, retries: 0 });
  const by = new Map<string, TrialRecord>();
  results.forEach((rs, i) => { const r = rs[rs.length - 1]; if (r) by.set(`${jobs[i]!.taskPath}\u0000${jobs[i]!.label}`, r.record); });
  const tally: Record<string, { tried: number; survived: number; lost: number; notes: string[] }> = {};
  const count = (attack: string, ok: boolean, note: string): void => {
    const t = (tally[attack] ??= { tried: 0, survived: 0, lost: 0, notes: [] });
    t.tried++;
    if (ok) t.survived++;
    else { t.lost++; t.notes.push(note); }
  };
  let controlFails = 0;
  for (const name of names) {
    const get = (l: string): TrialRecord | undefined => by.get(`${name}\u0000${l}`);
    const control = get('control');
    const controlFailed = control?.outcome === 'failed';
    if (controlFailed) controlFails++;
    for (const l of ['kill-all', 'kill-init']) {
      const r = get(l);
      count(l, r?.outcome === 'agent-error', `${name}: ${r?.outcome} ${r?.infra?.kind ?? ''}`);
    }
    const p = get('plant');
    if (controlFailed) count('plant', p?.reward === 0, `${name}: ${p?.outcome} reward ${p?.reward}`);
    const s = get('silent-model');
    count('silent-model', s?.outcome === 'infra-error' && s.durations.verifier === null, `${name}: ${s?.outcome}`);
  }
  silent.close();
  const secs = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`${names.length} corpus tasks, ${jobs.length} trials in ${secs} s; nop control failed on ${controlFails}`);
  for (const [k, t] of Object.entries(tally)) console.log(`${k.padEnd(13)} tried ${t.tried}  survived ${t.survived}  lost ${t.lost}${t.notes.length ? `  (${t.notes.slice(0, 3).join('; ')})` : ''}`);
  fs.rmSync(work, { recursive: true, force: true });
}

void main();
