import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import type { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { LABEL_RUN } from '../../src/core/sandbox/runtime';

/**
 * The two real engines of the pool tests: the shared one (DOCKER_HOST or the local socket) and a
 * second daemon with its own socket, data root, exec root and pid file under STATE, started by
 * `scripts/docker-engine.sh --second --copy-images` (it stands in for a second host).
 */
const root = path.resolve(__dirname, '../../..');
export const CLI = path.join(root, 'bin/taskwright.js');
export const STATE = process.env.TASKWRIGHT_POOL_DOCKERD_DIR ?? '/run/tw-pool';
export const FIRST = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
export const SECOND = `unix://${STATE}/docker.sock`;

/** Starts the second daemon, or checks that it answers (idempotent). */
export function startSecond(): void {
  const out = execFileSync('bash', [path.join(root, 'scripts/docker-engine.sh'), '--second', '--copy-images'], {
    env: { ...process.env, TASKWRIGHT_DOCKERD2_DIR: STATE, DOCKER_HOST: FIRST }, encoding: 'utf8', timeout: 180_000,
  });
  assert.match(out, new RegExp(`DOCKER_HOST=${SECOND}`));
}

export function secondPid(): number {
  return Number(fs.readFileSync(path.join(STATE, 'dockerd.pid'), 'utf8').trim());
}

export function imageId(host: string, ref: string): string {
  return execFileSync('docker', ['-H', host, 'image', 'inspect', '--format', '{{.Id}}', ref], { encoding: 'utf8' }).trim();
}

/** Containers of a run still on an engine. */
export async function ofRun(rt: DockerodeRuntime, runId: string): Promise<number> {
  return (await rt.listByLabel(`${LABEL_RUN}=${runId}`)).length;
}

/** A CA, a server certificate (EC keys: quick to make) for localhost and a client certificate, as `dockerd --tlsverify` setups use (`name` makes the CA's subject). */
export function makeCerts(dir: string, name = 'taskwright-test-ca'): string {
  fs.mkdirSync(dir, { recursive: true });
  const ssl = (...args: string[]): void => { execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' }); };
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '1', '-subj', `/CN=${name}`);
  fs.writeFileSync(path.join(dir, 'server.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  fs.writeFileSync(path.join(dir, 'client.cnf'), 'extendedKeyUsage=clientAuth\n');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=localhost');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'server-cert.pem', '-days', '1', '-extfile', 'server.cnf');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'client.csr', '-subj', '/CN=taskwright-client');
  ssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'cert.pem', '-days', '1', '-extfile', 'client.cnf');
  return dir;
}

/**
 * A TLS front of an engine's unix socket that requires client certificates signed by the CA in
 * `certs`, as a remote `dockerd --tlsverify` would be. Returns its port and how to close it.
 */
export async function tlsFront(certs: string, socketPath: string): Promise<{ port: number; close(): void }> {
  const front = tls.createServer({
    key: fs.readFileSync(path.join(certs, 'server-key.pem')), cert: fs.readFileSync(path.join(certs, 'server-cert.pem')),
    ca: fs.readFileSync(path.join(certs, 'ca.pem')), requestCert: true, rejectUnauthorized: true,
  }, (client) => {
    const up = net.connect(socketPath);
    client.pipe(up).pipe(client);
    const end = (): void => { client.destroy(); up.destroy(); };
    client.on('error', end);
    up.on('error', end);
  });
  // A handshake the front refuses is the client's failure to report, not the test process's.
  front.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return { port: (front.address() as net.AddressInfo).port, close: () => front.close() };
}
