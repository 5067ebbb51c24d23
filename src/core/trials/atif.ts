import { isObject, num, splitCuts, str } from './files';
import type { TrialStep } from './model';
import type { TrajectoryEntry } from './taskwright';

/**
 * Harbor's Agent Trajectory Interchange Format (ATIF, RFC 0001, v1.0–v1.4): a root object with
 * `schema_version`, `session_id`, `agent {name, version, model_name?}` and `steps[]`, each step with
 * `step_id` (from 1), `source` (system | user | agent), `message`, and for agent steps optional
 * `reasoning_content`, `tool_calls[] {tool_call_id, function_name, arguments}`, `observation
 * {results[] {source_call_id?, content?}}` and `metrics {prompt_tokens, completion_tokens,
 * cached_tokens, cost_usd}`; optional `final_metrics` and `extra`.
 */
export const ATIF_VERSION = 'ATIF-v1.4';

export interface AtifToolCall { readonly tool_call_id: string; readonly function_name: string; readonly arguments: Record<string, unknown> }
export interface AtifResult { readonly source_call_id?: string; readonly content?: string }
export interface AtifMetrics { readonly prompt_tokens?: number; readonly completion_tokens?: number; readonly cached_tokens?: number; readonly cost_usd?: number; readonly extra?: Record<string, unknown> }
export interface AtifStep {
  readonly step_id: number;
  readonly timestamp?: string;
  readonly source: 'system' | 'user' | 'agent';
  readonly model_name?: string;
  readonly message: string;
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly AtifToolCall[];
  readonly observation?: { readonly results: readonly AtifResult[] };
  readonly metrics?: AtifMetrics;
  readonly extra?: Record<string, unknown>;
}
export interface AtifTrajectory {
  readonly schema_version: string;
  readonly session_id: string;
  readonly agent: { readonly name: string; readonly version: string; readonly model_name?: string; readonly extra?: Record<string, unknown> };
  readonly steps: readonly AtifStep[];
  readonly notes?: string;
  readonly final_metrics?: {
    readonly total_prompt_tokens?: number; readonly total_completion_tokens?: number; readonly total_cached_tokens?: number;
    readonly total_cost_usd?: number; readonly total_steps?: number; readonly extra?: Record<string, unknown>;
  };
  readonly extra?: Record<string, unknown>;
}

const SOURCES = ['system', 'user', 'agent'];

/** What breaks the ATIF shape in `v`, one message each (empty: a valid trajectory). */
export function validateAtif(v: unknown): string[] {
  const errs: string[] = [];
  if (!isObject(v)) return ['the trajectory is not a JSON object'];
  if (!str(v.schema_version)?.startsWith('ATIF-v1.')) errs.push(`schema_version must be "ATIF-v1.x" (got ${JSON.stringify(v.schema_version)})`);
  if (!str(v.session_id)) errs.push('session_id must be a non-empty string');
  if (!isObject(v.agent) || !str(v.agent.name) || typeof v.agent.version !== 'string') errs.push('agent needs a string name and version');
  if (!Array.isArray(v.steps)) return [...errs, 'steps must be an array'];
  v.steps.forEach((s: unknown, i) => {
    const at = `steps[${i}]`;
    if (!isObject(s)) return void errs.push(`${at} is not an object`);
    if (s.step_id !== i + 1) errs.push(`${at}.step_id must be ${i + 1} (got ${JSON.stringify(s.step_id)})`);
    if (!SOURCES.includes(s.source as string)) errs.push(`${at}.source must be system, user or agent`);
    if (typeof s.message !== 'string') errs.push(`${at}.message must be a string`);
    for (const k of ['reasoning_content', 'tool_calls', 'metrics', 'model_name']) if (s[k] !== undefined && s.source !== 'agent') errs.push(`${at}.${k} is only for agent steps`);
    if (s.tool_calls !== undefined) {
      if (!Array.isArray(s.tool_calls)) errs.push(`${at}.tool_calls must be an array`);
      else s.tool_calls.forEach((c: unknown, j) => {
        if (!isObject(c) || !str(c.tool_call_id) || !str(c.function_name) || !isObject(c.arguments)) errs.push(`${at}.tool_calls[${j}] needs tool_call_id, function_name and an arguments object`);
      });
    }
    if (s.observation !== undefined && (!isObject(s.observation) || !Array.isArray(s.observation.results))) errs.push(`${at}.observation needs a results array`);
    if (s.metrics !== undefined) {
      if (!isObject(s.metrics)) errs.push(`${at}.metrics must be an object`);
      else for (const k of ['prompt_tokens', 'completion_tokens', 'cached_tokens']) if (s.metrics[k] !== undefined && !Number.isInteger(s.metrics[k])) errs.push(`${at}.metrics.${k} must be an integer`);
    }
  });
  return errs;
}

/** The command a tool call ran: bash's `command`, Terminus's `keystrokes`, else the arguments as JSON. */
function commandOf(args: Record<string, unknown>): string {
  for (const k of ['command', 'keystrokes', 'cmd', 'code', 'script']) {
    const v = str(args[k]);
    if (v !== undefined) return v;
  }
  return JSON.stringify(args);
}

