import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InfraError } from '../runtime';

/**
 * The registry the cluster pulls trial images from, through the Docker Registry HTTP API v2: a
 * `HEAD /v2/<name>/manifests/<tag>` says whether a content-hash tag is there (so a push, or a
 * build, is skipped), with the token flow registries use for auth (anonymous, or the credentials
 * `docker login` stored in ~/.docker/config.json).
 */
export interface RegistryAddress {
  /** `host[:port]` (what image references start with). */
  readonly host: string;
  /** Repository prefix inside the registry (`team/sub`), possibly empty. */
  readonly prefix: string;
  /** Base URL of the HTTP API. */
  readonly base: string;
}

export class RegistryError extends Error {}

/** `localhost:5000`, `registry.example.com/team`, `http://10.0.0.5:5000`: plain HTTP for loopback or when asked. */
export function parseRegistry(text: string): RegistryAddress {
  const raw = text.trim();
  if (!raw) throw new RegistryError('--registry is empty (give host[:port][/prefix])');
  const m = /^(?:(https?):\/\/)?([^/\s]+)(\/[^\s]*)?$/.exec(raw);
  if (!m) throw new RegistryError(`'${raw}' is not a registry (host[:port][/prefix], e.g. localhost:5000 or registry.example.com/team)`);
  const host = (m[2] ?? '').toLowerCase();
  const prefix = (m[3] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix && !/^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/.test(prefix)) {
    throw new RegistryError(`${raw}: the repository prefix '${prefix}' is not a valid image path (lowercase letters, digits, '.', '_', '-')`);
  }
  const loopback = /^(localhost|127(?:\.\d+){3}|\[::1\])(?::\d+)?$/.test(host);
  const scheme = m[1] ?? (loopback ? 'http' : 'https');
  return { host, prefix, base: `${scheme}://${host}` };
}

/** The reference the cluster pulls for a local tag (`taskwright/x:hash` → `host/prefix/taskwright/x:hash`). */
export function qualify(reg: RegistryAddress, localRef: string): string {
  return [reg.host, reg.prefix, localRef].filter(Boolean).join('/');
}

/** Repository and tag of a qualified reference (digests are not used: tags are content hashes). */
export function splitRef(reg: RegistryAddress, ref: string): { repo: string; tag: string } {
  const rest = ref.startsWith(`${reg.host}/`) ? ref.slice(reg.host.length + 1) : ref;
  const at = rest.lastIndexOf(':');
  const slash = rest.lastIndexOf('/');
  return at > slash ? { repo: rest.slice(0, at), tag: rest.slice(at + 1) } : { repo: rest, tag: 'latest' };
}

const ACCEPT = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');

/** `user:password` for the host from ~/.docker/config.json (`auths[host].auth`), when docker login stored one. */
export function dockerConfigAuth(host: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env.DOCKER_CONFIG || path.join(env.HOME || os.homedir(), '.docker');
  try {
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as { auths?: Record<string, { auth?: string }> };
    for (const [k, v] of Object.entries(cfg.auths ?? {})) {
      if (k.replace(/^https?:\/\//, '').replace(/\/.*$/, '') === host && v.auth) return Buffer.from(v.auth, 'base64').toString('utf8');
    }
  } catch {
    // No config or not readable: anonymous.
  }
  return undefined;
}

function challenge(header: string | null): { scheme: string; params: Record<string, string> } | undefined {
  if (!header) return undefined;
  const m = /^(\w+)\s+(.*)$/.exec(header.trim());
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of (m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) params[p[1] as string] = p[2] as string;
  return { scheme: (m[1] ?? '').toLowerCase(), params };
}

export class Registry {
  private readonly tokens = new Map<string, string>();

  constructor(readonly address: RegistryAddress, private readonly auth: string | undefined = dockerConfigAuth(address.host), private readonly timeoutMs = 30_000) {}

  /** True when the registry has the tag; a registry that cannot be asked is an infra error naming it. */
  async hasManifest(ref: string): Promise<boolean> {
    const { repo, tag } = splitRef(this.address, ref);
    const url = `${this.address.base}/v2/${repo}/manifests/${encodeURIComponent(tag)}`;
    let res = await this.head(url, this.tokens.get(repo));
    if (res.status === 401) {
      const header = await this.authorize(repo, res.headers.get('www-authenticate'));
      if (header) res = await this.head(url, header);
    }
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw new InfraError(res.status === 401 || res.status === 403 ? 'image-pull' : 'api-error', `registry ${this.address.host}: HEAD ${repo}:${tag} answered ${res.status}${res.status === 401 ? ' (log in with docker login)' : ''}`, res.status !== 401 && res.status !== 403);
  }

  private async head(url: string, authorization?: string): Promise<Response> {
    try {
      return await fetch(url, { method: 'HEAD', headers: { Accept: ACCEPT, ...(authorization ? { Authorization: authorization } : {}) }, signal: AbortSignal.timeout(this.timeoutMs), redirect: 'follow' });
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      throw new InfraError('engine-unreachable', `registry ${this.address.host} is unreachable (${cause ?? (e instanceof Error ? e.message : String(e))})`);
    }
  }

  /** The Authorization header for the repository after a 401: Basic, or a Bearer token from the realm. */
  private async authorize(repo: string, header: string | null): Promise<string | undefined> {
    const c = challenge(header);
    const basic = this.auth ? `Basic ${Buffer.from(this.auth).toString('base64')}` : undefined;
    if (!c || c.scheme === 'basic') return basic;
    const realm = c.params.realm;
    if (c.scheme !== 'bearer' || !realm) return undefined;
    const q = new URLSearchParams({ ...(c.params.service ? { service: c.params.service } : {}), scope: c.params.scope ?? `repository:${repo}:pull` });
    try {
      const res = await fetch(`${realm}?${q}`, { headers: basic ? { Authorization: basic } : {}, signal: AbortSignal.timeout(this.timeoutMs) });
      if (!res.ok) return undefined;
      const body = (await res.json()) as { token?: string; access_token?: string };
      const token = body.token ?? body.access_token;
      if (!token) return undefined;
      this.tokens.set(repo, `Bearer ${token}`);
      return `Bearer ${token}`;
    } catch {
      return undefined;
    }
  }
}
