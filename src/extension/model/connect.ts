import * as vscode from 'vscode';
import { credentialsFrom } from '../../core/llm/client';
import { connect, type ConnectOptions } from '../../core/llm/index';
import { parsePriceOverrides } from '../../core/llm/prices';
import type { ModelCaller } from '../../core/llm/request';
import type { Ctx } from '../context';

/** SecretStorage name of the key; the same one policy agents read (`taskwright.<ENV NAME>`). */
export const API_KEY_SECRET = 'taskwright.ANTHROPIC_API_KEY';
export const SET_API_KEY_COMMAND = 'taskwright.generate.setApiKey';

/** The key from SecretStorage, then the environment; asks to store one when there is none. */
export async function apiKey(ctx: Ctx, what: string): Promise<string | undefined> {
  const stored = (await ctx.extension.secrets.get(API_KEY_SECRET)) ?? process.env.ANTHROPIC_API_KEY;
  if (stored) return stored;
  const set = 'Set API Key';
  const choice = await vscode.window.showWarningMessage(`Taskwright: ${what} needs an Anthropic API key.`, set);
  if (choice !== set) return undefined;
  await vscode.commands.executeCommand(SET_API_KEY_COMMAND);
  return ctx.extension.secrets.get(API_KEY_SECRET);
}

/**
 * The model layer for an editor command: the key (SecretStorage or environment), the base URL and
 * auth header, price overrides from settings, the model asked for (argument, then
 * `taskwright.models.default`, then the default rule over the live list). Notices go to the log.
 * Returns undefined when there is no key (the user was asked).
 */
export async function connectModel(ctx: Ctx, what: string, requested: string | undefined, signal?: AbortSignal): Promise<ModelCaller | undefined> {
  const key = await apiKey(ctx, what);
  if (!key) return undefined;
  const setting = ctx.config.get('models.default').trim();
  const asked = requested && requested !== 'default' ? requested : setting || undefined;
  const { overrides, problems } = parsePriceOverrides(ctx.config.get('models.prices'));
  for (const p of problems) ctx.log.warn(`settings: taskwright.models.${p}`);
  const o: ConnectOptions = {
    credentials: credentialsFrom(() => undefined, process.env, { apiKey: key, authHeader: ctx.config.get('models.authHeader') }),
    ...(asked ? { model: asked, modelSource: requested && requested !== 'default' ? 'the command' : 'taskwright.models.default' } : {}),
    prices: overrides,
    onNotice: (line) => ctx.log.info(`model: ${line}`),
    ...(signal ? { signal } : {}),
  };
  return (await connect(o)).caller;
}
