import type { Difficulty, SolutionCommand, Task, TaskSolution } from '../model/task';
import { ConfigReader } from './configReader';
import type { TaskFiles } from './files';
import { parseYamlConfig, readConfig } from './parseConfig';
import { placeholderInstruction } from './placeholderInstruction';
import type { ProblemSink } from './problems';
import { reportUnknownKeys, TB1_KEYS } from './schema';
import { isRecord } from './sourceMap';

/** Terminal-Bench 1 defaults, as in terminal_bench/handlers/trial_handler.py (`Task`). */
export const TB1_DEFAULTS = {
  category: 'software_engineering',
  parserName: 'pytest',
  agentTimeoutSec: 360,
  testTimeoutSec: 60,
  // TB1 has no build timeout of its own; Taskwright gives image builds ten minutes, as Harbor does.
  buildTimeoutSec: 600,
} as const;

/** Top-level keys authors put the prompt under when they miss `instruction`. */
const PROMPT_LIKE_KEYS = ['description', 'prompt', 'task', 'instructions', 'task_description', 'problem_statement', 'problem'];

export const DIFFICULTIES: readonly Difficulty[] = ['easy', 'medium', 'hard', 'unknown'];

const CONFIG = 'task.yaml';

export async function loadTb1(id: string, files: TaskFiles, fileList: readonly string[], problems: ProblemSink): Promise<Task> {
  const has = (f: string): boolean => files.listed(fileList, f);
  const read = await readConfig(files, CONFIG, problems);
  let reader = read?.reader ?? new ConfigReader(CONFIG, {}, new Map(), problems);
  if (read && reader.data !== undefined && reader.data !== null && !isRecord(reader.data)) {
    problems.add('config-invalid-value', CONFIG, undefined, `${CONFIG} must be a mapping of keys to values`);
    reader = new ConfigReader(CONFIG, {}, new Map(), problems);
  }
  reportUnknownKeys(reader, TB1_KEYS, problems, 'Terminal-Bench');

  const fields = reader.fieldSources();
  let instruction: string | undefined;
  const rawInstruction = reader.raw('instruction');
  if (rawInstruction === undefined || rawInstruction === null) {
    // Early Terminal-Bench tasks kept instruction variants under `descriptions` (the `base` one is used).
    const fromDescriptions = descriptionsInstruction(reader);
    if (fromDescriptions) {
      instruction = fromDescriptions.text;
      if (fromDescriptions.source) fields['instruction'] = fromDescriptions.source;
    } else {
      // The prompt written under a key Terminal-Bench 1 does not read (`description:`): point there.
      const astray = rawInstruction === null ? undefined : PROMPT_LIKE_KEYS.find((k) => typeof reader.raw(k) === 'string' && (reader.raw(k) as string).trim() !== '');
      problems.add('missing-instruction', CONFIG, rawInstruction === null ? reader.keyRange('instruction') : astray !== undefined ? reader.keyRange(astray) : undefined,
        astray !== undefined
          ? `${CONFIG} has no 'instruction' (the prompt the agent receives); its '${astray}' reads like one, but Terminal-Bench 1 reads only 'instruction': rename the key`
          : `${CONFIG} has no 'instruction' (the prompt the agent receives)`);
    }
  } else {
    instruction = reader.string('instruction');
    // Adapters that kept `descriptions` write `instruction: <key>` naming the variant to use.
    const keyed = instruction !== undefined && /^[\w-]+$/.test(instruction.trim()) ? descriptionsInstruction(reader, instruction.trim()) : undefined;
    if (keyed) {
      instruction = keyed.text;
      if (keyed.source) fields['instruction'] = keyed.source;
    } else if (instruction !== undefined && instruction.trim() === '') {
      problems.add('missing-instruction', CONFIG, reader.valueRange('instruction'), `the 'instruction' in ${CONFIG} is empty`);
    } else if (instruction !== undefined) {
      const placeholder = placeholderInstruction(instruction);
      if (placeholder) problems.add('missing-instruction', CONFIG, reader.valueRange('instruction'), `the 'instruction' in ${CONFIG} describes no task: ${placeholder}. Write the instruction the agent receives.`);
    }
  }

  const difficulty = reader.enumValue('difficulty', DIFFICULTIES) ?? 'unknown';
  const agentSec = reader.number('max_agent_timeout_sec', { positive: true }) ?? TB1_DEFAULTS.agentTimeoutSec;
  const testSec = reader.number('max_test_timeout_sec', { positive: true }) ?? TB1_DEFAULTS.testTimeoutSec;
  const authorName = reader.string('author_name');
  const authorEmail = reader.string('author_email');
  const estimatedDurationSec = reader.number('estimated_duration_sec', { min: 0 });
  const expertTimeEstimateMin = reader.number('expert_time_estimate_min', { min: 0 });
  const juniorTimeEstimateMin = reader.number('junior_time_estimate_min', { min: 0 });
  const disableAsciinema = reader.boolean('disable_asciinema') ?? false;
  const runTestsInSameShell = reader.boolean('run_tests_in_same_shell') ?? false;

  // Environment: the harness runs docker-compose.yaml (which builds the Dockerfile) in the task folder.
  const composeFile = ['docker-compose.yaml', 'docker-compose.yml'].find(has);
  const dockerfile = has('Dockerfile') ? 'Dockerfile' : undefined;
  if (!composeFile && !dockerfile) {
    problems.add('missing-environment', CONFIG, undefined,
      'no environment: expected a Dockerfile or docker-compose.yaml next to task.yaml');
  }

  // Verifier: without run-tests.sh the harness falls back to its default runner (pytest on
  // tests/test_outputs.py), so a missing script is a warning, not an error.
  if (!has('run-tests.sh')) {
    problems.add('missing-test-entry', CONFIG, undefined,
      "no run-tests.sh next to task.yaml: the harness's default runner (pytest tests/test_outputs.py) will be used", 'warning');
  }
  // The harness copies tests/ only when it exists: a run-tests.sh that writes its own tests (a
  // heredoc, or a test patch it applies, as SWE-bench-style tasks do) needs none.
  if (!(await files.isDir('tests')) && !(await writesOwnTests(files, has))) {
    // A test file left at the task root is where the fix goes: the harness copies only tests/ into $TEST_DIR.
    const stray = fileList.find((f) => /^(test_[\w-]*|[\w-]*_test)\.py$/.test(f));
    problems.add('missing-tests', stray ?? CONFIG, undefined, stray
      ? `no tests/ folder: ${stray} sits at the task root, but the harness copies only tests/ into $TEST_DIR, so the verifier finds no test file there. Move it to tests/${stray}.`
      : 'no tests/ folder: the verifier has no test files to copy into the container');
  }

  const solution = await tb1Solution(files, has, problems);

  return {
    id,
    dir: files.dir,
    format: 'tb1',
    configFile: CONFIG,
    instructionFile: CONFIG,
    ...(instruction !== undefined ? { instruction } : {}),
    metadata: {
      ...(authorName !== undefined ? { authorName } : {}),
      ...(authorEmail !== undefined ? { authorEmail } : {}),
      difficulty,
      category: reader.string('category') ?? TB1_DEFAULTS.category,
      tags: reader.stringList('tags') ?? [],
      ...(estimatedDurationSec !== undefined ? { estimatedDurationSec } : {}),
      ...(expertTimeEstimateMin !== undefined ? { expertTimeEstimateMin } : {}),
      ...(juniorTimeEstimateMin !== undefined ? { juniorTimeEstimateMin } : {}),
    },
    timeouts: { agentSec, verifierSec: testSec, buildSec: TB1_DEFAULTS.buildTimeoutSec },
    environment: {
      ...(dockerfile ? { dockerfile } : {}),
      contextDir: '.',
      ...(composeFile ? { composeFile } : {}),
      env: {},
    },
    verifier: {
      entry: 'run-tests.sh',
      testsDir: 'tests',
      env: {},
      parserName: reader.string('parser_name') ?? TB1_DEFAULTS.parserName,
      runTestsInSameShell,
    },
    agent: { recordsSession: !disableAsciinema },
    solution,
    fields,
    files: fileList,
    problems: problems.items,
  };
}

