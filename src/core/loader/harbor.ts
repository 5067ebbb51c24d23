import { LineIndex } from '../model/positions';
import type { Task, TaskStep } from '../model/task';
import { ConfigReader } from './configReader';
import type { TaskFiles } from './files';
import { readConfig } from './parseConfig';
import { placeholderInstruction } from './placeholderInstruction';
import type { ProblemSink } from './problems';
import { HARBOR_KEYS, reportUnknownKeys } from './schema';
import { isRecord } from './sourceMap';
import { DIFFICULTIES, TB1_DEFAULTS } from './tb1';

/** Harbor defaults, as in harbor's models/task/config.py (agent timeout: Harbor's own 600 s default). */
export const HARBOR_DEFAULTS = { verifierTimeoutSec: 600, agentTimeoutSec: 600, buildTimeoutSec: 600 } as const;

export const HARBOR_SCHEMA_VERSIONS: readonly string[] = ['1.0', '1.1', '1.2', '1.3'];
export const HARBOR_NETWORK_MODES: readonly string[] = ['public', 'no-network', 'allowlist'];

const CONFIG = 'task.toml';

export async function loadHarbor(id: string, files: TaskFiles, fileList: readonly string[], problems: ProblemSink): Promise<Task> {
  const has = (f: string): boolean => files.listed(fileList, f);
  const read = await readConfig(files, CONFIG, problems);
  const reader = read?.reader ?? new ConfigReader(CONFIG, {}, new Map(), problems);
  reportUnknownKeys(reader, HARBOR_KEYS, problems, 'Harbor');
  for (const section of ['task', 'metadata', 'verifier', 'agent', 'environment', 'solution']) {
    const v = reader.raw(section);
    if (v !== undefined && !isRecord(v)) reader.invalid(section, 'a table');
  }
  const fields = reader.fieldSources();
  const tableRange = (section: string): ReturnType<ConfigReader['keyRange']> =>
    isRecord(reader.raw(section)) ? reader.keyRange(section) : undefined;

  // Harbor's TaskConfig renames a top-level `version` to `schema_version` (unless both are set) and
  // types it as a free string: it validates no value and reads the tables the same whatever it says.
  // So neither the outdated key name nor an unfamiliar value stops Harbor. The old name alone is
  // said nowhere (most Terminal-Bench 2 tasks carry `version = "1.0"`, read exactly as schema_version);
  // an unfamiliar value is a note (info); a non-string value, which Harbor's model refuses, is
  // reported by reader.string as an invalid value.
  const schemaKey = reader.has('schema_version') ? 'schema_version' : reader.has('version') ? 'version' : undefined;
  let schemaVersion: string | undefined;
  if (schemaKey) {
    schemaVersion = reader.string(schemaKey);
    if (schemaVersion !== undefined && !HARBOR_SCHEMA_VERSIONS.includes(schemaVersion)) {
      const old = schemaKey === 'version' ? ' (`version` is the outdated name of schema_version; Harbor reads it as that)' : '';
      problems.add('unsupported-schema-version', CONFIG, reader.valueRange(schemaKey),
        `${schemaKey} "${schemaVersion}"${old} is not one Taskwright knows (${HARBOR_SCHEMA_VERSIONS.join(', ')}); Harbor does not check the value and reads the tables as its current schema, and so does Taskwright`);
    }
  }

  // Multi-step tasks keep each step's instruction, tests and solution under steps/<name>/; the task
  // is shown (and validated) through its first step, with the task-level tests/ as Harbor's fallback.
  const steps = reader.raw('steps');
  // A step name is a folder name: anything that could climb out of the task folder is not followed.
  const stepNames = (Array.isArray(steps) ? steps : []).map((st) => (isRecord(st) ? st['name'] : undefined))
    .filter((n): n is string => typeof n === 'string' && /^(?!\.\.?$)[\w.-]+$/.test(n));
  const firstStep = stepNames[0];
  const stepDir = firstStep !== undefined ? `steps/${firstStep}/` : '';
  const instructionFile = `${stepDir}instruction.md`;
  const where = stepDir ? `in ${stepDir}` : 'next to task.toml';

  let instruction: string | undefined;
  const instr = await files.read(instructionFile);
  if (instr && 'text' in instr) {
    instruction = instr.text;
    const lines = new LineIndex(instr.text);
    fields['instruction'] = { file: instructionFile, range: lines.rangeOf(0, instr.text.length) };
    if (instr.text.trim() === '') problems.add('missing-instruction', instructionFile, undefined, `${instructionFile} is empty`);
    const placeholder = placeholderInstruction(instr.text);
    if (placeholder) problems.add('missing-instruction', instructionFile, undefined, `${instructionFile} describes no task: ${placeholder}. Write the instruction the agent receives.`);
  } else if (instr && 'tooLarge' in instr) {
    problems.add('missing-instruction', instructionFile, undefined, `${instructionFile} is ${instr.tooLarge} bytes; it was not read`);
  } else {
    const astray = firstStep === undefined ? misplaced(fileList, 'instruction.md') : undefined;
    if (astray) problems.add('missing-instruction', astray, undefined, `no instruction.md ${where} (the prompt the agent receives); this ${astray} is not read: Harbor reads instruction.md next to task.toml`);
    else problems.add('missing-instruction', CONFIG, firstStep !== undefined ? reader.keyRange('steps.0.name') : undefined,
      `no instruction.md ${where} (the prompt the agent receives)`);
  }

  // Metadata: free-form in Harbor; read the well-known keys, fall back to [task] package info.
  // Harbor validates nothing in [metadata]: an unusual difficulty ("very hard") is a label, not an error.
  const rawDifficulty = reader.string('metadata.difficulty');
  const difficulty = DIFFICULTIES.find((d) => d === rawDifficulty) ?? 'unknown';
  const authors = reader.raw('task.authors');
  const firstAuthor = Array.isArray(authors) && isRecord(authors[0]) ? authors[0] : undefined;
  const authorName = reader.string('metadata.author_name') ?? (typeof firstAuthor?.['name'] === 'string' ? firstAuthor['name'] : undefined);
  const authorEmail = reader.string('metadata.author_email') ?? (typeof firstAuthor?.['email'] === 'string' ? firstAuthor['email'] : undefined);
  const tags = reader.stringList('metadata.tags') ?? reader.stringList('task.keywords') ?? [];
  const estimatedDurationSec = reader.number('metadata.estimated_duration_sec', { min: 0 });
  const expertTimeEstimateMin = reader.number('metadata.expert_time_estimate_min', { min: 0 });
  const juniorTimeEstimateMin = reader.number('metadata.junior_time_estimate_min', { min: 0 });
  // Harbor (since its [task] package section, March 2026) validates [task] as a registry package:
  // `name` is required, in org/name form (harbor.constants ORG_NAME_PATTERN); anything else fails
  // TaskConfig and the task does not load. Older Harbor ignored [task], so a warning, not an error.
  const packageName = reader.string('task.name');
  if (isRecord(reader.raw('task'))) {
    if (packageName === undefined && reader.raw('task.name') === undefined) {
      problems.add('config-invalid-value', CONFIG, reader.keyRange('task'), '[task] in task.toml has no `name`: current Harbor reads [task] as the registry package and requires `name = "org/name"`, so it does not load this task (keep other metadata under [metadata])', 'warning');
    } else if (packageName !== undefined && (!HARBOR_PACKAGE_NAME.test(packageName) || packageName.includes('..'))) {
      reader.invalid('task.name', 'in Harbor\'s org/name form (e.g. "acme/hello-world"): current Harbor does not load a task whose [task] name is not', 'warning');
    }
  }
  reader.string('task.description');
  // Harbor's TaskConfig takes `artifacts` as a list (paths, or tables with source/destination): a
  // table (`[artifacts] paths = […]`) fails validation and current Harbor does not load the task.
  const artifacts = reader.raw('artifacts');
  if (artifacts !== undefined && artifacts !== null && !Array.isArray(artifacts)) {
    reader.invalid('artifacts', 'a list (`artifacts = ["/app/out.json"]` at the top level): current Harbor does not load a task whose artifacts are not', 'warning');
  }

  // Environment.
  const env = 'environment';
  const buildSec = reader.number(`${env}.build_timeout_sec`, { positive: true }) ?? HARBOR_DEFAULTS.buildTimeoutSec;
  const dockerImage = reader.string(`${env}.docker_image`);
  const os = reader.string(`${env}.os`)?.toLowerCase();
  const cpus = reader.number(`${env}.cpus`, { positive: true });
  const memoryMb = legacySize(reader, `${env}.memory`) ?? reader.number(`${env}.memory_mb`, { positive: true, integer: true });
  const storageMb = legacySize(reader, `${env}.storage`) ?? reader.number(`${env}.storage_mb`, { positive: true, integer: true });
  const gpus = reader.number(`${env}.gpus`, { min: 0, integer: true });
  const workdir = reader.string(`${env}.workdir`);
  const networkMode = networkModeOf(reader, env);
  const dockerfile = ['environment/Dockerfile'].find(has);
  let misplacedDockerfile: string | undefined;
  // Harbor reads environment/docker-compose.yaml only: a `.yml` beside it is not the environment.
  const composeFile = ['environment/docker-compose.yaml'].find(has);
  if (!dockerfile && !composeFile && !dockerImage) {
    // Said where the reader looks: at a file standing where the folder should be, or a Dockerfile in the wrong place.
    const astray = ['environment', 'Dockerfile', 'docker-compose.yaml', 'docker-compose.yml', 'environment/docker-compose.yml'].find(has) ?? misplaced(fileList, 'environment/Dockerfile')
      ?? ['dockerfile', 'environment'].map((n) => sameButCase(fileList, n)).find((f) => f !== undefined);
    const why = astray === undefined ? undefined : astrayEnvironmentWhy(astray);
    misplacedDockerfile = astray !== undefined && /(^|\/)Dockerfile$/.test(astray) ? astray : undefined;
    const envFiles = fileList.filter((f) => f.startsWith('environment/'));
    // An environment/ kept on purpose without a Dockerfile — a placeholder (git keeps no empty folder),
    // or scripts the [environment] table itself runs (a healthcheck's `bash /app/driver/setup.sh` that
    // boots a macOS simulator): the task is written for a provider that brings its own machine, which
    // Harbor's docker environment is not. Readers judged those deliberate (blind6, blind9): a note.
    // Data alone in environment/ (a local runner copies it somewhere) is still a task Harbor cannot
    // run (blind2), as is one with no environment/ or its Dockerfile astray: an error.
    const envTable = JSON.stringify(reader.raw(env) ?? {});
    const runByTable = envFiles.some((f) => /\.(sh|bash|py|ps1)$/.test(f) && envTable.includes(f.slice('environment/'.length)));
    // `[environment] type = "cloudlab"` / `"vm-cluster"` (blind13), `definition = "org/shared-env"`
    // (blind14): keys Harbor's task config does not have (its provider is chosen at run time and builds
    // environment/Dockerfile); the task names a runtime or an environment defined elsewhere, judged
    // deliberate: a note, as for a provider's machine.
    const foreign = (['type', 'definition'] as const).map((k) => ({ k, v: reader.raw(`${env}.${k}`) }))
      .find(({ k, v }) => typeof v === 'string' && v.trim() !== '' && !(k === 'type' && /^docker(-compose)?$/i.test(v)));
    const foreignType = foreign ? `${foreign.k} = "${String(foreign.v)}"` : undefined;
    const otherRuntime = foreignType !== undefined;
    if (astray && why) problems.add('missing-environment', astray, undefined, `no environment: ${why} (expected environment/Dockerfile, environment/docker-compose.yaml or [environment] docker_image)`);
    else if (otherRuntime) {
      problems.add('missing-environment', CONFIG, tableRange(env),
        `no container environment: [environment] ${foreignType} names an environment from elsewhere (Harbor's task config has no such key; Harbor picks its provider at run time and builds environment/Dockerfile), so only the runtime that knows it can run this task; Harbor's docker environment (and Taskwright's sandbox) need environment/Dockerfile, environment/docker-compose.yaml or [environment] docker_image`, 'info');
    } else if (envFiles.length > 0 && (runByTable || envFiles.every((f) => PLACEHOLDER_FILE.test(f)))) {
      const shown = envFiles.slice(0, 3).map((f) => f.slice('environment/'.length)).join(', ') + (envFiles.length > 3 ? ` and ${envFiles.length - 3} more` : '');
      problems.add('missing-environment', CONFIG, tableRange(env),
        `no container environment: environment/ holds ${shown} but no Dockerfile, so only an environment provider that brings its own machine can run this task; Harbor's docker environment (and Taskwright's sandbox) need environment/Dockerfile, environment/docker-compose.yaml or [environment] docker_image`, 'info');
    } else problems.add('missing-environment', CONFIG, tableRange(env),
      'no environment: expected environment/Dockerfile, environment/docker-compose.yaml or [environment] docker_image');
  }

  // Verifier and agent.
  const windows = os === 'windows';
  const testScript = windows ? 'tests/test.bat' : 'tests/test.sh';
  const testEntry = stepDir && has(`${stepDir}${testScript}`) ? `${stepDir}${testScript}` : testScript;
  const verifierSec = reader.number('verifier.timeout_sec', { positive: true }) ?? HARBOR_DEFAULTS.verifierTimeoutSec;
  const verifierUser = reader.stringOrInt('verifier.user');
  const verifierNetwork = networkModeOf(reader, 'verifier');
  const separate = reader.string('verifier.environment_mode') === 'separate';
  let misplacedEntry: string | undefined;
  if (!has(testEntry)) {
    const expected = `no ${stepDir ? `${stepDir}${testScript} or ${testScript}` : testScript}: the verifier has no entry script to run`;
    // A verifier script under a near name (test/, environment/tests/): the finding goes on it.
    const name = testScript.slice('tests/'.length);
    const near = [`test/${name}`, `environment/tests/${name}`, `environment/${testScript}`, name].find(has) ?? (stepDir ? undefined : misplaced(fileList, testScript));
    misplacedEntry = near;
    if (near) problems.add('missing-test-entry', near, undefined, `${expected}; this ${name} is not it: Harbor runs ${testScript} from the task folder${near.startsWith('environment/') ? ', and a copy in environment/ is built into the agent\'s image' : ''}`);
    else problems.add('missing-test-entry', CONFIG, tableRange('verifier'), expected);
  }
  const agentSec = reader.number('agent.timeout_sec', { positive: true }) ?? HARBOR_DEFAULTS.agentTimeoutSec;
  reader.number('agent.setup_timeout_sec', { positive: true });
  const agentUser = reader.stringOrInt('agent.user');
  const agentNetwork = networkModeOf(reader, 'agent');

  const solveName = windows ? 'solution/solve.bat' : 'solution/solve.sh';
  // A step without its own solution falls back to the task-level one, as the tests do.
  const solveFile = stepDir && !has(`${stepDir}${solveName}`) && has(solveName) ? solveName : `${stepDir}${solveName}`;
  reader.stringMap('solution.env');
  let misplacedSolution: string | undefined;
  if (!has(solveFile)) {
    const expected = `no reference solution (${solveFile}): the task runs without one, but the oracle cannot prove it solvable`;
    // A solution in another language in its place (`solution/solve.py` alone): the finding goes on it,
    // since Harbor's oracle runs only the entry script.
    const astray = stepDir ? undefined : misplaced(fileList, solveName) ?? ['solve.sh', 'solution.sh'].find(has) ?? sameButCase(fileList, 'solve.sh') ?? sameButCase(fileList, solveName)
      ?? fileList.find((f) => /^solution\/(solve|solution|oracle)\.\w+$/.test(f));
    misplacedSolution = astray;
    if (astray) problems.add('missing-solution', astray, undefined, `${expected}; this ${astray.split('/').pop()} is not it: Harbor runs ${solveName} from the task folder`);
    else problems.add('missing-solution', CONFIG, tableRange('solution'), expected);
  }

  const taskSteps = await loadSteps(files, stepNames, fileList, testScript, windows, problems);
  const strategy = reader.string('multi_step_reward_strategy');

  return {
    id,
    dir: files.dir,
    format: 'harbor',
    configFile: CONFIG,
    instructionFile,
    ...(instruction !== undefined ? { instruction } : {}),
    metadata: {
      ...(authorName !== undefined ? { authorName } : {}),
      ...(authorEmail !== undefined ? { authorEmail } : {}),
      difficulty,
      category: reader.string('metadata.category') ?? TB1_DEFAULTS.category,
      tags,
      ...(estimatedDurationSec !== undefined ? { estimatedDurationSec } : {}),
      ...(expertTimeEstimateMin !== undefined ? { expertTimeEstimateMin } : {}),
      ...(juniorTimeEstimateMin !== undefined ? { juniorTimeEstimateMin } : {}),
    },
    timeouts: { agentSec, verifierSec, buildSec },
    environment: {
      ...(dockerfile ? { dockerfile } : {}),
      contextDir: 'environment',
      ...(composeFile ? { composeFile } : {}),
      ...(dockerImage !== undefined ? { dockerImage } : {}),
      ...(cpus !== undefined ? { cpus } : {}),
      ...(memoryMb !== undefined ? { memoryMb } : {}),
      ...(storageMb !== undefined ? { storageMb } : {}),
      ...(gpus !== undefined ? { gpus } : {}),
      env: reader.stringMap(`${env}.env`) ?? {},
      ...(workdir !== undefined ? { workdir } : {}),
      ...(networkMode !== undefined ? { networkMode } : {}),
      ...(misplacedDockerfile !== undefined ? { misplacedDockerfile } : {}),
    },
    verifier: {
      entry: testEntry,
      ...stepTests(fileList, stepDir),
      env: reader.stringMap('verifier.env') ?? {},
      ...(verifierUser !== undefined ? { user: verifierUser } : {}),
      ...(verifierNetwork !== undefined ? { networkMode: verifierNetwork } : {}),
      ...(separate ? { separate } : {}),
      ...(misplacedEntry !== undefined ? { misplacedEntry } : {}),
    },
    agent: {
      ...(agentUser !== undefined ? { user: agentUser } : {}),
      ...(agentNetwork !== undefined ? { networkMode: agentNetwork } : {}),
    },
    solution: { ...(has(solveFile) ? { file: solveFile } : {}), kind: 'script', ...(misplacedSolution !== undefined ? { misplacedFile: misplacedSolution } : {}) },
    ...(schemaVersion !== undefined ? { schemaVersion } : {}),
    fields,
    files: fileList,
    problems: problems.items,
    ...(taskSteps.length > 1 ? { steps: taskSteps } : {}),
    ...(strategy !== undefined ? { multiStepRewardStrategy: strategy } : {}),
  };
}

