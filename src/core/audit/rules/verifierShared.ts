/** What the verifier scripts share: their parsed scripts, ranges, called functions and whether the verifier is offline. */
import type { Range } from '../../model/positions';
import { type ShellCommand, type ShellScript } from '../../parse/shell';
import { parseYamlShared } from '../../parse/yamlShared';
import type { AuditContext } from '../context';

export const HARBOR_REWARD = /^\/logs\/verifier\/reward\.(txt|json)$/;

export function* scripts(ctx: AuditContext): Generator<{ file: string; script: ShellScript }> {
  for (const file of ctx.verifierScripts) {
    const script = ctx.shell(file);
    if (script) yield { file, script };
  }
}

/** Names of the shell functions the script calls outside their own bodies. */
const calledCache = new WeakMap<ShellScript, Set<string>>();
export function calledFunctions(script: ShellScript): Set<string> {
  let out = calledCache.get(script);
  if (!out) {
    out = new Set(script.commands.map((c) => c.name));
    calledCache.set(script, out);
  }
  return out;
}

/** The name of the function whose body holds `cmd` (empty when none). */
export function functionNameOf(script: ShellScript, cmd: ShellCommand): string {
  for (let p = cmd.node.parent; p; p = p.parent) {
    if (p.type === 'function_definition') {
      const n = p.children.find((c) => c.field === 'name');
      return n ? script.tree.text.slice(n.start, n.end) : '';
    }
  }
  return '';
}

export function cmdRange(ctx: AuditContext, file: string, cmd: ShellCommand): Range {
  return ctx.range(file, cmd.start, cmd.end);
}

/**
 * From the pytest word of a command to its end: in a command continued over lines
 * (`uvx \` / `--with pytest==8.4.1 \` / `pytest /tests/…`) the finding sits on the line that runs pytest.
 */
export function pytestRange(ctx: AuditContext, file: string, cmd: ShellCommand): Range {
  const w = [cmd.nameWord, ...cmd.args].find((x) => /(^|\/)(py\.test|pytest)$/.test(x.value));
  return ctx.range(file, w ? w.start : cmd.start, cmd.end);
}

/**
 * Whether the verifier can reach the internet. Terminal-Bench 1 always runs with network; Harbor's
 * default is `public`, cut by `network_mode = "no-network"` (or legacy `allow_internet = false`)
 * for the verifier or the whole environment. `allowlist` may leave the index out: not offline.
 */
export function verifierOffline(ctx: AuditContext): boolean {
  if (ctx.task.format !== 'harbor') return false;
  const mode = ctx.task.verifier.networkMode ?? ctx.task.environment.networkMode ?? 'public';
  return mode === 'no-network' || mode === 'none' || composeMainOffline(ctx);
}

/**
 * The compose file cuts Harbor's main service off the network (`network_mode: "none"`): the verifier
 * runs in that container, so it is offline whatever task.toml says.
 */
function composeMainOffline(ctx: AuditContext): boolean {
  const text = ctx.text(ctx.task.environment.composeFile);
  if (!text) return false;
  let doc: unknown;
  try { doc = parseYamlShared(text); } catch { return false; }
  const main = (doc as { services?: { main?: { network_mode?: unknown } } } | undefined)?.services?.main;
  return main?.network_mode === 'none';
}
