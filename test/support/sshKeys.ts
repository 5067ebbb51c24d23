import { utils } from 'ssh2';

/**
 * An ed25519 key pair in OpenSSH format that ssh2 itself can read back. ssh2's generator now and then
 * writes a private key its own parser calls malformed (measured: 12 in 3,000), which made the tests
 * that write a fresh key fail about once in 250 runs: draw again until it parses.
 */
export function sshKeyPair(passphrase?: string): { privateKey: string; publicKey: string } {
  for (;;) {
    const k = passphrase === undefined ? utils.generateKeyPairSync('ed25519')
      : utils.generateKeyPairSync('ed25519', { passphrase, cipher: 'aes256-cbc', rounds: 4 });
    if (!(utils.parseKey(k.private, passphrase) instanceof Error)) return { privateKey: k.private, publicKey: k.public };
  }
}
