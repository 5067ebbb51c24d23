import fs from 'node:fs';
import path from 'node:path';
import { InfraError } from '../sandbox/runtime';
import type { Agent, AgentResult, TokenUsage, TrialSession } from './agent';
import { addUsage, type ChatMessage, type ChatModel, type ToolCall, type ToolResult, type ToolSpec } from './chat';
import { formatObservation, OBSERVATION_EDGE_BYTES } from './observation';
import { costUsd } from '../llm/prices';
import { providerInfraError } from './providerErrors';

export interface TerminalAgentOptions {
  /** Tool calls (and turns without one) before the agent's phase ends (default 20). */
  readonly maxSteps?: number;
  /** Per-command timeout inside the container, seconds (default 120). */
  readonly commandTimeoutSec?: number;
  /** Bytes kept from each end of an observation (default 5,000). */
  readonly observationEdgeBytes?: number;
  /** Keys given to the provider: redacted from anything its errors echo before it is logged. */
  readonly knownSecrets?: readonly string[];
}

export const DEFAULT_MAX_STEPS = 20;
export const DEFAULT_COMMAND_TIMEOUT_SEC = 120;
export const TRAJECTORY_FILE = 'trajectory.jsonl';

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'bash',
    description: 'Run a shell command in the task\'s Linux container (non-interactive bash, working directory kept between commands only if you cd in the same command). Returns stdout, stderr and the exit code.',
    parameters: { type: 'object', properties: { command: { type: 'string', description: 'The command to run.' } }, required: ['command'] },
  },
  {
    name: 'submit',
    description: 'Call when the task is done. Ends your turn; the task is then checked.',
    parameters: { type: 'object', properties: {} },
  },
];

export function systemPrompt(maxSteps: number, timeoutSec: number): string {
  return [
    'You are an autonomous agent solving a task in a Linux container through a terminal.',
    'Use the `bash` tool to run commands; each command runs on its own (no interactive programs), with a',
    `${timeoutSec} s limit; long outputs are shortened in the middle. You have at most ${maxSteps} tool calls.`,
    'Work until the task is complete, check your work, then call `submit`.',
  ].join(' ');
}

type Parsed = { readonly ok: true; readonly command?: string; readonly submit?: boolean } | { readonly ok: false; readonly error: string };

/** Validates one tool call; anything the tools cannot run is reported back to the model as an error. */
export function parseToolCall(call: ToolCall): Parsed {
  let args: unknown = call.args;
  if (typeof args === 'string') {
    if (args.trim() === '') args = {};
    else {
      try {
        args = JSON.parse(args) as unknown;
      } catch (e) {
        return { ok: false, error: `the arguments of ${call.name} are not valid JSON (${e instanceof Error ? e.message : String(e)}): ${String(call.args).slice(0, 200)}` };
      }
    }
  }
  if (call.name === 'submit') return { ok: true, submit: true };
  if (call.name !== 'bash') return { ok: false, error: `unknown tool '${call.name}': the tools are bash(command) and submit()` };
  const command = typeof args === 'object' && args !== null ? (args as { command?: unknown }).command : undefined;
  if (typeof command !== 'string' || command.trim() === '') return { ok: false, error: 'bash needs a non-empty string argument "command"' };
  return { ok: true, command };
}

/**
 * The built-in terminal agent: a tool-use loop where the model runs `bash(command)` in the trial's
 * container and ends with `submit()`. A request the provider understood and rejected is the
 * policy's failed attempt (`status: 'error'`); a provider that cannot be reached, refuses the key or
 * does not know the model, and the engine's faults, escape as `InfraError` so the runner counts them
 * apart (retries, or stops the run) and the verifier never scores an attempt that did not happen.
 */
export class TerminalAgent implements Agent {
  readonly maxSteps: number;
  readonly commandTimeoutSec: number;
  private readonly edge: number;
  private readonly secrets: readonly string[];

  constructor(readonly spec: string, private readonly chat: ChatModel, options: TerminalAgentOptions = {}) {
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.commandTimeoutSec = options.commandTimeoutSec ?? DEFAULT_COMMAND_TIMEOUT_SEC;
    this.edge = options.observationEdgeBytes ?? OBSERVATION_EDGE_BYTES;
    this.secrets = options.knownSecrets ?? [];
  }

  get model(): string {
    return this.chat.model;
  }

