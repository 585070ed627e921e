/**
 * The window's calls into main, counted so that quitting the desktop app waits for the ones in
 * flight — a save half-way through its history commit finishes — and refuses those asked after
 * it began ("Memdir is stopping.", as the headless host answers while it stops). Electron ends
 * the process right after `will-quit` without waiting for pending work, so main.ts holds the quit
 * (`before-quit`) until the calls and the app's own close are done — for at most a cap
 * (quit.ts): a call that never returns does not hold the app open for ever.
 *
 * Plain Node: nothing here imports `electron`.
 */

/** What a call asked while Memdir stops is answered (the host's words: host-server.ts). */
export const STOPPING = { ok: false as const, error: { code: 'unavailable', message: 'Memdir is stopping.' } };

export class CallGate {
  /** Each call in flight, with what it is in words a person knows (call-words.ts). */
  private readonly inFlight = new Map<Promise<unknown>, string>();
  private closed = false;

  /** Run `call` (`what` it is, in words), unless the gate is closed: then `STOPPING`, and `call` is never begun. */
  async run<T>(call: () => Promise<T>, what = 'a request from the window'): Promise<T | typeof STOPPING> {
    if (this.closed) return STOPPING;
    const running = call();
    this.inFlight.set(running, what);
    try {
      return await running;
    } finally {
      this.inFlight.delete(running);
    }
  }

  /** What is still running, in words, in the order it was asked. */
  running(): string[] {
    return [...this.inFlight.values()];
  }

  /** No new call begins; resolves once every call in flight has ended (failed ones too). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight.keys()]);
  }
}
