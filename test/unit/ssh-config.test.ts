import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sshKeyPair } from '../support/sshKeys';
import { EngineAddressError, parseEngineAddress } from '../../src/core/sandbox/engines';
import { hostMatches, resolveSshConfig, SshConfigError } from '../../src/core/sandbox/sshConfig';
import { tempDir } from '../support/tempDir';

/** `~/.ssh/config` for `ssh://host` engines: the parser (ssh_config(5)'s subset) and its use by the engine address. */
const ctx = { home: '/home/me', localUser: 'me' };

const CONFIG = [
  '# a comment',
  'IdentityFile ~/.ssh/global_key',
  '',
  'Host build-*  !build-old',
  '    HostName %h.example.internal',
  '    User deploy',
  '    Port=2222',
  '    IdentityFile "~/.ssh/keys/%r at %h"',
  '',
  'Host build-old',
  '    HostName 10.0.0.9',
  '    ProxyJump bastion',
  '',
  'Match host *.example.internal',
  '    User matched-not-applied',
  '',
  'Host *',
  '    User fallback',
  '    Port 22',
  '',
].join('\n');

void describe('ssh config: the parser', () => {
  void it('takes the first value per keyword from the matching Host blocks, IdentityFile in order, tokens expanded', () => {
    const c = resolveSshConfig(CONFIG, 'build-7', ctx);
    assert.deepEqual(c, {
      hostName: 'build-7.example.internal', user: 'deploy', port: 2222,
      identityFiles: ['/home/me/.ssh/global_key', '/home/me/.ssh/keys/deploy at build-7.example.internal'],
    });
  });

  void it('applies Host * after the specific blocks, skips Match blocks, and gives nothing for an unmatched host without defaults', () => {
    assert.deepEqual(resolveSshConfig(CONFIG, 'db1', ctx), { user: 'fallback', port: 22, identityFiles: ['/home/me/.ssh/global_key'] });
    assert.deepEqual(resolveSshConfig('Host a\n  User x\n', 'b', ctx), { identityFiles: [] });
  });

  void it('reports ProxyJump and ProxyCommand (none is none), and refuses a bad port or a keyword without a value', () => {
    assert.equal(resolveSshConfig(CONFIG, 'build-old', ctx).proxy, 'ProxyJump bastion');
    assert.equal(resolveSshConfig('Host x\n ProxyCommand ssh -W %h:%p jump\n', 'x', ctx).proxy, 'ProxyCommand ssh -W %h:%p jump');
    assert.equal(resolveSshConfig('Host x\n ProxyJump none\n', 'x', ctx).proxy, undefined);
    assert.throws(() => resolveSshConfig('Host x\n Port 99999\n', 'x', ctx, 'cfg'), (e: unknown) => e instanceof SshConfigError && /cfg: Port 99999 for x/.test(e.message));
    assert.throws(() => resolveSshConfig('Host x\n User\n', 'x', ctx, 'cfg'), /cfg:2: user has no value/);
  });

  void it('matches Host patterns as OpenSSH: globs, case-insensitive, a negation excludes', () => {
    assert.ok(hostMatches(['*.lab', 'gpu?'], 'GPU1'));
    assert.ok(hostMatches(['*.lab'], 'x.lab'));
    assert.ok(!hostMatches(['*.lab', '!secret.lab'], 'secret.lab'));
    assert.ok(!hostMatches(['a.b'], 'aXb'), 'a dot is a dot');
  });
});

void describe('ssh config: ssh:// engine addresses', () => {
  const home = tempDir('tw-sshcfg-');
  fs.mkdirSync(path.join(home, '.ssh'));
  const { privateKey: pem } = sshKeyPair();
  fs.writeFileSync(path.join(home, '.ssh', 'engine_key'), pem);
  fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), pem);
  fs.writeFileSync(path.join(home, '.ssh', 'config'), [
    'Host engine2', '  HostName 192.0.2.10', '  User builder', '  Port 2200', '  IdentityFile ~/.ssh/engine_key',
    'Host behind', '  ProxyJump bastion.example', '',
  ].join('\n'));

  void it('reads HostName, User, Port and IdentityFile for the host as given; the address\'s own user and port win', () => {
    const a = parseEngineAddress('ssh://engine2', { HOME: home, USER: 'me' });
    assert.deepEqual([a.endpoint, a.ssh?.host, a.ssh?.username, a.ssh?.port, a.modem.host, a.modem.port], ['ssh://builder@engine2', '192.0.2.10', 'builder', 2200, '192.0.2.10', '2200']);
    assert.deepEqual(a.ssh?.defaultKeys.map((k) => path.basename(k.file)), ['engine_key'], 'IdentityFile instead of the default identities');
    const own = parseEngineAddress('ssh://ops@engine2:22', { HOME: home, USER: 'me' });
    assert.deepEqual([own.ssh?.username, own.ssh?.port, own.ssh?.host], ['ops', 22, '192.0.2.10']);
    const other = parseEngineAddress('ssh://host9', { HOME: home, USER: 'me' });
    assert.deepEqual([other.ssh?.host, other.ssh?.username, other.ssh?.port, other.ssh?.defaultKeys.map((k) => path.basename(k.file))], ['host9', 'me', 22, ['id_ed25519']]);
  });

  void it('refuses a host the config reaches through a jump host, saying why', () => {
    assert.throws(() => parseEngineAddress('ssh://behind', { HOME: home }), (e: unknown) => e instanceof EngineAddressError && /sets ProxyJump bastion\.example for behind; .*does not go through jump hosts/.test(e.message));
  });
});
