import path from 'node:path';
import { parseYamlShared } from '../../parse/yamlShared';
import type { AuditContext } from '../context';

interface BuildSpec { readonly context?: unknown; readonly dockerfile?: unknown }

/**
 * The Dockerfiles the task's compose file builds besides the main one (sidecar services, a user
 * simulator, an API server), as task-relative paths: `build: ./api` or `build: {context, dockerfile}`,
 * relative to the compose file's folder, Harbor's `${CONTEXT_DIR}` read as the environment folder.
 * Dockerfiles that are only the agent's material (a Dockerfile to fix) are not among them.
 */
export function composeBuiltDockerfiles(ctx: AuditContext): string[] {
  const compose = ctx.task.environment.composeFile;
  const text = ctx.text(compose);
  if (!compose || text === undefined) return [];
  let doc: { services?: Record<string, { build?: unknown }> } | undefined;
  try {
    doc = parseYamlShared(text) as typeof doc;
  } catch {
    return [];
  }
  const base = path.posix.dirname(compose);
  const envDir = ctx.task.environment.contextDir || '.';
  const out = new Set<string>();
  for (const s of Object.values(doc?.services ?? {})) {
    const b = s?.build;
    if (b === undefined || b === null) continue;
    const spec: BuildSpec = typeof b === 'string' ? { context: b } : (typeof b === 'object' ? b as BuildSpec : {});
    const rawContext = typeof spec.context === 'string' ? spec.context : '.';
    const context = rawContext.replace(/\$\{CONTEXT_DIR\}|\$CONTEXT_DIR\b/g, path.posix.relative(base, envDir) || '.');
    const dockerfile = typeof spec.dockerfile === 'string' ? spec.dockerfile : 'Dockerfile';
    if (/\$/.test(context + dockerfile) || /^[a-z]+:\/\//i.test(context)) continue;
    const file = path.posix.normalize(path.posix.join(base, context, dockerfile));
    if (!file.startsWith('../') && file !== ctx.task.environment.dockerfile) out.add(file);
  }
  return [...out].sort();
}
