import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { detectFormat, isTaskConfigFile, loadTask } from '../../src/core/loader/index';
import type { Finding } from '../../src/core/model/finding';
import { range } from '../../src/core/model/positions';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/loader');
const fixture = (rel: string): string => path.join(FIXTURES, ...rel.split('/'));

function only(problems: readonly Finding[], rule: string): Finding {
  const found = problems.filter((p) => p.rule === rule);
  assert.equal(found.length, 1, `expected one ${rule}, got ${JSON.stringify(problems, null, 1)}`);
  return found[0] as Finding;
}

void describe('loader: Terminal-Bench 1', () => {
  void it('loads a complete task.yaml task with every field and its source range', async () => {
    const t = await loadTask(fixture('tb1/hello-world'));
    assert.equal(t.format, 'tb1');
    assert.equal(t.id, 'hello-world');
    assert.equal(t.dir, fixture('tb1/hello-world'));
    assert.equal(t.configFile, 'task.yaml');
    assert.equal(t.instructionFile, 'task.yaml');
    assert.equal(t.instruction, 'Create a file called /app/hello.txt. Write "Hello, world!" to it.');
    assert.deepEqual(t.metadata, {
      authorName: 'Ada Example',
      authorEmail: 'ada@example.com',
      difficulty: 'easy',
      category: 'file-operations',
      tags: ['file-operations', 'beginner'],
      expertTimeEstimateMin: 1,
      juniorTimeEstimateMin: 5,
    });
    assert.deepEqual(t.timeouts, { agentSec: 900, verifierSec: 180, buildSec: 600 });
    assert.deepEqual(t.environment, { dockerfile: 'Dockerfile', contextDir: '.', composeFile: 'docker-compose.yaml', env: {} });
    assert.deepEqual(t.verifier, { entry: 'run-tests.sh', testsDir: 'tests', env: {}, parserName: 'pytest', runTestsInSameShell: false });
    assert.deepEqual(t.solution, { file: 'solution.sh', kind: 'script' });
    assert.deepEqual(t.files, ['Dockerfile', 'docker-compose.yaml', 'run-tests.sh', 'solution.sh', 'task.yaml', 'tests/test_outputs.py']);
    assert.deepEqual(t.problems, []);
    // The block scalar runs from its `|-` indicator to the end of its last line.
    assert.deepEqual(t.fields['instruction'], { file: 'task.yaml', range: range(0, 13, 1, 67), keyRange: range(0, 0, 0, 11) });
    assert.deepEqual(t.fields['max_test_timeout_sec'], { file: 'task.yaml', range: range(11, 22, 11, 27), keyRange: range(11, 0, 11, 20) });
    assert.deepEqual(t.fields['tags.1'], { file: 'task.yaml', range: range(8, 4, 8, 12) });
  });

  void it('reads solution.yaml commands and warns that the default runner replaces a missing run-tests.sh', async () => {
    const t = await loadTask(fixture('tb1/fix-permissions'));
    assert.equal(t.solution.kind, 'yaml');
    assert.equal(t.solution.file, 'solution.yaml');
    assert.deepEqual(t.solution.commands, [
      { command: 'ls -l /app/process_data.sh', minTimeoutSec: 0.1, block: true, append_enter: true },
      { command: 'chmod +x /app/process_data.sh', minTimeoutSec: 0.1, block: true, append_enter: true },
      { command: '/app/process_data.sh', minTimeoutSec: 0.1, block: true, append_enter: true },
    ]);
    assert.equal(t.timeouts.verifierSec, 60, 'max_test_timeout_sec defaults to 60');
    const p = only(t.problems, 'missing-test-entry');
    assert.equal(p.severity, 'warning');
    assert.equal(p.file, 'task.yaml');
    assert.match(p.message, /^fix-permissions: .*run-tests\.sh/);
    assert.equal(t.problems.length, 1);
  });

  void it('applies the TB1 defaults when only the instruction is given', async () => {
    const dir = fixture('tb1/hello-world');
    const overlay = new Map([[path.join(dir, 'task.yaml'), 'instruction: Say hi.\n']]);
    const t = await loadTask(dir, { overlay });
    assert.equal(t.instruction, 'Say hi.');
    assert.deepEqual(t.metadata, { difficulty: 'unknown', category: 'software_engineering', tags: [] });
    assert.deepEqual(t.timeouts, { agentSec: 360, verifierSec: 60, buildSec: 600 });
    assert.equal(t.verifier.parserName, 'pytest');
    assert.equal(t.verifier.runTestsInSameShell, false);
    assert.deepEqual(t.problems, []);
  });

  void it('reports a missing instruction, an unknown difficulty, an unknown key and a wrongly typed value at their ranges', async () => {
    const t = await loadTask(fixture('malformed/yaml-no-instruction'));
    const instr = only(t.problems, 'missing-instruction');
    assert.equal(instr.severity, 'error');
    assert.equal(instr.file, 'task.yaml');
    assert.equal(instr.range, undefined);
    assert.match(instr.message, /^yaml-no-instruction: .*'instruction'/);
    assert.equal(t.instruction, undefined);

    const invalid = t.problems.filter((p) => p.rule === 'config-invalid-value');
    assert.deepEqual(invalid.map((p) => [p.severity, p.range]), [
      ['warning', range(2, 12, 2, 19)], // difficulty: extreme
      ['error', range(6, 22, 6, 27)], // max_test_timeout_sec: "180"
    ]);
    assert.equal(t.metadata.difficulty, 'unknown');
    assert.equal(t.timeouts.verifierSec, 60, 'a wrongly typed value falls back to the default');

    const unknown = only(t.problems, 'config-unknown-key');
    assert.equal(unknown.severity, 'info');
    assert.deepEqual(unknown.range, range(5, 0, 5, 17));
    assert.match(unknown.message, /max_agent_timeout/);

    assert.equal(only(t.problems, 'missing-solution').severity, 'warning');
    assert.equal(t.problems.every((p) => p.class === 'invalidity'), true);
  });

  void it('reports a YAML syntax error at the parser position and still reads the rest', async () => {
    const t = await loadTask(fixture('malformed/yaml-syntax-error'));
    const p = only(t.problems, 'config-parse-error');
    assert.equal(p.file, 'task.yaml');
    assert.deepEqual(p.range?.start, { line: 5, character: 0 });
    assert.equal(t.instruction, 'Compile the program in /app/src with make and put the binary in /app/bin.');
    assert.equal(t.metadata.difficulty, 'medium');
    assert.equal(t.problems.length, 1);
  });

  void it('reports a missing Dockerfile, missing tests and a non-mapping config without throwing', async () => {
    const dir = fixture('tb1/hello-world');
    const t = await loadTask(path.join(dir, 'tests'), {
      overlay: new Map([[path.join(dir, 'tests', 'task.yaml'), '- just\n- a list\n']]),
    });
    assert.equal(t.format, 'tb1');
    const rules = t.problems.map((p) => p.rule).sort();
    assert.deepEqual(rules, ['config-invalid-value', 'missing-environment', 'missing-instruction', 'missing-solution', 'missing-test-entry', 'missing-tests']);
    const env = only(t.problems, 'missing-environment');
    assert.equal(env.file, 'task.yaml');
    assert.match(env.message, /Dockerfile or docker-compose\.yaml/);
    assert.equal(only(t.problems, 'missing-tests').severity, 'warning');
  });
});

