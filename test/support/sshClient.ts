import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runtimeFor } from '../../src/core/sandbox/connect';
import { parseEngineAddress } from '../../src/core/sandbox/engines';

/**
 * The client side of the SSH engine tests (ssh2's server in engine-ssh, OpenSSH's in engine-openssh):
 * a HOME to log in from, and the message of a ping that must fail.
 */

/** `<root>/<name>`, a HOME whose ~/.ssh holds known_hosts `lines` and, when given, a `config` (read from HOME, as ssh does). */
export function sshHome(root: string, name: string, lines: readonly string[], config?: string): string {
  const h = path.join(root, name);
  fs.mkdirSync(path.join(h, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(h, '.ssh', 'known_hosts'), lines.map((l) => `${l}\n`).join(''));
  if (config !== undefined) fs.writeFileSync(path.join(h, '.ssh', 'config'), config);
  return h;
}

/** Pings the engine at `address` with `env`; resolves to the error message (the ping must fail). */
export async function pingError(address: string, env: NodeJS.ProcessEnv): Promise<string> {
  const err = await runtimeFor(parseEngineAddress(address, env)).ping().then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof Error, `${address} answered`);
  return err.message;
}
