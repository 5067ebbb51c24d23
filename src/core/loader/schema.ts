import type { ConfigReader } from './configReader';
import type { ProblemSink } from './problems';

/**
 * The keys each format knows. `free` marks a table whose keys are the author's (metadata, env maps,
 * lists); anything else not listed is reported as `config-unknown-key` (info): the tools ignore it, so
 * it is usually a typo.
 */
export type KeySchema = { readonly [key: string]: KeySchema | 'leaf' | 'free' };

export const TB1_KEYS: KeySchema = {
  instruction: 'leaf',
  author_name: 'leaf',
  author_email: 'leaf',
  difficulty: 'leaf',
  category: 'leaf',
  tags: 'free',
  parser_name: 'leaf',
  max_agent_timeout_sec: 'leaf',
  max_test_timeout_sec: 'leaf',
  run_tests_in_same_shell: 'leaf',
  disable_asciinema: 'leaf',
  estimated_duration_sec: 'leaf',
  expert_time_estimate_min: 'leaf',
  junior_time_estimate_min: 'leaf',
  // Early Terminal-Bench tasks: instruction variants and extra test scripts.
  descriptions: 'free',
  test_scripts: 'free',
};

const HARBOR_NETWORK = { network_mode: 'leaf', allowed_hosts: 'free' } as const;

const HARBOR_ENVIRONMENT: KeySchema = {
  build_timeout_sec: 'leaf',
  docker_image: 'leaf',
  os: 'leaf',
  cpus: 'leaf',
  memory_mb: 'leaf',
  storage_mb: 'leaf',
  gpus: 'leaf',
  gpu_types: 'free',
  tpu: 'free',
  env: 'free',
  workdir: 'leaf',
  mcp_servers: 'free',
  skills_dir: 'leaf',
  healthcheck: 'free',
  ...HARBOR_NETWORK,
  // Legacy spellings Harbor still reads: memory/storage as "2G", allow_internet as a boolean.
  memory: 'leaf',
  storage: 'leaf',
  allow_internet: 'leaf',
};

export const HARBOR_KEYS: KeySchema = {
  schema_version: 'leaf',
  version: 'leaf',
  source: 'leaf',
  task: { name: 'leaf', description: 'leaf', authors: 'free', keywords: 'free' },
  metadata: 'free',
  verifier: {
    timeout_sec: 'leaf',
    env: 'free',
    user: 'leaf',
    environment_mode: 'leaf',
    environment: HARBOR_ENVIRONMENT,
    collect: 'free',
    ...HARBOR_NETWORK,
  },
  agent: { timeout_sec: 'leaf', setup_timeout_sec: 'leaf', user: 'leaf', ...HARBOR_NETWORK },
  environment: HARBOR_ENVIRONMENT,
  solution: { env: 'free' },
  steps: 'free',
  artifacts: 'free',
  multi_step_reward_strategy: 'leaf',
};

/** Reports every key the schema does not know, once per unknown key, at the key. */
export function reportUnknownKeys(reader: ConfigReader, schema: KeySchema, problems: ProblemSink, taskFormat: string): void {
  const reported = new Set<string>();
  for (const [p, entry] of reader.sources) {
    const segs = p.split('.');
    let node: KeySchema | 'leaf' | 'free' = schema;
    for (let i = 0; i < segs.length; i++) {
      if (node === 'leaf' || node === 'free') break;
      const next: KeySchema | 'leaf' | 'free' | undefined = Object.prototype.hasOwnProperty.call(node, segs[i] as string)
        ? node[segs[i] as string]
        : undefined;
      if (next === undefined) {
        const prefix = segs.slice(0, i + 1).join('.');
        if (!reported.has(prefix)) {
          reported.add(prefix);
          const at = reader.sources.get(prefix) ?? entry;
          const where = i === 0 ? 'at the top level' : `in [${segs.slice(0, i).join('.')}]`;
          problems.add('config-unknown-key', reader.file, at.keyRange ?? at.valueRange,
            `unknown key '${segs[i]}' ${where} of ${reader.file}; ${taskFormat} ignores it (a typo?)`);
        }
        break;
      }
      node = next;
    }
  }
}