function exitCodeOf(r: Record<string, unknown>): number | null {
  const extra = isObject(r.extra) ? r.extra : {};
  return num(extra.exit_code) ?? num(extra.exitCode) ?? null;
}

/**
 * An ATIF trajectory as viewer steps: each tool call of an agent step is a command step (its
 * observation matched by `source_call_id`, else by position); the turn's message and reasoning go
 * with its first call; an agent step without calls is a message step; user and system steps keep
 * their text (the first user step is the instruction, returned apart).
 */
export function stepsFromAtif(v: unknown): { steps: TrialStep[]; instruction?: string; usage?: { input: number; output: number; cacheRead?: number }; costUsd?: number } {
  const steps: TrialStep[] = [];
  if (!isObject(v) || !Array.isArray(v.steps)) return { steps };
  let instruction: string | undefined;
  let input = 0, output = 0, cached = 0, cost = 0, metered = false, priced = false;
  const push = (s: Omit<TrialStep, 'index'>): void => {
    steps.push({ index: steps.length + 1, ...s });
  };
  for (const raw of v.steps as unknown[]) {
    if (!isObject(raw)) continue;
    const at = str(raw.timestamp);
    const when = at ? { at } : {};
    const message = str(raw.message)?.trim() ?? '';
    const reasoning = str(raw.reasoning_content)?.trim();
    const results = isObject(raw.observation) && Array.isArray(raw.observation.results) ? raw.observation.results.filter(isObject) : [];
    if (isObject(raw.metrics)) {
      const m = raw.metrics;
      if (num(m.prompt_tokens) !== undefined || num(m.completion_tokens) !== undefined) metered = true;
      input += num(m.prompt_tokens) ?? 0;
      output += num(m.completion_tokens) ?? 0;
      cached += num(m.cached_tokens) ?? 0;
      if (num(m.cost_usd) !== undefined) { priced = true; cost += num(m.cost_usd)!; }
    }
    if (raw.source === 'user' && instruction === undefined && steps.length === 0) {
      instruction = message;
      continue;
    }
    if (raw.source !== 'agent') {
      push({ kind: raw.source === 'system' ? 'system' : 'user', ...when, message, ...(results.length ? { output: splitCuts(results.map((r) => str(r.content) ?? '').join('\n')) } : {}) });
      continue;
    }
    const calls = Array.isArray(raw.tool_calls) ? raw.tool_calls.filter(isObject) : [];
    let said = false;
    const turn = (): Pick<TrialStep, 'message' | 'reasoning'> => {
      if (said) return {};
      said = true;
      return { ...(message ? { message } : {}), ...(reasoning ? { reasoning } : {}) };
    };
    const used = new Set<Record<string, unknown>>();
    calls.forEach((c, i) => {
      const id = str(c.tool_call_id);
      const r = results.find((x) => id !== undefined && x.source_call_id === id) ?? results.filter((x) => x.source_call_id === undefined && !used.has(x))[0] ?? (calls.length === results.length ? results[i] : undefined);
      if (r) used.add(r);
      const args = isObject(c.arguments) ? c.arguments : {};
      push({
        kind: 'command', ...when, tool: str(c.function_name) ?? 'tool', command: commandOf(args),
        exitCode: r ? exitCodeOf(r) : null, ...(r ? { output: splitCuts(str(r.content) ?? '') } : {}), ...turn(),
      });
    });
    const rest = results.filter((r) => !used.has(r) && (calls.length === 0 || r.source_call_id === undefined));
    if (calls.length === 0 || rest.length) {
      push({ kind: 'message', ...when, ...turn(), ...(rest.length ? { output: splitCuts(rest.map((r) => str(r.content) ?? '').join('\n')) } : {}) });
    }
  }
  const fm = isObject(v.final_metrics) ? v.final_metrics : {};
  const totalIn = num(fm.total_prompt_tokens) ?? (metered ? input : undefined);
  const totalOut = num(fm.total_completion_tokens) ?? (metered ? output : undefined);
  const totalCached = num(fm.total_cached_tokens) ?? (metered && cached ? cached : undefined);
  const totalCost = num(fm.total_cost_usd) ?? (priced ? cost : undefined);
  return {
    steps,
    ...(instruction !== undefined ? { instruction } : {}),
    ...(totalIn !== undefined && totalOut !== undefined ? { usage: { input: totalIn, output: totalOut, ...(totalCached !== undefined ? { cacheRead: totalCached } : {}) } } : {}),
    ...(totalCost !== undefined ? { costUsd: totalCost } : {}),
  };
}

export interface AtifExportInput {
  readonly trial: string;
  readonly agent: string;
  readonly agentVersion: string;
  readonly model?: string;
  readonly instruction?: string;
  readonly entries: readonly TrajectoryEntry[];
  /** The trial's verdict, kept in `extra` (ATIF has no field for it). */
  readonly outcome?: string;
  readonly reward?: number | null;
}