/**
 * Every step's files, as Harbor resolves them: the step folder first, the task-level tests/ and
 * solution/ as fallbacks. Steps after the first report their own missing instruction.
 */
async function loadSteps(files: TaskFiles, names: readonly string[], fileList: readonly string[], testScript: string, windows: boolean, problems: ProblemSink): Promise<TaskStep[]> {
  const has = (f: string): boolean => files.listed(fileList, f);
  const out: TaskStep[] = [];
  for (const [i, name] of names.entries()) {
    const dir = `steps/${name}/`;
    const instructionFile = `${dir}instruction.md`;
    const got = i === 0 ? undefined : await files.read(instructionFile);
    if (i > 0 && !(got && 'text' in got)) problems.add('missing-instruction', CONFIG, undefined, `no instruction.md in ${dir} (the prompt step ${name} gives the agent)`);
    const solve = windows ? 'solution/solve.bat' : 'solution/solve.sh';
    const solutionFile = [`${dir}${solve}`, solve].find(has);
    out.push({
      name, instructionFile,
      ...(got && 'text' in got ? { instruction: got.text } : {}),
      verifierEntry: has(`${dir}${testScript}`) ? `${dir}${testScript}` : testScript,
      ...stepTests(fileList, dir),
      ...(solutionFile ? { solutionFile } : {}),
    });
  }
  return out;
}