  async run(session: TrialSession, signal: AbortSignal): Promise<AgentResult> {
    const trajectory = path.join(session.logDir, TRAJECTORY_FILE);
    const record = (entry: Record<string, unknown>): void => {
      fs.appendFileSync(trajectory, `${JSON.stringify({ t: new Date().toISOString(), ...entry })}\n`);
    };
    const instruction = session.task.instruction ?? '';
    const system = systemPrompt(this.maxSteps, this.commandTimeoutSec);
    const messages: ChatMessage[] = [{ role: 'user', text: instruction }];
    let usage: TokenUsage = { input: 0, output: 0 };
    let steps = 0;
    let turns = 0;
    record({ type: 'start', agent: this.spec, provider: this.chat.provider, model: this.chat.model, maxSteps: this.maxSteps, commandTimeoutSec: this.commandTimeoutSec });
    const done = (status: AgentResult['status'], note: string, error?: string): AgentResult => {
      const cost = costUsd(this.chat.model, usage);
      record({ type: 'end', status, note, steps, turns, usage, ...(cost !== undefined ? { costUsd: cost } : {}), ...(error ? { error } : {}) });
      session.log(`[${this.spec}: ${note}; ${steps} step(s), ${usage.input} in / ${usage.output} out tokens${cost !== undefined ? `, $${cost.toFixed(4)}` : ''}]`);
      return { status, steps, usage, ...(cost !== undefined ? { costUsd: cost } : {}), ...(error ? { error } : {}) };
    };

    while (steps < this.maxSteps) {
      if (signal.aborted) return done('error', 'stopped', 'aborted');
      let turn;
      try {
        turn = await this.chat.turn(system, messages, TOOLS, signal);
      } catch (e) {
        if (e instanceof InfraError) throw e;
        if (signal.aborted) return done('error', 'stopped', 'aborted');
        // A model that never answered made no attempt: that is the provider's fault (unreachable:
        // infra, retried; key or model refused: the run stops), never a scored failure.
        const p = providerInfraError(e, `${this.chat.provider} ${this.chat.model}`, this.secrets);
        if (p.infra) {
          done('error', 'model server failed', p.message);
          throw p.infra;
        }
        return done('error', 'model request failed', p.message);
      }
      turns++;
      usage = addUsage(usage, turn.usage);
      record({ type: 'model', turn: turns, text: turn.text, ...(turn.reasoning ? { reasoning: turn.reasoning } : {}), toolCalls: turn.toolCalls, usage: turn.usage, stopReason: turn.stopReason });
      messages.push({ role: 'assistant', text: turn.text, toolCalls: turn.toolCalls, ...(turn.reasoning ? { reasoning: turn.reasoning } : {}), ...(turn.raw !== undefined ? { raw: turn.raw } : {}) });
      if (turn.toolCalls.length === 0) {
        steps++;
        record({ type: 'nudge', step: steps });
        messages.push({ role: 'user', text: 'No tool was called. Use the bash tool to work on the task, or call submit() when it is done.' });
        continue;
      }
      const results: ToolResult[] = [];
      let submitted = false;
      for (const call of turn.toolCalls) {
        if (submitted) {
          results.push({ id: call.id, content: 'ignored: submit() was already called', isError: true });
          continue;
        }
        const parsed = parseToolCall(call);
        if (!parsed.ok) {
          steps++;
          record({ type: 'tool-error', step: steps, tool: call.name, error: parsed.error });
          results.push({ id: call.id, content: `error: ${parsed.error}`, isError: true });
        } else if (parsed.submit) {
          submitted = true;
          results.push({ id: call.id, content: 'submitted', isError: false });
        } else if (steps >= this.maxSteps) {
          results.push({ id: call.id, content: 'not run: the step limit is reached', isError: true });
        } else {
          steps++;
          const r = await session.exec(parsed.command!, { timeoutSec: this.commandTimeoutSec, signal });
          const observation = formatObservation(r, this.commandTimeoutSec, this.edge);
          record({ type: 'bash', step: steps, command: parsed.command, exitCode: r.exitCode, timedOut: r.timedOut, durationMs: r.durationMs, output: observation });
          results.push({ id: call.id, content: observation, isError: false });
        }
      }
      messages.push({ role: 'tool', results });
      if (submitted) return done('completed', 'submitted');
    }
    return done('completed', `step limit (${this.maxSteps}) reached`);
  }
}