function argsObject(a: unknown): Record<string, unknown> {
  if (isObject(a)) return a;
  if (typeof a === 'string' && a.trim()) {
    try {
      const v = JSON.parse(a) as unknown;
      if (isObject(v)) return v;
    } catch {
      // Kept as text: the model sent arguments that are not JSON (the agent told it so).
    }
    return { raw: a };
  }
  return {};
}

/**
 * Taskwright's `trajectory.jsonl` as ATIF: the instruction (when known) is step 1 (user); each model
 * turn is an agent step whose tool calls get the command results that followed it, in order (the
 * agent runs a turn's calls in order and records each bash or tool error; `submit` records nothing);
 * a nudge is a user step. Token counts: Taskwright's `input` excludes cache reads, ATIF's
 * `prompt_tokens` includes them.
 */
export function toAtif(x: AtifExportInput): AtifTrajectory {
  const steps: AtifStep[] = [];
  const add = (s: Omit<AtifStep, 'step_id'>): void => {
    steps.push({ step_id: steps.length + 1, ...s } as AtifStep);
  };
  if (x.instruction !== undefined) add({ source: 'user', message: x.instruction });
  let start: TrajectoryEntry | undefined;
  let end: TrajectoryEntry | undefined;
  const es = x.entries;
  for (let i = 0; i < es.length; i++) {
    const e = es[i]!;
    const ts = str(e.t);
    const when = ts ? { timestamp: ts } : {};
    if (e.type === 'start') start = e;
    else if (e.type === 'end') end = e;
    else if (e.type === 'nudge') add({ source: 'user', ...when, message: 'No tool was called. Use the bash tool to work on the task, or call submit() when it is done.', extra: { taskwright: 'nudge' } });
    else if (e.type === 'model') {
      const calls = Array.isArray(e.toolCalls) ? e.toolCalls.filter(isObject) : [];
      const toolCalls: AtifToolCall[] = calls.map((c, j) => ({ tool_call_id: str(c.id) || `call_${i}_${j}`, function_name: str(c.name) ?? 'unknown', arguments: argsObject(c.args) }));
      const results: AtifResult[] = [];
      let k = i + 1;
      for (const c of toolCalls) {
        if (c.function_name === 'submit') { results.push({ source_call_id: c.tool_call_id, content: 'submitted' }); continue; }
        const next = es[k];
        if (next && (next.type === 'bash' || next.type === 'tool-error')) {
          results.push({ source_call_id: c.tool_call_id, content: next.type === 'bash' ? (str(next.output) ?? '') : `error: ${str(next.error) ?? ''}` });
          k++;
        }
      }
      const u = isObject(e.usage) ? e.usage : {};
      const cacheRead = num(u.cacheRead) ?? 0;
      const metrics: AtifMetrics = {
        ...(num(u.input) !== undefined ? { prompt_tokens: num(u.input)! + cacheRead } : {}),
        ...(num(u.output) !== undefined ? { completion_tokens: num(u.output)! } : {}),
        ...(cacheRead ? { cached_tokens: cacheRead } : {}),
        ...(num(u.cacheWrite) ? { extra: { cache_creation_input_tokens: num(u.cacheWrite) } } : {}),
      };
      const model = x.model ?? str(start?.model);
      add({
        source: 'agent', ...when, ...(model ? { model_name: model } : {}), message: str(e.text) ?? '',
        ...(str(e.reasoning) ? { reasoning_content: str(e.reasoning) } : {}),
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        ...(results.length ? { observation: { results } } : {}),
        ...(Object.keys(metrics).length ? { metrics } : {}),
      });
      i = k - 1;
    }
  }
  const usage = isObject(end?.usage) ? end.usage : undefined;
  const cacheRead = num(usage?.cacheRead) ?? 0;
  const model = x.model ?? str(start?.model);
  const cost = num(end?.costUsd);
  return {
    schema_version: ATIF_VERSION,
    session_id: x.trial,
    agent: { name: x.agent, version: x.agentVersion, ...(model ? { model_name: model } : {}), extra: { harness: 'taskwright', ...(str(start?.provider) ? { provider: str(start?.provider) } : {}) } },
    steps,
    ...(x.instruction === undefined ? { notes: 'The instruction was not recorded with the trial (its task folder was not found): the trajectory starts at the first model turn.' } : {}),
    final_metrics: {
      ...(usage && num(usage.input) !== undefined ? { total_prompt_tokens: num(usage.input)! + cacheRead } : {}),
      ...(usage && num(usage.output) !== undefined ? { total_completion_tokens: num(usage.output)! } : {}),
      ...(cacheRead ? { total_cached_tokens: cacheRead } : {}),
      ...(cost !== undefined ? { total_cost_usd: cost } : {}),
      total_steps: steps.length,
      ...(end ? { extra: { status: end.status, note: end.note, agent_steps: end.steps } } : {}),
    },
    extra: { ...(x.outcome ? { outcome: x.outcome } : {}), ...(x.reward !== undefined ? { reward: x.reward } : {}) },
  };
}
