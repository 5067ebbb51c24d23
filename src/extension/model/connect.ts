import { connect, type ConnectOptions } from '../../core/llm/index';
import { parsePriceOverrides } from '../../core/llm/prices';
import type { ModelCaller } from '../../core/llm/request';
import type { Ctx } from '../context';
import { anthropicCredentials } from './keys';

/**
 * The model layer for an editor command: the key (model/keys.ts: SecretStorage, then the
 * environment), the base URL and auth header, price overrides from settings, the model asked for
 * (argument, then `taskwright.models.default`, then the default rule over the live list). Notices go
 * to the log. Returns undefined when there is no key (the user was asked).
 */
export async function connectModel(ctx: Ctx, what: string, requested: string | undefined, signal?: AbortSignal): Promise<ModelCaller | undefined> {
  const credentials = await anthropicCredentials(ctx, what);
  if (!credentials) return undefined;
  const setting = ctx.config.get('models.default').trim();
  const asked = requested && requested !== 'default' ? requested : setting || undefined;
  const { overrides, problems } = parsePriceOverrides(ctx.config.get('models.prices'));
  for (const p of problems) ctx.log.warn(`settings: taskwright.models.${p}`);
  const o: ConnectOptions = {
    credentials,
    ...(asked ? { model: asked, modelSource: requested && requested !== 'default' ? 'the command' : 'taskwright.models.default' } : {}),
    prices: overrides,
    onNotice: (line) => ctx.log.info(`model: ${line}`),
    ...(signal ? { signal } : {}),
  };
  return (await connect(o)).caller;
}
