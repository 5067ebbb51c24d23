import fs from 'node:fs';
import path from 'node:path';
import { CappedLog } from './cappedLog';
import type { ContainerRuntime, ContainerState } from './runtime';
import { CappedBytes, readTarStream } from './tarReader';

/** Reward files are a number or a small JSON object: more than this is not a reward file. */
export const REWARD_FILE_LIMIT = 64 * 1024;

/** The verifier's reward folder as read back: its reward files, kept in the trial's folder only once they count. */
export interface RewardFolder {
  /** reward.txt / reward.json by name; undefined for one too big to be a reward. */
  readonly files: Readonly<Record<string, string | undefined>>;
  /** Writes the reward files into the trial's folder (the verdict stands on them). */
  keep(): void;
  /** Drops what was read (the verifier died or was OOM-killed: what it wrote is no verdict). */
  discard(): void;
}

/**
 * The verifier's reward folder, streamed: reward.txt / reward.json kept in memory up to a small
 * limit (a bigger one is not a reward), the folder's other files written to the trial's
 * `verifier-files/` with the log cap. What the verifier writes never lands in memory whole.
 */
export async function readRewardDir(runtime: ContainerRuntime, containerId: string, rewardDir: string, logDir: string): Promise<RewardFolder> {
  const stream = await runtime.getArchive(containerId, rewardDir);
  const rewards = new Map<string, CappedBytes>();
  const others = path.join(logDir, 'verifier-files');
  if (stream) {
    await readTarStream(stream, (name) => {
      // Only the folder's own files: what the verifier wrote (reward.txt, reward.json, its logs).
      if (name.split('/').filter(Boolean).length !== 2) return undefined;
      const base = path.posix.basename(name);
      if (base === 'reward.txt' || base === 'reward.json') {
        const sink = new CappedBytes(REWARD_FILE_LIMIT);
        rewards.set(base, sink);
        return sink;
      }
      fs.mkdirSync(others, { recursive: true });
      const dest = path.join(others, base);
      fs.writeFileSync(dest, '');
      return new CappedLog(dest);
    });
  }
  const files: Record<string, string | undefined> = {};
  // An oversized reward file is unreadable as a reward: the verdict says "no reward".
  for (const [base, sink] of rewards) files[base] = sink.truncated ? undefined : sink.bytes().toString('utf8');
  return {
    files,
    keep: () => { for (const [base, sink] of rewards) fs.writeFileSync(path.join(logDir, base), sink.bytes()); },
    discard: () => { fs.rmSync(others, { recursive: true, force: true }); },
  };
}

/** What decides a finished verifier's verdict: the engine's OOM kills, the container's state, the reward folder. */
export interface AfterVerifier {
  readonly ooms: number;
  readonly state: ContainerState | undefined;
  /** The reward folder read back (or why it could not be: an error that counts only with a verdict). */
  readonly reward: { readonly folder: RewardFolder } | { readonly error: unknown } | undefined;
}

/**
 * The engine's OOM events trail a kill by a moment (`ooms` waits for them): meanwhile the
 * container's state and the reward folder are read, in parallel. An engine error of the inspect
 * is thrown (what was read is dropped).
 */
export async function afterVerifier(runtime: ContainerRuntime, containerId: string, rewardDir: string | undefined, logDir: string, ooms: () => Promise<number>): Promise<AfterVerifier> {
  const reading: Promise<AfterVerifier['reward']> = rewardDir
    ? readRewardDir(runtime, containerId, rewardDir, logDir).then((folder) => ({ folder }), (error: unknown) => ({ error }))
    : Promise.resolve(undefined);
  const [o, state, read] = await Promise.allSettled([ooms(), runtime.inspect(containerId), reading]);
  const reward = read.status === 'fulfilled' ? read.value : undefined;
  if (state.status === 'rejected') {
    if (reward && 'folder' in reward) reward.folder.discard();
    throw state.reason;
  }
  return { ooms: o.status === 'fulfilled' ? o.value : 0, state: state.value, reward };
}
