import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';
import { escapeRegExp } from '../../parse/regex';
import { composeServices } from './tb1Compose';

/** One thing a service takes from the Docker host by a fixed name: a host port or a container name. */
interface Binding { readonly service: string; readonly what: string; readonly at: number; readonly length: number }

/**
 * The host port of a short-syntax `ports` entry (`"8081:8080"`, `"127.0.0.1:5432:5432"`, `8080:80/tcp`),
 * when it is a literal number. A container port alone (`"8000"`), a range (Docker picks a free port
 * in it) or a variable (`${PORT}:80`, the harness may set it) takes no fixed host port.
 */
function fixedHostPort(entry: unknown): string | undefined {
  if (typeof entry === 'number') return undefined;
  if (typeof entry === 'string') {
    const parts = entry.replace(/\/\w+$/, '').split(':');
    if (parts.length < 2) return undefined;
    const host = parts[parts.length - 2]!.trim();
    return /^\d+$/.test(host) ? host : undefined;
  }
  if (entry && typeof entry === 'object') {
    const published = (entry as { published?: unknown }).published;
    if (typeof published === 'number') return String(published);
    if (typeof published === 'string' && /^\d+$/.test(published.trim())) return published.trim();
  }
  return undefined;
}

/** Where `key:` is written inside the service's block, searched from the service's name on. */
function keyOffset(text: string, service: string, pattern: RegExp): number {
  const head = new RegExp(`^[ \\t]+["']?${escapeRegExp(service)}["']?\\s*:`, 'm').exec(text);
  const from = head ? head.index : 0;
  const rest = text.slice(from);
  const m = pattern.exec(rest);
  return m ? from + m.index + (m[0].length - m[0].trimStart().length) : -1;
}

/** The fixed host names and ports the task's compose file takes, in the order they are written. */
function bindings(ctx: AuditContext): { file: string; found: Binding[] } | undefined {
  const parsed = composeServices(ctx);
  if (!parsed) return undefined;
  const { text } = parsed;
  const found: Binding[] = [];
  // A Terminal-Bench 1 compose file none of whose services takes the harness's container name cannot
  // start a single trial (tb1-compose-without-harness-name): its literal names are that rule's finding.
  const harnessNamed = ctx.task.format !== 'tb1' || Object.values(parsed.services).some((s) => {
    const cn = (s as { container_name?: unknown } | null)?.container_name;
    return typeof cn === 'string' && cn.includes('$');
  });
  for (const [service, raw] of Object.entries(parsed.services)) {
    if (!raw || typeof raw !== 'object') continue;
    const svc = raw as { container_name?: unknown; ports?: unknown };
    // A name built from a variable is the harness's (TB1 passes the agent container's name in).
    if (harnessNamed && typeof svc.container_name === 'string' && !svc.container_name.includes('$')) {
      const at = keyOffset(text, service, /^[ \t]*container_name\s*:/m);
      if (at >= 0) found.push({ service, what: `container_name \`${svc.container_name}\``, at, length: 'container_name'.length });
    }
    for (const entry of Array.isArray(svc.ports) ? svc.ports as unknown[] : []) {
      const port = fixedHostPort(entry);
      if (port === undefined) continue;
      const needle = typeof entry === 'string' ? new RegExp(`^[ \\t]*-[ \\t]*["']?${escapeRegExp(entry)}`, 'm') : new RegExp(`^[ \\t]*(-[ \\t]*)?published\\s*:\\s*["']?${port}\\b`, 'm');
      const at = keyOffset(text, service, needle);
      if (at >= 0) found.push({ service, what: `host port ${port}`, at, length: (typeof entry === 'string' ? entry : `published: ${port}`).length + 2 });
    }
  }
  return { file: parsed.file, found: found.sort((a, b) => a.at - b.at) };
}

/**
 * Every trial of a task starts its own compose project on the Docker host, and pass@k rollouts start
 * several of the same task at once. Compose prefixes container and network names with the project,
 * so trials do not meet, except where the file fixes a name or a host port itself: a literal
 * `container_name` or a published host port is taken by the first trial, and every other one fails to
 * start ("container name already in use", "port is already allocated"), an infrastructure failure
 * counted against no agent but lost all the same. Nothing in the harness needs either: services reach
 * each other by service name on the project's network, and the tests run inside it.
 */
export const concurrentTrialsCollide: StaticRule = {
  id: 'concurrent-trials-collide', class: 'brittleness', severity: 'warning',
  title: 'The compose file fixes a container name or host port, so two trials of the task cannot run at once',
  *check(ctx): Iterable<Report> {
    const b = bindings(ctx);
    if (!b || b.found.length === 0) return;
    const [first, ...rest] = b.found as [Binding, ...Binding[]];
    const listed = b.found.slice(0, 6).map((x) => `\`${x.service}\`: ${x.what}`).join('; ') + (b.found.length > 6 ? `; and ${b.found.length - 6} more` : '');
    yield {
      file: b.file, range: ctx.range(b.file, first.at, first.at + first.length),
      message: `The compose file takes fixed names from the Docker host (${listed}). Each trial is its own compose project, and rollouts run several trials of one task at once: the first trial holds the name or port and the others fail to start ("already in use" / "port is already allocated"), an infrastructure failure unrelated to the agent. Services reach each other by service name on the project's network, so drop \`container_name\` and publish no host port (\`ports: ["8080"]\` or \`expose\`).`,
      ...(rest.length > 0 ? { related: rest.slice(0, 10).map((x) => ({ file: b.file, range: ctx.range(b.file, x.at, x.at + x.length), message: `${x.service}: ${x.what}` })) } : {}),
    };
  },
};
