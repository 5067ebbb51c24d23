import * as vscode from 'vscode';
import type { Agent } from '../../core/agents/agent';
import { createAgent } from '../../core/agents/factory';
import { createPolicyAgent } from '../../core/agents/policy';
import { credentialsFrom, type Credentials, type SecretLookup, type SecretName } from '../../core/llm/client';
import type { CommandSpec } from '../commands/command';
import type { Ctx } from '../context';

/**
 * The one home of model keys in the editor. Every path that talks to a model — Generate Tasks…,
 * Review Task, Fix with Claude, and the policy agents of Rerun Task…, Run Policy…, Resume Run…, the
 * Testing view — reads its key here: the editor's SecretStorage first (set with "Set API Key…"),
 * then the environment variable of the same name, as the CLI does.
 */
export const SECRET_NAMES: readonly SecretName[] = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY'];
export const SET_API_KEY_COMMAND = 'taskwright.models.setApiKey';

const KEY_LABEL: Readonly<Record<SecretName, string>> = {
  ANTHROPIC_API_KEY: 'Anthropic API key',
  ANTHROPIC_AUTH_TOKEN: 'Anthropic auth token (OAuth or gateway, sent as Bearer)',
  OPENAI_API_KEY: 'OpenAI-compatible API key (openai:<model>@<url> policies)',
};

/** SecretStorage name of a key: `taskwright.<ENV NAME>`. */
export const secretId = (name: SecretName): string => `taskwright.${name}`;

/** Every key, stored or from the environment, as one lookup (read once: a lookup is synchronous). Never logged. */
export async function keyLookup(ctx: Ctx, env: NodeJS.ProcessEnv = process.env): Promise<SecretLookup> {
  const values = new Map<SecretName, string>();
  for (const name of SECRET_NAMES) {
    const v = (await ctx.extension.secrets.get(secretId(name))) || env[name];
    if (v) values.set(name, v);
  }
  return (name) => values.get(name);
}

/** How the Anthropic key travels (`taskwright.models.authHeader`). */
function authHeader(ctx: Ctx): Credentials['authHeader'] {
  return ctx.config.get('models.authHeader');
}

/**
 * Anthropic credentials for `what` (a phrase for the message: "generating tasks"): the stored key or
 * token, then the environment's. With none, says so and offers "Set API Key…"; undefined when the
 * user did not set one.
 */
export async function anthropicCredentials(ctx: Ctx, what: string): Promise<Credentials | undefined> {
  const found = credentialsFrom(await keyLookup(ctx), process.env, { authHeader: authHeader(ctx) });
  if (found.apiKey || found.authToken) return found;
  const set = 'Set API Key…';
  const choice = await vscode.window.showWarningMessage(`Taskwright: ${what} needs an Anthropic API key (or ANTHROPIC_API_KEY in the environment).`, set);
  if (choice !== set) return undefined;
  await vscode.commands.executeCommand(SET_API_KEY_COMMAND, undefined);
  const again = credentialsFrom(await keyLookup(ctx), process.env, { authHeader: authHeader(ctx) });
  return again.apiKey || again.authToken ? again : undefined;
}

/** An agent from its spec; policy agents get their keys from here (stored, then the environment). */
export async function agentFromSpec(ctx: Ctx, spec: string): Promise<Agent> {
  if (spec === 'oracle' || spec === 'nop') return createAgent(spec);
  const header = authHeader(ctx);
  return createPolicyAgent(spec, { secrets: await keyLookup(ctx), ...(header ? { anthropicAuthHeader: header } : {}) });
}

function isSecretName(v: unknown): v is SecretName {
  return typeof v === 'string' && (SECRET_NAMES as readonly string[]).includes(v);
}

/**
 * Taskwright: Set API Key… — the one key command: which key (the Anthropic key first), then its value,
 * kept in the editor's SecretStorage only (never in settings or logs); empty deletes it. Arguments
 * (keybindings, tests): a string is the Anthropic API key; `{ name, value }` sets any of the keys.
 */
export const setApiKeyCommand: CommandSpec = {
  id: SET_API_KEY_COMMAND,
  async run(ctx: Ctx, arg?: unknown) {
    let name: SecretName | undefined;
    let value: string | undefined;
    if (typeof arg === 'string') {
      name = 'ANTHROPIC_API_KEY';
      value = arg;
    } else if (typeof arg === 'object' && arg !== null && isSecretName((arg as { name?: unknown }).name)) {
      name = (arg as { name: SecretName }).name;
      const v = (arg as { value?: unknown }).value;
      value = typeof v === 'string' ? v : undefined;
    }
    if (!name) {
      const picked = await vscode.window.showQuickPick(SECRET_NAMES.map((n) => ({ label: KEY_LABEL[n], description: n, name: n })), {
        title: 'Set API Key', placeHolder: 'Which key (each is read before the environment variable of the same name)',
      });
      if (!picked) return undefined;
      name = picked.name;
    }
    if (value === undefined) {
      value = await vscode.window.showInputBox({
        title: `Set API Key: ${name}`, prompt: `${KEY_LABEL[name]} (kept in the editor's secret storage; empty to delete)`, password: true, ignoreFocusOut: true,
      });
      if (value === undefined) return undefined;
    }
    const v = value.trim();
    if (v) await ctx.extension.secrets.store(secretId(name), v);
    else await ctx.extension.secrets.delete(secretId(name));
    void vscode.window.showInformationMessage(`Taskwright: ${KEY_LABEL[name]} ${v ? 'stored' : 'deleted'}.`);
    return undefined;
  },
};
