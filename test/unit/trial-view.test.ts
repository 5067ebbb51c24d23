import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { summarizeImported, trialLogsDir } from '../../src/core/results/runs';
import { stepsFromAtif, toAtif, validateAtif } from '../../src/core/trials/atif';
import { readLog, splitCuts } from '../../src/core/trials/files';
import { isHarborTrial, readHarborTrial, readTrialFolder } from '../../src/core/trials/harbor';
import { readTaskwrightTrial, readTrajectoryLines, TRAJECTORY_JSONL } from '../../src/core/trials/taskwright';
import { parseTrialHostMessage, parseTrialWebviewMessage, sanitizeTrialState } from '../../src/core/protocol/trialPanel';
import { tempDir } from '../support/tempDir';

const FIX = path.resolve('test/fixtures/trials');
const TW_TRIAL = path.join(FIX, 'runs/run-1/trials/hello__1');
const HARBOR_JOB = path.join(FIX, 'harbor-job');
const HARBOR_TRIAL = path.join(HARBOR_JOB, 'regex-log__Vw1');

void describe('trial viewer: Taskwright trial folder', () => {
  const view = readTaskwrightTrial(TW_TRIAL);

  void it('takes the header from record.json: task, agent, model, outcome, reward, durations, tokens, cost', () => {
    const h = view.header;
    assert.equal(view.source, 'taskwright');
    assert.equal(h.taskId, 'hello');
    assert.equal(h.agent, 'terminal:anthropic/claude-sonnet-4-5');
    assert.equal(h.model, 'claude-sonnet-4-5');
    assert.equal(h.outcome, 'failed');
    assert.equal(h.reward, 0);
    assert.deepEqual(h.durations, { build: 3.5, agent: 41.2, verifier: 6.1 });
    assert.deepEqual(h.usage, { input: 5200, output: 830, cacheRead: 1200 });
    assert.equal(h.costUsd, 0.0281);
    assert.equal(h.agentEnd, 'submitted');
  });

  void it('reads the trajectory step by step, with exit codes, the cut marked and the reasoning', () => {
    assert.equal(view.trajectoryFile, TRAJECTORY_JSONL);
    assert.deepEqual(view.steps.map((s) => s.kind), ['command', 'command', 'tool-error', 'message']);
    const [ls, seq, err, submit] = view.steps;
    assert.equal(ls?.command, 'ls -la /app');
    assert.equal(ls?.exitCode, 0);
    assert.equal(ls?.durationMs, 212);
    assert.equal(ls?.reasoning, 'The task wants hello.txt in /app; check what is there.');
    assert.equal(ls?.message, 'Let me look around first.');
    // The agent's "[exit code N]" line is shown as the exit code, not as output.
    assert.deepEqual(ls?.output, [{ kind: 'text', text: 'total 8\ndrwxr-xr-x 2 root root 4096 Nov 30 10:00 .' }]);
    assert.deepEqual(seq?.output?.map((p) => p.kind), ['text', 'cut', 'text']);
    const cut = seq?.output?.[1];
    assert.ok(cut?.kind === 'cut' && cut.note.includes('588875 bytes of output cut'));
    assert.equal(err?.tool, 'bsh');
    assert.match(err?.error ?? '', /unknown tool 'bsh'/);
    assert.equal(submit?.message, 'I wrote the file; submitting.');
    assert.deepEqual(view.steps.map((s) => s.index), [1, 2, 3, 4]);
  });

  void it('says that the torn last line of the trajectory was not read', () => {
    assert.deepEqual(view.notes, [`1 line(s) of ${TRAJECTORY_JSONL} could not be read`]);
  });

  void it('picks the failing tests out of the pytest -rA summary, and reads verdict, reward and build log', () => {
    assert.deepEqual(view.verifier?.failing, ['test_hello_content']);
    assert.deepEqual(view.verifier?.tests.map((t) => t.status), ['PASSED', 'FAILED']);
    assert.equal(view.verifier?.verdict, 'exit 1\n1 of 2 tests failed');
    assert.deepEqual(view.rewards, [{ file: 'reward.txt', text: '0' }]);
    assert.match(view.build?.parts[0]?.kind === 'text' ? view.build.parts[0].text : '', /Successfully built/);
    assert.equal(view.agentLog?.file, 'agent.log');
  });

  void it('reads a trial without trajectory or record (an oracle trial whose record is missing)', () => {
    const dir = tempDir('tw-view-');
    fs.writeFileSync(path.join(dir, 'verifier.stdout'), 'no summary here\n');
    const v = readTaskwrightTrial(dir);
    assert.deepEqual(v.steps, []);
    assert.equal(v.trajectoryFile, undefined);
    assert.equal(v.header.reward, null);
    assert.deepEqual(v.verifier?.failing, []);
    assert.match(v.notes.join('\n'), /record\.json is missing/);
  });
});