function descriptionsInstruction(reader: ConfigReader, key?: string): { text: string; source?: Task['fields'][string] } | undefined {
  const list = reader.raw('descriptions');
  if (!Array.isArray(list)) return undefined;
  const found = list.findIndex((d) => isRecord(d) && d['key'] === (key ?? 'base'));
  if (key !== undefined && found < 0) return undefined;
  const idx = Math.max(0, found);
  const entry: unknown = list[idx];
  if (!isRecord(entry) || typeof entry['description'] !== 'string') return undefined;
  const range = reader.valueRange(`descriptions.${idx}.description`);
  return { text: entry['description'], ...(range ? { source: { file: reader.file, range } } : {}) };
}

/** `solution.sh` wins over `solution.yaml`, as in the harness. */
async function tb1Solution(files: TaskFiles, has: (f: string) => boolean, problems: ProblemSink): Promise<TaskSolution> {
  if (has('solution.sh')) return { file: 'solution.sh', kind: 'script' };
  if (!has('solution.yaml')) {
    problems.add('missing-solution', CONFIG, undefined,
      'no reference solution (solution.sh or solution.yaml next to task.yaml): the task runs without one, but the oracle cannot prove it solvable');
    return { kind: 'script' };
  }
  const got = await files.read('solution.yaml');
  const commands: SolutionCommand[] = [];
  if (got && 'text' in got) {
    const reader = parseYamlConfig('solution.yaml', got.text, problems);
    const data = reader.data;
    if (data !== undefined && data !== null && !Array.isArray(data)) {
      problems.add('config-invalid-value', 'solution.yaml', undefined, 'solution.yaml must be a list of {command, min_timeout_sec, block, append_enter} entries');
    } else if (Array.isArray(data)) {
      data.forEach((item, i) => {
        if (!isRecord(item)) { reader.invalid(String(i), 'a table with a command'); return; }
        const command = reader.string(`${i}.command`);
        if (command === undefined) { reader.invalid(`${i}.command`, 'a string (the keystrokes to send)'); return; }
        const minTimeoutSec = reader.number(`${i}.min_timeout_sec`, { min: 0 });
        const block = reader.boolean(`${i}.block`);
        const appendEnter = reader.boolean(`${i}.append_enter`);
        commands.push({
          command,
          ...(minTimeoutSec !== undefined ? { minTimeoutSec } : {}),
          ...(block !== undefined ? { block } : {}),
          ...(appendEnter !== undefined ? { append_enter: appendEnter } : {}),
        });
      });
    }
  }
  return { file: 'solution.yaml', kind: 'yaml', commands };
}

/** Whether run-tests.sh writes the tests it runs (a heredoc, or a test patch it applies). */
async function writesOwnTests(files: TaskFiles, has: (f: string) => boolean): Promise<boolean> {
  if (!has('run-tests.sh')) return false;
  const got = await files.read('run-tests.sh');
  return got !== undefined && 'text' in got && /<<-?\s*['"]?\w+|\bgit\s+apply\b|\bpatch\s+-p/.test(got.text);
}