void describe('loader: Harbor', () => {
  void it('loads a complete task.toml task with every section and exact field ranges', async () => {
    const t = await loadTask(fixture('harbor/csv-summary'));
    assert.equal(t.format, 'harbor');
    assert.equal(t.configFile, 'task.toml');
    assert.equal(t.instructionFile, 'instruction.md');
    assert.match(t.instruction ?? '', /^# Sales summary/);
    assert.equal(t.schemaVersion, '1.3');
    assert.deepEqual(t.metadata, {
      authorName: 'Alan Example',
      authorEmail: 'alan@example.com',
      difficulty: 'medium',
      category: 'data-science',
      tags: ['csv', 'python', 'data-processing'],
      expertTimeEstimateMin: 10,
      juniorTimeEstimateMin: 30,
    });
    assert.deepEqual(t.timeouts, { agentSec: 900, verifierSec: 120, buildSec: 300 });
    assert.deepEqual(t.environment, {
      dockerfile: 'environment/Dockerfile',
      contextDir: 'environment',
      cpus: 1,
      memoryMb: 2048,
      storageMb: 10240,
      gpus: 0,
      env: { LANG: 'C.UTF-8', TZ: 'UTC' },
      workdir: '/app',
      networkMode: 'no-network',
    });
    assert.deepEqual(t.verifier, { entry: 'tests/test.sh', testsDir: 'tests', env: { PYTHONDONTWRITEBYTECODE: '1' }, user: 'root' });
    assert.deepEqual(t.agent, { user: 'agent' });
    assert.deepEqual(t.solution, { file: 'solution/solve.sh', kind: 'script' });
    assert.deepEqual(t.problems, []);
    assert.deepEqual(t.files, [
      'environment/Dockerfile', 'environment/sales.csv', 'instruction.md', 'solution/solve.sh', 'task.toml', 'tests/test.sh', 'tests/test_outputs.py',
    ]);

    assert.deepEqual(t.fields['verifier.timeout_sec'], { file: 'task.toml', range: range(18, 14, 18, 19), keyRange: range(18, 0, 18, 11) });
    assert.deepEqual(t.fields['verifier.env.PYTHONDONTWRITEBYTECODE'], { file: 'task.toml', range: range(19, 34, 19, 37), keyRange: range(19, 8, 19, 31) });
    assert.deepEqual(t.fields['environment'], { file: 'task.toml', range: range(26, 0, 26, 13), keyRange: range(26, 1, 26, 12) });
    assert.deepEqual(t.fields['metadata.difficulty'], { file: 'task.toml', range: range(11, 13, 11, 21), keyRange: range(11, 0, 11, 10) });
    assert.deepEqual(t.fields['task.authors.0.name'], { file: 'task.toml', range: range(5, 20, 5, 34), keyRange: range(5, 13, 5, 17) });
    assert.deepEqual(t.fields['instruction'], { file: 'instruction.md', range: range(0, 0, 6, 0) });
  });

  void it('reads legacy keys: version, memory/storage sizes, allow_internet, and docker_image as the environment', async () => {
    const t = await loadTask(fixture('harbor/legacy-resources'));
    assert.equal(t.schemaVersion, '1.0');
    assert.equal(t.environment.memoryMb, 2048);
    assert.equal(t.environment.storageMb, 10240);
    assert.equal(t.environment.networkMode, 'no-network');
    assert.equal(t.environment.dockerImage, 'ghcr.io/example/legacy-resources:20250101');
    assert.equal(t.environment.dockerfile, undefined);
    assert.deepEqual(t.timeouts, { agentSec: 1800, verifierSec: 300, buildSec: 600 });
    assert.deepEqual(t.fields['environment.memory'], { file: 'task.toml', range: range(17, 9, 17, 13), keyRange: range(17, 0, 17, 6) });
    assert.deepEqual(t.problems, []);
  });

  void it('reads a multi-step task through its first step, and reports a step without an instruction at its name', async () => {
    const dir = fixture('harbor/multi-step-notes');
    const t = await loadTask(dir);
    assert.equal(t.instructionFile, 'steps/scaffold/instruction.md');
    assert.match(t.instruction ?? '', /^Create `\/app\/notes\.py`/);
    assert.equal(t.verifier.entry, 'steps/scaffold/tests/test.sh');
    assert.equal(t.solution.file, 'steps/scaffold/solution/solve.sh');
    assert.deepEqual(t.problems, []);
    const renamed = readFileSync(path.join(dir, 'task.toml'), 'utf8').replace('name = "scaffold"', 'name = "setup"');
    const u = await loadTask(dir, { overlay: new Map([[path.join(dir, 'task.toml'), renamed]]) });
    const p = only(u.problems, 'missing-instruction');
    assert.deepEqual(p.range, range(16, 0, 16, 4));
    assert.match(p.message, /steps\/setup\//);
  });

  void it('applies Harbor defaults (600 s everywhere) to a minimal task.toml', async () => {
    const dir = fixture('harbor/csv-summary');
    const t = await loadTask(dir, { overlay: new Map([[path.join(dir, 'task.toml'), '[metadata]\n']]) });
    assert.deepEqual(t.timeouts, { agentSec: 600, verifierSec: 600, buildSec: 600 });
    assert.deepEqual(t.metadata, { difficulty: 'unknown', category: 'software_engineering', tags: [] });
    assert.equal(t.schemaVersion, undefined);
    assert.equal(t.environment.networkMode, undefined);
    assert.deepEqual(t.problems, []);
  });

  void it('reports a TOML syntax error at its line and keeps reading the other lines', async () => {
    const t = await loadTask(fixture('malformed/toml-syntax-error'));
    const p = only(t.problems, 'config-parse-error');
    assert.equal(p.severity, 'error');
    assert.equal(p.file, 'task.toml');
    assert.deepEqual(p.range, range(8, 18, 8, 18));
    assert.match(p.message, /^toml-syntax-error: task\.toml is not valid TOML: /);
    assert.equal(t.metadata.difficulty, 'easy', 'lines before the error are read');
    assert.equal(t.timeouts.agentSec, 600);
    assert.equal(t.problems.length, 1);
  });

  void it('reports bad values, unknown keys, an unsupported schema and missing files, each where it belongs', async () => {
    const t = await loadTask(fixture('malformed/harbor-bad-values'));
    const byRule = (rule: string): Finding[] => t.problems.filter((p) => p.rule === rule);
    const schema = only(t.problems, 'unsupported-schema-version');
    assert.equal(schema.severity, 'info', 'Harbor validates no schema value: a note, not a warning');
    assert.deepEqual(schema.range, range(0, 17, 0, 22));
    const unknown = only(t.problems, 'config-unknown-key');
    assert.deepEqual(unknown.range, range(13, 0, 13, 9));
    assert.match(unknown.message, /'memroy_mb' in \[environment\]/);
    // difficulty "brutal" is not one: Harbor's [metadata] is free-form, nothing validates it.
    assert.deepEqual(byRule('config-invalid-value').map((p) => [p.severity, p.range?.start.line, p.range?.start.character]), [
      ['error', 4, 7], // tags = "python"
      ['error', 14, 9], // memory = "lots"
      ['warning', 15, 15], // network_mode = "internet"
      ['error', 7, 14], // verifier.timeout_sec = "ten minutes"
      ['error', 10, 14], // agent.timeout_sec = -5
    ]);
    const instr = only(t.problems, 'missing-instruction');
    assert.equal(instr.file, 'task.toml');
    assert.match(instr.message, /instruction\.md/);
    const env = only(t.problems, 'missing-environment');
    assert.deepEqual(env.range, range(12, 1, 12, 12), 'on the [environment] header');
    assert.match(env.message, /environment\/Dockerfile/);
    assert.match(only(t.problems, 'missing-test-entry').message, /tests\/test\.sh/);
    assert.equal(byRule('missing-solution').length, 0);
    assert.deepEqual(t.timeouts, { agentSec: 600, verifierSec: 600, buildSec: 600 });
  });

  void it('says only what Harbor does with `version` and schema_version: a note for an unknown value, an error only for a non-string', async () => {
    const dir = fixture('harbor/csv-summary');
    const load = (toml: string): Promise<Awaited<ReturnType<typeof loadTask>>> =>
      loadTask(dir, { overlay: new Map([[path.join(dir, 'task.toml'), toml]]) });
    const schemaOf = (t: Awaited<ReturnType<typeof loadTask>>): Finding[] => t.problems.filter((p) => p.rule === 'unsupported-schema-version');
    // A template's `version = "2.0"`: Harbor renames the key and accepts the string; no warning or error.
    const template = await load('version = "2.0"\n[verifier]\ntimeout_sec = 120\n');
    assert.deepEqual(template.problems.filter((p) => p.severity !== 'info').map((p) => p.rule), []);
    const note = schemaOf(template);
    assert.equal(note.length, 1);
    assert.equal(note[0]?.severity, 'info');
    assert.match(note[0]?.message ?? '', /outdated name of schema_version/);
    assert.equal(template.timeouts.verifierSec, 120, 'the tables are read as usual');
    // The old key with a known value is read exactly as schema_version: nothing to say.
    assert.deepEqual(schemaOf(await load('version = "1.0"\n')), []);
    // The current key with a known value: quiet.
    assert.deepEqual(schemaOf(await load('schema_version = "1.1"\n')), []);
    // A number is what Harbor's model refuses (schema_version is a str): that one is an error.
    const num = await load('schema_version = 2\n');
    assert.deepEqual(schemaOf(num), []);
    assert.equal(only(num.problems, 'config-invalid-value').severity, 'error');
  });

  void it('keeps positions right with CRLF line ends and a byte-order mark (dropped, as editors do)', async () => {
    const dir = fixture('harbor/csv-summary');
    const toml = '\uFEFFschema_version = "9.9"\r\n[verifier]\r\ntimeout_sec = "x"\r\n';
    const t = await loadTask(dir, { overlay: new Map([[path.join(dir, 'task.toml'), toml]]) });
    assert.deepEqual(only(t.problems, 'unsupported-schema-version').range, range(0, 17, 0, 22));
    assert.deepEqual(only(t.problems, 'config-invalid-value').range, range(2, 14, 2, 17));
    const yamlDir = fixture('tb1/hello-world');
    const y = await loadTask(yamlDir, { overlay: new Map([[path.join(yamlDir, 'task.yaml'), 'instruction: hi\r\ndifficulty: x\r\n']]) });
    assert.deepEqual(only(y.problems, 'config-invalid-value').range, range(1, 12, 1, 13));
  });

  void it('prefers overlay text over disk for every file it reads', async () => {
    const dir = fixture('harbor/csv-summary');
    const overlay = new Map([[path.join(dir, 'instruction.md'), 'Unsaved instruction.\n']]);
    const t = await loadTask(dir, { overlay });
    assert.equal(t.instruction, 'Unsaved instruction.\n');
  });
});

void describe('loader: format detection', () => {
  void it('detects formats by config file and recognises config file names', async () => {
    assert.equal(await detectFormat(fixture('tb1/hello-world')), 'tb1');
    assert.equal(await detectFormat(fixture('harbor/csv-summary')), 'harbor');
    assert.equal(await detectFormat(FIXTURES), undefined);
    assert.equal(isTaskConfigFile('/x/y/task.yaml'), true);
    assert.equal(isTaskConfigFile('task.toml'), true);
    assert.equal(isTaskConfigFile('/x/task.yml'), false);
    assert.equal(isTaskConfigFile('/x/task.toml.bak'), false);
  });

  void it('loads a folder with no config, or no folder at all, as a task with problems instead of throwing', async () => {
    const t = await loadTask(path.join(FIXTURES, 'does-not-exist'));
    assert.equal(t.id, 'does-not-exist');
    assert.ok(t.problems.some((p) => p.rule === 'config-parse-error' && /not a folder/.test(p.message)));
    const u = await loadTask(fixture('harbor/csv-summary/tests'));
    assert.ok(u.problems.some((p) => p.rule === 'config-parse-error' && /no task\.yaml or task\.toml/.test(p.message)));
  });
});

void describe('loader: an instruction left as a scaffold generated it', () => {
  const dir = fixture('harbor/csv-summary');
  const withInstruction = (text: string): Promise<Awaited<ReturnType<typeof loadTask>>> =>
    loadTask(dir, { overlay: new Map([[path.join(dir, 'instruction.md'), text]]) });
  const GUIDANCE = '<!--\n  This file is the prompt handed to the agent.\n  Replace this comment with your instruction.\n  - Use absolute paths.\n-->\n';

  void it('reports an instruction that is only the guidance comment and a line asking to replace the file', async () => {
    const t = await withInstruction(`${GUIDANCE}\nReplace this file with your task instruction.\n`);
    const p = only(t.problems, 'missing-instruction');
    assert.equal(p.file, 'instruction.md');
    assert.equal(p.severity, 'error');
    assert.match(p.message, /describes no task: it holds only a template's placeholder \("Replace this file with your task instruction\."\)/);
  });

  void it('reports an instruction that is only an HTML comment, and a bare TODO', async () => {
    assert.match(only((await withInstruction(GUIDANCE)).problems, 'missing-instruction').message, /only an HTML comment/);
    assert.match(only((await withInstruction('TODO: write the task\n')).problems, 'missing-instruction').message, /placeholder \("TODO: write the task"\)/);
  });

  void it('keeps quiet on real instructions, short or long, even when they say "replace this file"', async () => {
    for (const text of [
      'Fix the failing test in /app.\n',
      `${GUIDANCE}\nSummarise /app/data.csv into /app/summary.json with the row count under "rows".\n`,
      'The team tried to replace this legacy writer but could only match bulk inserts. Write /app/writer.py so that every page it writes is byte-identical to the legacy one.\n',
    ]) assert.deepEqual((await withInstruction(text)).problems.filter((p) => p.rule === 'missing-instruction'), [], text);
  });

  void it('points a Terminal-Bench 1 task.yaml without `instruction` at the key its prompt sits under', async () => {
    const tb1 = fixture('tb1/hello-world');
    const yaml = readFileSync(path.join(tb1, 'task.yaml'), 'utf8').replace(/^instruction: \|-$/m, 'id: hello\ndescription: |-');
    const t = await loadTask(tb1, { overlay: new Map([[path.join(tb1, 'task.yaml'), yaml]]) });
    const p = only(t.problems, 'missing-instruction');
    assert.deepEqual(p.range, range(1, 0, 1, 11));
    assert.match(p.message, /its 'description' reads like one, but Terminal-Bench 1 reads only 'instruction': rename the key/);
  });

  void it('reports a Terminal-Bench 1 task.yaml whose instruction is a placeholder', async () => {
    const tb1 = fixture('tb1/hello-world');
    const yaml = readFileSync(path.join(tb1, 'task.yaml'), 'utf8').replace(/^instruction: \|-\n {2}.*$/m, 'instruction: |-\n  Your task instruction goes here.');
    const t = await loadTask(tb1, { overlay: new Map([[path.join(tb1, 'task.yaml'), yaml]]) });
    assert.deepEqual(t.problems.map((x) => x.rule), ['missing-instruction']);
    const p = only(t.problems, 'missing-instruction');
    assert.equal(p.file, 'task.yaml');
    assert.match(p.message, /the 'instruction' in task\.yaml describes no task/);
  });
});