void describe('trial viewer: logs', () => {
  void it('keeps the head and tail of a large log and marks the cut', () => {
    const dir = tempDir('tw-log-');
    fs.writeFileSync(path.join(dir, 'build.log'), `${'a'.repeat(100)}${'b'.repeat(1000)}${'c'.repeat(100)}`);
    const log = readLog(dir, 'build.log', 100);
    assert.equal(log?.bytes, 1200);
    assert.deepEqual(log?.parts, [
      { kind: 'text', text: 'a'.repeat(100) },
      { kind: 'cut', note: '1000 bytes not shown: the first and last 100 of 1200' },
      { kind: 'text', text: 'c'.repeat(100) },
    ]);
  });

  void it('refuses a path outside the trial folder', () => {
    assert.equal(readLog(TW_TRIAL, '../../run.json'), undefined);
  });

  void it('leaves text without cuts whole', () => {
    assert.deepEqual(splitCuts('plain'), [{ kind: 'text', text: 'plain' }]);
    assert.deepEqual(splitCuts(''), [{ kind: 'text', text: '' }]);
  });
});

void describe('trial viewer: Harbor trial (ATIF)', () => {
  void it('reads the ATIF trajectory: instruction, tool calls as commands, observations, reasoning, metrics', () => {
    assert.ok(isHarborTrial(HARBOR_TRIAL));
    const v = readHarborTrial(HARBOR_TRIAL);
    assert.equal(v.source, 'harbor');
    assert.equal(v.instruction, 'Write a regex that matches dates in /app/log.txt and save it to /app/regex.txt.');
    assert.deepEqual(v.steps.map((s) => [s.kind, s.tool]), [['command', 'bash_command'], ['command', 'bash_command'], ['command', 'mark_task_complete']]);
    assert.equal(v.steps[0]?.command, 'head -n 3 /app/log.txt\n');
    assert.equal(v.steps[0]?.reasoning, 'I should look at the log format before writing anything.');
    assert.equal(v.steps[0]?.exitCode, null);
    assert.match(v.steps[0]?.output?.[0]?.kind === 'text' ? v.steps[0].output[0].text : '', /2025-13-40 WARN/);
    assert.equal(v.steps[2]?.output, undefined);
    assert.deepEqual(v.notes, []);
    // Read alone (a restored viewer), the header is the importer's record from the job above it.
    assert.equal(v.header.outcome, 'failed');
    assert.equal(v.header.agent, 'harbor:terminus-2');
    assert.deepEqual(v.header.usage, { input: 15234, output: 842, cacheRead: 12000 });
    // The trajectory's own metrics, for a header that has none.
    const atif = stepsFromAtif(JSON.parse(fs.readFileSync(path.join(HARBOR_TRIAL, 'agent/trajectory.json'), 'utf8')) as unknown);
    assert.deepEqual(atif.usage, { input: 7000, output: 260, cacheRead: 4300 });
    assert.equal(atif.costUsd, 0.0115);
  });

  void it('picks the ERROR test of the verifier output and reads the reward', () => {
    const v = readTrialFolder(HARBOR_TRIAL);
    assert.deepEqual(v.verifier?.failing, ['test_rejects_invalid_dates']);
    assert.deepEqual(v.rewards, [{ file: 'verifier/reward.txt', text: '0' }]);
    assert.equal(v.agentLog?.file, 'trial.log');
  });

  void it('takes the header from the importer record when the Runs view has one', () => {
    const [run] = summarizeImported(HARBOR_JOB);
    const trial = run?.trials[0];
    assert.ok(run && trial);
    const v = readTrialFolder(trialLogsDir(run.dir, trial), trial);
    assert.equal(v.source, 'harbor');
    assert.equal(v.header.taskId, 'regex-log');
    assert.equal(v.header.outcome, 'failed');
    assert.equal(v.header.reward, 0);
    assert.equal(v.header.agent, 'harbor:terminus-2');
    assert.equal(v.steps.length, 3);
  });

  void it('matches observations without call ids by position, and keeps a call-less agent step as a message', () => {
    const r = stepsFromAtif({
      steps: [
        { step_id: 1, source: 'system', message: 'sys' },
        { step_id: 2, source: 'agent', message: 'm', tool_calls: [{ tool_call_id: 'a', function_name: 'shell', arguments: { cmd: 'pwd' } }], observation: { results: [{ content: '/app', extra: { exit_code: 0 } }] } },
        { step_id: 3, source: 'agent', message: 'done' },
      ],
    });
    assert.deepEqual(r.steps.map((s) => s.kind), ['system', 'command', 'message']);
    assert.equal(r.steps[1]?.command, 'pwd');
    assert.equal(r.steps[1]?.exitCode, 0);
    assert.equal(r.steps[2]?.message, 'done');
    assert.equal(r.instruction, undefined);
  });

  void it('notes a trajectory that is not valid ATIF and shows what it can', () => {
    const dir = tempDir('hb-view-');
    fs.mkdirSync(path.join(dir, 'agent'));
    fs.writeFileSync(path.join(dir, 'agent/trajectory.json'), JSON.stringify({ steps: [{ step_id: 1, source: 'agent', message: 'hi' }] }));
    const v = readHarborTrial(dir);
    assert.equal(v.steps.length, 1);
    assert.match(v.notes[0] ?? '', /not quite ATIF \(schema_version/);
  });
});

void describe('ATIF export of a Taskwright trajectory', () => {
  const { entries } = readTrajectoryLines(fs.readFileSync(path.join(TW_TRIAL, TRAJECTORY_JSONL), 'utf8'));
  const atif = toAtif({ trial: 'hello__1', agent: 'terminal:anthropic/claude-sonnet-4-5', agentVersion: '0.1.0', model: 'claude-sonnet-4-5', instruction: 'Write hello.txt', entries, outcome: 'failed', reward: 0 });

  void it('is valid ATIF', () => {
    assert.deepEqual(validateAtif(JSON.parse(JSON.stringify(atif)) as unknown), []);
    assert.equal(atif.schema_version, 'ATIF-v1.4');
  });

  void it('has the instruction first, then one agent step per model turn with its calls and their results', () => {
    assert.deepEqual(atif.steps.map((s) => s.source), ['user', 'agent', 'agent', 'agent']);
    const turn2 = atif.steps[2];
    assert.deepEqual(turn2?.tool_calls?.map((c) => [c.tool_call_id, c.function_name, c.arguments]), [['toolu_2', 'bash', { command: 'seq 1 100000' }], ['toolu_3', 'bsh', {}]]);
    assert.deepEqual(turn2?.observation?.results.map((r) => r.source_call_id), ['toolu_2', 'toolu_3']);
    assert.match(turn2?.observation?.results[1]?.content ?? '', /^error: unknown tool/);
    assert.equal(atif.steps[1]?.reasoning_content, 'The task wants hello.txt in /app; check what is there.');
    assert.deepEqual(atif.steps[3]?.observation?.results, [{ source_call_id: 'toolu_4', content: 'submitted' }]);
  });

  void it('counts prompt tokens with cache reads included, as ATIF defines them', () => {
    assert.deepEqual(atif.steps[1]?.metrics, { prompt_tokens: 1900, completion_tokens: 120, cached_tokens: 400 });
    assert.equal(atif.final_metrics?.total_prompt_tokens, 6400);
    assert.equal(atif.final_metrics?.total_cached_tokens, 1200);
    assert.equal(atif.final_metrics?.total_cost_usd, 0.0281);
  });

  void it('reads back through the viewer as the same commands', () => {
    const back = stepsFromAtif(JSON.parse(JSON.stringify(atif)) as unknown);
    assert.equal(back.instruction, 'Write hello.txt');
    assert.deepEqual(back.steps.filter((s) => s.tool === 'bash').map((s) => s.command), ['ls -la /app', 'seq 1 100000']);
  });

  void it('validation finds what breaks the shape', () => {
    const errs = validateAtif({ schema_version: 'v2', session_id: '', agent: { name: 'x' }, steps: [{ step_id: 2, source: 'bot', message: 1 }] });
    assert.equal(errs.length, 6);
  });
});

void describe('trial viewer protocol', () => {
  void it('accepts the webview\'s messages it knows and refuses paths that leave the trial folder', () => {
    assert.deepEqual(parseTrialWebviewMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseTrialWebviewMessage({ type: 'open-file', file: 'verifier/test-stdout.txt' }), { type: 'open-file', file: 'verifier/test-stdout.txt' });
    for (const file of ['../run.json', 'a/../../b', '/etc/passwd', 'C:\\x', '']) assert.equal(parseTrialWebviewMessage({ type: 'open-file', file }), undefined, file);
    assert.deepEqual(parseTrialWebviewMessage({ type: 'rendered', steps: 4, selected: 1, failing: 1 }), { type: 'rendered', steps: 4, selected: 1, failing: 1 });
    assert.equal(parseTrialWebviewMessage({ type: 'rendered', steps: -1, selected: 1, failing: 0 }), undefined);
    assert.equal(parseTrialWebviewMessage({ type: 'open-step', step: 0 }), undefined);
    assert.equal(parseTrialWebviewMessage({ type: 'eval', code: 'x' }), undefined);
    assert.deepEqual(sanitizeTrialState({ dir: '/r/t', step: 2.5, extra: 1 }), { dir: '/r/t' });
  });

  void it('lets the webview take a view model the core built, and nothing shapeless', () => {
    const view = readTaskwrightTrial(TW_TRIAL);
    const msg = parseTrialHostMessage(JSON.parse(JSON.stringify({ type: 'show', view, step: 2 })) as unknown);
    assert.equal(msg?.type, 'show');
    assert.equal(msg?.type === 'show' ? msg.step : undefined, 2);
    assert.equal(parseTrialHostMessage({ type: 'show', view: { steps: 'no' } }), undefined);
  });
});
