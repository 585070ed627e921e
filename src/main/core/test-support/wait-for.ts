/**
 * Poll `probe` every 50 ms until it gives something (returned), or throw after `timeoutMs`, naming
 * `what` was awaited: the one poller of the tests. It never ends quietly, so a test cannot go on
 * to pass on something that did not happen.
 */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 15_000,
  what = 'a condition to hold',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