/** Files that only keep an otherwise empty folder in git. */
const PLACEHOLDER_FILE = /(^|\/)\.(gitkeep|keep|gitignore)$/;

/** Harbor's package name: `org/name`, each part starting alphanumeric (harbor.constants ORG_NAME_PATTERN). */
const HARBOR_PACKAGE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*\/[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

/** Why a file found in place of the environment is not one, as the missing-environment finding says it. */
function astrayEnvironmentWhy(astray: string): string {
  if (astray === 'environment') return 'environment is a file, not a folder, so there is nothing to build';
  if (astray.toLowerCase() === 'environment') return `${astray} is a file, not the folder environment/, so there is nothing to build`;
  if (astray === 'environment/docker-compose.yml') return 'Harbor reads environment/docker-compose.yaml, not .yml';
  if (astray.includes('/')) return `${astray} is not where Harbor looks: it builds environment/Dockerfile`;
  return `${astray} is at the task root, but Harbor builds environment/${astray}`;
}

/** A top-level file whose name differs from `name` only in case (`Solve.sh`, `DockerFile`): Harbor's paths are case-sensitive. */
function sameButCase(fileList: readonly string[], name: string): string | undefined {
  const want = name.toLowerCase();
  return fileList.find((f) => f !== name && f.toLowerCase() === want);
}

/**
 * A part of the task kept somewhere Harbor does not look (`environment/instruction.md`,
 * `environment/tests/tests/test.sh`): the least deep such path (then the shortest), outside steps/, when there is one.
 */
function misplaced(fileList: readonly string[], part: string): string | undefined {
  const depth = (f: string): number => f.split('/').length;
  return fileList.filter((f) => f !== part && f.endsWith(`/${part}`) && !f.startsWith('steps/'))
    .sort((a, b) => depth(a) - depth(b) || a.length - b.length || a.localeCompare(b))[0];
}

/**
 * A step's tests folder: its own `steps/<name>/tests` when it has one, with the task-level `tests/`
 * under it (Harbor uploads that first, so its helpers and fallback test.sh serve every step), else
 * the task-level one alone.
 */
function stepTests(fileList: readonly string[], stepDir: string): { testsDir: string; sharedTestsDir?: string } {
  if (!stepDir || !fileList.some((f) => f.startsWith(`${stepDir}tests/`))) return { testsDir: 'tests' };
  return { testsDir: `${stepDir}tests`, ...(fileList.some((f) => f.startsWith('tests/')) ? { sharedTestsDir: 'tests' } : {}) };
}

/** Harbor's `network_mode`, or the legacy `allow_internet` boolean mapped onto it. */
function networkModeOf(reader: ConfigReader, section: string): string | undefined {
  const mode = reader.string(`${section}.network_mode`);
  if (mode !== undefined) {
    if (!HARBOR_NETWORK_MODES.includes(mode)) reader.invalid(`${section}.network_mode`, `one of ${HARBOR_NETWORK_MODES.join(', ')}`, 'warning');
    return mode;
  }
  if (section !== 'environment') return undefined;
  const allow = reader.boolean(`${section}.allow_internet`);
  return allow === undefined ? undefined : allow ? 'public' : 'no-network';
}

/** Legacy sizes like "2G", "512M", "1024K" in MB, as Harbor's `_parse_size_to_mb` reads them. */
function legacySize(reader: ConfigReader, path: string): number | undefined {
  const v = reader.string(path);
  if (v === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([GMK])\s*$/i.exec(v);
  if (!m) { reader.invalid(path, 'a size like "2G", "512M" or "1024K"'); return undefined; }
  const n = Number(m[1]);
  const unit = (m[2] as string).toUpperCase();
  return Math.floor(unit === 'G' ? n * 1024 : unit === 'M' ? n : n / 1024);
}
