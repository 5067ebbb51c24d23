// "Validate Task" with `taskwright.sandbox.engines` naming two engines: the shared one and a second
// daemon of the rig's own (scripts/docker-engine.sh --second). The task's image is removed from the
// second engine first, so finding it there afterwards, with the first engine's image id, shows that
// trials ran there (an image is copied to an engine on its first trial).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { workspaceDir } from './helpers';

const TASK = 'word-frequency';
const root = path.resolve(__dirname, '../../..');
const STATE = process.env.TASKWRIGHT_POOL_DOCKERD_DIR ?? '/run/tw-pool';
const first = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
const second = `unix://${STATE}/docker.sock`;

const docker = (host: string, ...args: string[]): string => execFileSync('docker', ['-H', host, ...args], { encoding: 'utf8' }).trim();
const runsDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs');
const listRuns = (): string[] => (fs.existsSync(runsDir()) ? fs.readdirSync(runsDir()) : []);

describe('Sandbox: a pool of engines (taskwright.sandbox.engines)', () => {
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('taskwright');
  let saved: { runs?: number; engines?: string[] } = {};
  let runsBefore: Set<string>;

  before(async function () {
    this.timeout(5 * 60_000);
    execFileSync('bash', [path.join(root, 'scripts/docker-engine.sh'), '--second', '--copy-images'], {
      env: { ...process.env, TASKWRIGHT_DOCKERD2_DIR: STATE, DOCKER_HOST: first }, stdio: 'ignore', timeout: 180_000,
    });
    for (const ref of docker(second, 'images', '-q', `taskwright/${TASK}`).split('\n').filter(Boolean)) docker(second, 'rmi', '-f', ref);
    runsBefore = new Set(listRuns());
    saved = { runs: config().inspect<number>('sandbox.runs')?.globalValue, engines: config().inspect<string[]>('sandbox.engines')?.globalValue };
    await config().update('sandbox.runs', 1, vscode.ConfigurationTarget.Global);
    await config().update('sandbox.engines', [first, second], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await config().update('sandbox.runs', saved.runs, vscode.ConfigurationTarget.Global);
    await config().update('sandbox.engines', saved.engines, vscode.ConfigurationTarget.Global);
    for (const id of listRuns().filter((r) => !runsBefore.has(r))) fs.rmSync(path.join(runsDir(), id), { recursive: true, force: true });
  });

  it('validates over both engines and leaves no container on either', async function () {
    this.timeout(10 * 60_000);
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    const v = await vscode.commands.executeCommand<{ verdict: string } | undefined>('taskwright.sandbox.validate', dir);
    assert.ok(v, 'Validate Task returned nothing');
    assert.equal(v.verdict, 'valid');
    const created = listRuns().filter((r) => !runsBefore.has(r));
    assert.equal(created.length, 1, `expected one new run folder, got ${created.join(', ') || 'none'}`);
    const params = JSON.parse(fs.readFileSync(path.join(runsDir(), created[0]!, 'run.json'), 'utf8')) as { endpoint?: string };
    assert.match(params.endpoint ?? '', /^pool of 2: /);
    const [onFirst, onSecond] = [first, second].map((h) => docker(h, 'images', '-q', '--no-trunc', `taskwright/${TASK}`).split('\n').filter(Boolean));
    assert.ok(onSecond!.length > 0, 'no trial ran on the second engine (the task\'s image never reached it)');
    for (const id of onSecond!) assert.ok(onFirst!.includes(id), `image ${id} on the second engine is not the first engine's (${onFirst!.join(', ')})`);
    for (const h of [first, second]) assert.equal(docker(h, 'ps', '-aq', '--filter', `label=taskwright.run=${created[0]}`), '', `containers left on ${h}`);
  });
});
