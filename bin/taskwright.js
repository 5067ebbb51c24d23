#!/usr/bin/env node
'use strict';

// glibc gives each thread its own malloc arenas and keeps what the threads free in them: the audit's
// worker threads then hold far more than they use (the whole 10,567-task corpus peaked at 433 MB of RSS
// by default, 371 MB with two arenas; bench/RESULTS.md). The variable is read when the process starts,
// so on Linux `audit` runs itself once more with it set, in its own process group, forwarding signals.
// Anyone who sets MALLOC_ARENA_MAX themselves (to any value) gets exactly that.
if (process.platform === 'linux' && process.argv[2] === 'audit' && process.env.MALLOC_ARENA_MAX === undefined) {
  const { spawn } = require('node:child_process');
  const os = require('node:os');
  const child = spawn(process.execPath, [...process.execArgv, __filename, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, MALLOC_ARENA_MAX: '2', TASKWRIGHT_LAUNCHER_PID: String(process.pid) },
    // Its own group: a terminal's Ctrl-C reaches this process only, which passes it on once.
    detached: true,
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { try { child.kill(sig); } catch { /* already gone */ } });
  child.on('error', (e) => { process.stderr.write(`taskwright: could not start the audit: ${e.message}\n`); process.exit(1); });
  child.on('exit', (code, signal) => { process.exit(code ?? 128 + (os.constants.signals[signal] ?? 1)); });
} else {
  // Started by the launcher above: if it is killed outright (SIGKILL, nothing forwarded), stop as on
  // SIGTERM instead of running on alone.
  const launcher = Number(process.env.TASKWRIGHT_LAUNCHER_PID);
  delete process.env.TASKWRIGHT_LAUNCHER_PID;
  if (launcher > 0) setInterval(() => { if (process.ppid !== launcher) process.kill(process.pid, 'SIGTERM'); }, 1000).unref();
  require('../dist/cli.js').runCli();
}
