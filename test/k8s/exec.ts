// pods/{name}/exec over WebSocket, the channel protocol the API server speaks
// (k8s.io/apimachinery/pkg/util/remotecommand, `v4.channel.k8s.io` and `v5.channel.k8s.io`): every
// binary frame starts with its channel — 0 stdin, 1 stdout, 2 stderr, 3 error (the closing Status
// JSON), 4 resize (`{"Width":w,"Height":h}`), and in v5 255 close (`[255, channel]`: stdin ended).
// The command runs for real through `docker exec`.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { badRequest, execExitStatus, KubeError } from './status';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;
const CH_STDIN = 0, CH_STDOUT = 1, CH_STDERR = 2, CH_ERROR = 3, CH_RESIZE = 4, CH_CLOSE = 255;
/** Output waits while this much is queued on the socket (the engine's stream is paused meanwhile). */
const HIGH_WATER = 4 * 2 ** 20;
const OCI_FAILED = Buffer.from('OCI runtime exec failed');

/** A dropped exec stream, armed for the next sessions: the socket is destroyed without a Status. */
export interface ExecDrop {
  /** Drop once this many output bytes (stdout+stderr) have been sent; 0: as soon as the command starts. */
  readonly afterBytes?: number;
  /** Drop before the command is started in the container (it never runs). */
  readonly beforeStart?: boolean;
}

export interface ExecRecord {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly command: readonly string[];
  readonly protocol: string;
  exitCode?: number;
  dropped?: boolean;
}

export interface ExecTarget { readonly namespace: string; readonly pod: string; readonly container: string; readonly dockerId: string }

