// A tiny Docker Registry (HTTP API v2) for tests: enough of the distribution spec for `docker push`
// (blob upload sessions, monolithic or chunked; manifest PUT) and for HEAD/GET of manifests and
// blobs, kept in memory. `mirror` makes tags present on the local Docker engine count as present
// (a registry "holding" what the engine has, so the fake cluster can run them without a push).
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TinyRegistry {
  /** `127.0.0.1:port`, what image references start with. */
  readonly host: string;
  /** Every request: method, path, status. */
  readonly log: { method: string; path: string; status: number }[];
  /** Tags stored by a push, as `repo:tag`. */
  tags(): string[];
  close(): Promise<void>;
}

export interface TinyRegistryOptions {
  /** Answers whether `repo:tag` exists elsewhere (the local engine); consulted for HEAD/GET manifests not pushed. */
  readonly mirror?: (repo: string, tag: string) => Promise<boolean>;
}

function digestOf(b: Buffer): string {
  return `sha256:${createHash('sha256').update(b).digest('hex')}`;
}

export async function startTinyRegistry(opts: TinyRegistryOptions = {}): Promise<TinyRegistry> {
  const blobs = new Map<string, Buffer>();
  const manifests = new Map<string, { body: Buffer; type: string }>();
  const uploads = new Map<string, Buffer[]>();
  const log: TinyRegistry['log'] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { void handle(req, res, Buffer.concat(chunks)); });
  });

  const send = (req: http.IncomingMessage, res: http.ServerResponse, status: number, headers: Record<string, string> = {}, body?: Buffer | string): void => {
    log.push({ method: req.method ?? '', path: req.url ?? '', status });
    res.writeHead(status, { 'Docker-Distribution-API-Version': 'registry/2.0', ...headers });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const notFound = (req: http.IncomingMessage, res: http.ServerResponse, code: string): void =>
    send(req, res, 404, { 'Content-Type': 'application/json' }, JSON.stringify({ errors: [{ code, message: code.toLowerCase().replace(/_/g, ' ') }] }));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://registry');
    const p = url.pathname;
    const method = req.method ?? 'GET';
    if (p === '/v2/' || p === '/v2') return send(req, res, 200, { 'Content-Type': 'application/json' }, '{}');
    let m = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(p);
    if (m) {
      const [, repo = '', ref = ''] = m;
      if (method === 'PUT') {
        const type = req.headers['content-type'] ?? 'application/vnd.docker.distribution.manifest.v2+json';
        const d = digestOf(body);
        manifests.set(`${repo}:${ref}`, { body, type });
        manifests.set(`${repo}@${d}`, { body, type });
        return send(req, res, 201, { Location: `/v2/${repo}/manifests/${d}`, 'Docker-Content-Digest': d });
      }
      const key = ref.startsWith('sha256:') ? `${repo}@${ref}` : `${repo}:${ref}`;
      const found = manifests.get(key);
      if (found) return send(req, res, 200, { 'Content-Type': found.type, 'Docker-Content-Digest': digestOf(found.body), 'Content-Length': String(found.body.length) }, found.body);
      if (opts.mirror && !ref.startsWith('sha256:') && (await opts.mirror(repo, ref))) {
        const fakeBody = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.docker.distribution.manifest.v2+json', mirrored: `${repo}:${ref}` }));
        return send(req, res, 200, { 'Content-Type': 'application/vnd.docker.distribution.manifest.v2+json', 'Docker-Content-Digest': digestOf(fakeBody) }, fakeBody);
      }
      return notFound(req, res, 'MANIFEST_UNKNOWN');
    }
    m = /^\/v2\/(.+)\/blobs\/uploads\/?([^/]*)$/.exec(p);
    if (m) {
      const [, repo = '', id = ''] = m;
      if (method === 'POST' && !id) {
        const uuid = randomUUID();
        uploads.set(uuid, []);
        const digest = url.searchParams.get('digest');
        if (digest && body.length) {
          // Monolithic upload in the POST.
          if (digestOf(body) !== digest) return send(req, res, 400, {}, 'DIGEST_INVALID');
          blobs.set(digest, body);
          return send(req, res, 201, { Location: `/v2/${repo}/blobs/${digest}`, 'Docker-Content-Digest': digest });
        }
        return send(req, res, 202, { Location: `/v2/${repo}/blobs/uploads/${uuid}`, 'Docker-Upload-UUID': uuid, Range: '0-0', 'Content-Length': '0' });
      }
      const parts = uploads.get(id);
      if (!parts) return notFound(req, res, 'BLOB_UPLOAD_UNKNOWN');
      if (method === 'PATCH') {
        parts.push(body);
        const size = parts.reduce((n, b) => n + b.length, 0);
        return send(req, res, 202, { Location: `/v2/${repo}/blobs/uploads/${id}`, 'Docker-Upload-UUID': id, Range: `0-${Math.max(0, size - 1)}`, 'Content-Length': '0' });
      }
      if (method === 'PUT') {
        parts.push(body);
        const all = Buffer.concat(parts);
        const digest = url.searchParams.get('digest') ?? '';
        if (digestOf(all) !== digest) return send(req, res, 400, { 'Content-Type': 'application/json' }, JSON.stringify({ errors: [{ code: 'DIGEST_INVALID' }] }));
        blobs.set(digest, all);
        uploads.delete(id);
        return send(req, res, 201, { Location: `/v2/${repo}/blobs/${digest}`, 'Docker-Content-Digest': digest, 'Content-Length': '0' });
      }
      if (method === 'DELETE') { uploads.delete(id); return send(req, res, 204); }
    }
    m = /^\/v2\/(.+)\/blobs\/(sha256:[a-f0-9]{64})$/.exec(p);
    if (m) {
      const b = blobs.get(m[2] ?? '');
      if (!b) return notFound(req, res, 'BLOB_UNKNOWN');
      return send(req, res, 200, { 'Content-Length': String(b.length), 'Docker-Content-Digest': m[2] ?? '', 'Content-Type': 'application/octet-stream' }, b);
    }
    return notFound(req, res, 'NAME_UNKNOWN');
  }

  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', () => resolve()); });
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host, log,
    tags: () => [...manifests.keys()].filter((k) => !k.includes('@')),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
