/**
 * Polls `probe` until it returns something other than `undefined`, or fails naming what was awaited
 * after `ms`. One poller for every test that waits on watchers, pods or files.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000, everyMs = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `waitFor` for a condition. */
export async function waitUntil(what: string, check: () => boolean, ms = 5000): Promise<void> {
  await waitFor(what, () => (check() ? true : undefined), ms, 20);
}