function reject(socket: Duplex, e: KubeError): void {
  const body = JSON.stringify(e.body);
  socket.end(`HTTP/1.1 ${e.code} ${e.code === 404 ? 'Not Found' : e.code === 403 ? 'Forbidden' : e.code === 401 ? 'Unauthorized' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

const frame = (channel: number, data: Buffer | string): Buffer => Buffer.concat([Buffer.from([channel]), typeof data === 'string' ? Buffer.from(data) : data]);

export class ExecHub {
  readonly drops: ExecDrop[] = [];
  readonly records: ExecRecord[] = [];
  private readonly sockets = new Set<WebSocket>();
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered: Set<string>) => [...offered].find((p) => (EXEC_PROTOCOLS as readonly string[]).includes(p)) ?? false,
  });

  constructor(private readonly docker: Docker) {}

  /** Answers an upgrade request for exec; `target` resolves the pod (throws the API's KubeError). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, target: () => ExecTarget): void {
    try {
      const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
      if (!offered.some((p) => (EXEC_PROTOCOLS as readonly string[]).includes(p))) throw badRequest(`unable to upgrade connection: none of the requested subprotocols are supported: ${offered.join(', ')} (the fake speaks ${EXEC_PROTOCOLS.join(', ')})`);
      const command = url.searchParams.getAll('command');
      if (command.length === 0) throw badRequest('you must specify at least 1 command');
      const flag = (k: string): boolean => ['true', '1'].includes(url.searchParams.get(k) ?? '');
      const flags = { stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') };
      if (!flags.stdin && !flags.stdout && !flags.stderr) throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
      const t = target();
      this.wss.handleUpgrade(req, socket, head, (ws) => { this.session(ws, t, command, flags); });
    } catch (e) {
      if (e instanceof KubeError) reject(socket, e); else { socket.destroy(); throw e; }
    }
  }

  private session(ws: WebSocket, t: ExecTarget, command: string[], flags: { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }): void {
    this.sockets.add(ws);
    const record: ExecRecord = { namespace: t.namespace, pod: t.pod, container: t.container, command, protocol: ws.protocol };
    this.records.push(record);
    const drop = this.drops.shift();
    const v5 = ws.protocol === 'v5.channel.k8s.io';
    const early: RawData[] = [];
    let onMessage: (d: RawData) => void = (d) => { early.push(d); };
    let onClosed: () => void = () => undefined;
    ws.on('message', (d) => onMessage(d));
    ws.on('close', () => { this.sockets.delete(ws); onClosed(); });
    ws.on('error', () => undefined);
    const kill = (): void => { record.dropped = true; ws.terminate(); };
    if (drop?.beforeStart) { kill(); return; }
    void (async () => {
      let exec: Docker.Exec;
      let stream: Duplex;
      try {
        exec = await this.docker.getContainer(t.dockerId).exec({ Cmd: command, AttachStdin: flags.stdin, AttachStdout: flags.stdout, AttachStderr: flags.stderr && !flags.tty, Tty: flags.tty });
        stream = (await exec.start({ hijack: true, stdin: flags.stdin, Tty: flags.tty } as Docker.ExecStartOptions)) as Duplex;
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        if (ws.readyState === WebSocket.OPEN) {
          ws.send(frame(CH_ERROR, JSON.stringify({ metadata: {}, status: 'Failure', message: `Internal error occurred: error executing command in container: ${msg}`, reason: 'InternalError', details: { causes: [{ message: msg }] }, code: 500 })));
          ws.close(1000);
        }
        return;
      }
      let sent = 0;
      let dropped = false;
      if (drop && (drop.afterBytes ?? 0) === 0) { dropped = true; kill(); stream.destroy(); return; }
      const send = (channel: number, data: Buffer): void => {
        if (dropped || ws.readyState !== WebSocket.OPEN || data.length === 0) return;
        ws.send(frame(channel, data));
        sent += data.length;
        if (drop && sent >= (drop.afterBytes ?? 0)) { dropped = true; kill(); stream.destroy(); return; }
        if (ws.bufferedAmount > HIGH_WATER) {
          stream.pause();
          const wait = setInterval(() => { if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount < HIGH_WATER / 2) { clearInterval(wait); stream.resume(); } }, 5);
        }
      };
      // runc's "cannot start the command" arrives from Docker as output and exit code 126/127; a
      // containerd kubelet reports it on the error channel as an InternalError, with no output. The
      // first bytes of stdout are held only while they read as the start of that message.
      let prelude: Buffer | undefined = Buffer.alloc(0);
      let runtimeError = false;
      const emit = (channel: number, data: Buffer): void => {
        if (prelude === undefined) { send(channel, data); return; }
        if (channel !== CH_STDOUT) { const held = prelude; prelude = undefined; send(CH_STDOUT, held); send(channel, data); return; }
        prelude = Buffer.concat([prelude, data]);
        if (runtimeError) return;
        const n = Math.min(prelude.length, OCI_FAILED.length);
        if (!prelude.subarray(0, n).equals(OCI_FAILED.subarray(0, n))) { const held = prelude; prelude = undefined; send(CH_STDOUT, held); }
        else if (n === OCI_FAILED.length) runtimeError = true;
      };
      let stdinOpen = flags.stdin;
      const endStdin = (): void => { if (stdinOpen) { stdinOpen = false; stream.end(); } };
      onMessage = (d: RawData): void => {
        const buf = Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d);
        if (buf.length === 0) return;
        const ch = buf[0];
        if (ch === CH_STDIN && stdinOpen) {
          if (!stream.write(buf.subarray(1))) { ws.pause(); stream.once('drain', () => ws.resume()); }
        } else if (ch === CH_RESIZE && flags.tty) {
          try {
            const size = JSON.parse(buf.subarray(1).toString('utf8')) as { Width?: number; Height?: number };
            void exec.resize({ h: size.Height ?? 24, w: size.Width ?? 80 }).catch(() => undefined);
          } catch { /* a malformed resize is ignored, as the kubelet does */ }
        } else if (ch === CH_CLOSE && v5 && buf[1] === CH_STDIN) endStdin();
      };
      onClosed = endStdin;
      for (const d of early.splice(0)) onMessage(d);
      if (flags.tty) stream.on('data', (d: Buffer) => emit(CH_STDOUT, d));
      else {
        let pending: Buffer = Buffer.alloc(0);
        stream.on('data', (d: Buffer) => {
          pending = pending.length ? Buffer.concat([pending, d]) : d;
          while (pending.length >= 8) {
            const size = pending.readUInt32BE(4);
            if (pending.length < 8 + size) break;
            const type = pending[0];
            emit(type === 2 ? CH_STDERR : CH_STDOUT, pending.subarray(8, 8 + size));
            pending = pending.subarray(8 + size);
          }
        });
      }
      await new Promise<void>((resolve) => { stream.on('end', resolve); stream.on('close', resolve); stream.on('error', () => resolve()); });
      if (dropped) return;
      let exitCode = 137;
      for (let i = 0; i < 100; i++) {
        const info = await exec.inspect().catch(() => undefined);
        if (!info) break;
        if (!info.Running && info.ExitCode !== null) { exitCode = info.ExitCode; break; }
        await new Promise((r) => setTimeout(r, 20));
      }
      record.exitCode = exitCode;
      const held = prelude;
      prelude = undefined;
      if (held && runtimeError && (exitCode === 126 || exitCode === 127)) {
        const msg = `error executing command in container: failed to exec in container: failed to start exec "${t.dockerId}": ${held.toString('utf8').trim()}`;
        record.exitCode = undefined;
        if (ws.readyState === WebSocket.OPEN) {
          ws.send(frame(CH_ERROR, JSON.stringify({ metadata: {}, status: 'Failure', message: `Internal error occurred: ${msg}`, reason: 'InternalError', details: { causes: [{ message: msg }] }, code: 500 })));
          ws.close(1000);
        }
        return;
      }
      if (held?.length) send(CH_STDOUT, held);
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(frame(CH_ERROR, JSON.stringify(execExitStatus(exitCode, command))));
        ws.close(1000);
      }
    })();
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
  }
}
