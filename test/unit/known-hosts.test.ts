import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { utils } from 'ssh2';
import { checkHostKey, knownHostName } from '../../src/core/sandbox/knownHosts';
import { tempDir } from '../support/tempDir';

/** A host key as the server sends it (the public blob) and as a known_hosts line writes it. */
function hostKey(): { blob: Buffer; line: string } {
  const pub = utils.generateKeyPairSync('ed25519').public;
  const [type, b64] = pub.split(' ');
  return { blob: Buffer.from(b64!, 'base64'), line: `${type} ${b64}` };
}

function hashed(name: string): string {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

void describe('known_hosts (ssh:// engines)', () => {
  const dir = tempDir('tw-kh-');
  const file = (name: string, text: string): string => { const f = path.join(dir, name); fs.writeFileSync(f, text); return f; };
  const a = hostKey();
  const b = hostKey();

  void it('names a host as OpenSSH does: bare on port 22, [host]:port elsewhere', () => {
    assert.equal(knownHostName('h2', 22), 'h2');
    assert.equal(knownHostName('127.0.0.1', 2222), '[127.0.0.1]:2222');
  });

  void it('accepts the listed key, plain, in a comma list, by wildcard or hashed', () => {
    assert.deepEqual(checkHostKey([file('plain', `# comment\nother ${b.line}\nh2,h2.lan ${a.line}\n`)], 'h2', 22, a.blob), { ok: true });
    assert.deepEqual(checkHostKey([file('port', `[127.0.0.1]:2222 ${a.line}\n`)], '127.0.0.1', 2222, a.blob), { ok: true });
    assert.deepEqual(checkHostKey([file('glob', `*.lan,!bad.lan ${a.line}\n`)], 'h2.lan', 22, a.blob), { ok: true });
    assert.deepEqual(checkHostKey([file('neg', `*.lan,!bad.lan ${a.line}\n`)], 'bad.lan', 22, a.blob), { ok: false, reason: 'unknown' });
    assert.deepEqual(checkHostKey([file('hashed', `${hashed('[h2]:2200')} ${a.line}\n`)], 'h2', 2200, a.blob), { ok: true });
    // The user's file may be missing; the system's is read too.
    assert.deepEqual(checkHostKey([path.join(dir, 'absent'), file('system', `h2 ${a.line}\n`)], 'h2', 22, a.blob), { ok: true });
  });

  void it('refuses a host it does not list, a changed key and a revoked one', () => {
    assert.deepEqual(checkHostKey([path.join(dir, 'absent')], 'h2', 22, a.blob), { ok: false, reason: 'unknown' });
    // Port 22's entry does not vouch for another port (OpenSSH keeps them apart).
    assert.deepEqual(checkHostKey([file('p22', `h2 ${a.line}\n`)], 'h2', 2222, a.blob), { ok: false, reason: 'unknown' });
    assert.deepEqual(checkHostKey([file('changed', `h2 ${b.line}\n`)], 'h2', 22, a.blob), { ok: false, reason: 'changed' });
    assert.deepEqual(checkHostKey([file('revoked', `@revoked * ${a.line}\nh2 ${a.line}\n`)], 'h2', 22, a.blob), { ok: false, reason: 'revoked' });
  });
});
