import { SshTransportError } from './sshTransport';

/**
 * TLS failures of a tcp:// engine said in the user's terms: which certificate file does not fit.
 * Node's own messages ("self-signed certificate in certificate chain", "tlsv1 alert unknown ca")
 * name neither the side nor the file.
 */
const SERVER_NOT_TRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED',
]);

/** Undefined when `e` is not a TLS failure; `certDir` is where ca.pem, cert.pem and key.pem were read. */
function tlsProblem(e: unknown, certDir: string): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const msg = e instanceof Error ? e.message : String(e);
  if (SERVER_NOT_TRUSTED.has(code)) return `TLS: the engine's certificate is not signed by ${certDir}/ca.pem (${msg}); DOCKER_CERT_PATH names the folder with the CA that signed it`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `TLS: the engine's certificate is not valid now (${msg})`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `TLS: the engine's certificate is not for this host name (${msg}); use the name it was issued for`;
  if (/^ERR_SSL_TLSV1[3]?_ALERT_(UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_REQUIRED|CERTIFICATE_UNKNOWN|DECRYPT_ERROR|ACCESS_DENIED)$/.test(code)) {
    return `TLS: the engine refused the client certificate ${certDir}/cert.pem (${msg}); it must be signed by a CA the engine trusts (its --tlscacert)`;
  }
  // TLS 1.3 finishes the client's handshake before the engine checks the client certificate: a
  // refusal often reaches the client only as the connection closing before any answer.
  if (code === 'ECONNRESET' && /socket hang up/.test(msg)) {
    return `TLS: the engine closed the connection before answering (${msg}); an engine that refuses the client certificate ${certDir}/cert.pem does this — it must be signed by a CA the engine trusts (its --tlscacert)`;
  }
  return undefined;
}

/**
 * What went wrong reaching an engine over SSH or TLS, in words that name the file or step to fix;
 * undefined for other failures. SSH messages already say it (known_hosts, the key, docker on the host).
 */
export function transportProblem(e: unknown, certDir: string | undefined): string | undefined {
  if (e instanceof SshTransportError) return e.message;
  return certDir ? tlsProblem(e, certDir) : undefined;
}
