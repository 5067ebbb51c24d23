/**
 * The user the agent runs as is never made. Harbor runs the agent's commands as `[agent] user` (and a
 * Dockerfile's final `USER` makes every process of the container that user): when neither the image's
 * RUN lines nor its base image create that user, every command fails to start and no attempt, the
 * oracle's included, can do anything.
 */
import type { DockerInstruction } from '../../parse/dockerfile';
import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';
import { dfFile } from './dockerfile';

/** Accounts every Debian/Ubuntu/Alpine image has. */
const SYSTEM_USERS = new Set(['root', 'daemon', 'bin', 'sys', 'sync', 'games', 'man', 'lp', 'mail', 'news', 'uucp', 'proxy', 'www-data',
  'backup', 'list', 'irc', 'gnats', 'nobody', '_apt', 'adm', 'operator', 'guest', 'postgres', 'xfs', 'squid', 'cyrus', 'vpopmail', 'ntp', 'smmsp']);

/**
 * Base images whose accounts are known: the bare distributions and the official language images on
 * them, with the extra users some ship (`ubuntu` since 23.04, `node`). Other bases (a team's image, a
 * devcontainer, jupyter) may well create the user: not judged.
 */
const KNOWN_BASES: readonly { readonly image: RegExp; readonly users: readonly string[] }[] = [
  { image: /^(?:(?:docker\.io|public\.ecr\.aws\/docker)\/)?(?:library\/)?ubuntu(?::|@|$)/i, users: ['ubuntu'] },
  { image: /^(?:(?:docker\.io|public\.ecr\.aws\/docker)\/)?(?:library\/)?node(?::|@|$)/i, users: ['node'] },
  { image: /^(?:(?:docker\.io|public\.ecr\.aws\/docker)\/)?(?:library\/)?(?:debian|alpine|python|golang|rust|ruby|openjdk|eclipse-temurin|buildpack-deps|gcc|perl|php)(?::|@|$)/i, users: [] },
];

/** The Dockerfile's RUN lines (any stage) create `user`: useradd, adduser, or a line written into /etc/passwd. */
function createdBy(runs: readonly DockerInstruction[], user: string): boolean {
  const word = new RegExp(`(^|[\\s'"=:/])${user.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[\\s'":;&|])`);
  return runs.some((r) => /\b(useradd|adduser|usermod|\/etc\/passwd|newusers)\b/.test(r.argsText) && word.test(r.argsText));
}

export const agentUserMissing: StaticRule = {
  id: 'agent-user-missing', class: 'invalidity', severity: 'warning',
  title: 'The agent runs as a user the image never creates',
  *check(ctx: AuditContext): Generator<Report> {
    const df = ctx.dockerfile();
    if (!df || ctx.task.environment.dockerImage !== undefined) return;
    const base = df.froms.at(-1)?.image ?? '';
    const known = KNOWN_BASES.find((b) => b.image.test(base));
    if (!known) return;
    const runs = df.instructions.filter((i) => i.keyword === 'RUN');
    const users: { name: string; where: string; report: Omit<Report, 'message'> }[] = [];
    const agentUser = ctx.task.agent.user;
    const field = ctx.task.fields['agent.user'];
    if (typeof agentUser === 'string' && ctx.task.configFile) users.push({ name: agentUser, where: `\`[agent] user = "${agentUser}"\``, report: field ? { file: field.file, range: field.range } : { file: ctx.task.configFile } });
    const last = [...df.instructions].reverse().find((i) => i.keyword === 'USER');
    const imageUser = last?.args[0]?.value.split(':')[0];
    if (last && imageUser) users.push({ name: imageUser, where: `\`USER ${imageUser}\``, report: { file: dfFile(ctx), range: last.range } });
    const seen = new Set<string>();
    for (const u of users) {
      if (seen.has(u.name) || /^\d+$/.test(u.name) || u.name.includes('$') || SYSTEM_USERS.has(u.name) || known.users.includes(u.name)) continue;
      seen.add(u.name);
      if (createdBy(runs, u.name)) continue;
      yield {
        ...u.report,
        message: `${u.where}, but nothing in the image creates ${u.name} (no useradd/adduser in the Dockerfile, and \`${base}\` does not ship it): every command the agent, or the oracle, runs fails to start. Create the user in the Dockerfile (\`RUN useradd -m ${u.name}\`).`,
      };
    }
  },
};
