import type { ContainerRuntime } from './runtime';

/**
 * Stops what the agent had running at its deadline, for the `verifier` timeout policy: the commands
 * the engine started by exec (inside the container their parent is outside it, so their ppid reads
 * 0) and every process below them, killed with SIGKILL as root. Init (pid 1) and the harness's
 * keep-alive under it survive, and so do processes an earlier command left running (reparented to
 * init), exactly as when an agent finishes on time: the verifier sees the state the agent left, not
 * one a still-running command keeps changing. Three passes, so a command that forks while it is
 * being killed does not slip through. POSIX sh over /proc: busybox images have no `ps -o ppid`.
 */
export const STOP_AGENT_SCRIPT = [
  'self=$$; n=0',
  'while [ $n -lt 3 ]; do',
  '  n=$((n+1)); tree=""; frontier=""',
  '  for d in /proc/[0-9]*; do',
  '    p=${d#/proc/}',
  '    read -r s 2>/dev/null < "$d/stat" || continue',
  '    s=${s##*) }; set -- $s',
  '    tree="$tree $p:$2"',
  '    if [ "$2" = 0 ] && [ "$p" != 1 ] && [ "$p" != "$self" ]; then frontier="$frontier $p"; fi',
  '  done',
  '  [ -z "$frontier" ] && exit 0',
  '  all="$frontier"',
  '  while [ -n "$frontier" ]; do',
  '    next=""',
  '    for e in $tree; do pp=${e#*:}; for f in $frontier; do [ "$pp" = "$f" ] && next="$next ${e%%:*}"; done; done',
  '    all="$all $next"; frontier="$next"',
  '  done',
  '  kill -9 $all 2>/dev/null',
  '  sleep 1',
  'done',
  'exit 0',
].join('\n');

/** Kills the agent's commands in flight (see {@link STOP_AGENT_SCRIPT}); engine faults propagate as InfraError. */
export async function stopAgentCommands(runtime: ContainerRuntime, containerId: string, signal?: AbortSignal): Promise<void> {
  await runtime.exec(containerId, { cmd: ['/bin/sh', '-c', STOP_AGENT_SCRIPT], user: '0', timeoutMs: 30_000, ...(signal ? { signal } : {}) });
}
