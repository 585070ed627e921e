/**
 * How many of Memdir's locks this process holds now (lock.ts counts them). Every write Memdir makes
 * to memory — one change, a whole merge turn, a sync — holds a lock while it writes, so none held
 * means no write is under way: the CLI's Ctrl-C stops at once then, and otherwise waits for the
 * count to reach zero, so a write is never cut half-way. A lock that guards a long run rather than a
 * write (one extraction per transcript, held while the model answers) is not counted: the run marks
 * its own writing steps with {@link asWrite}. No imports: the CLI loads it on every run.
 */
let held = 0;
const waiting = new Set<() => void>();

/** A lock was taken. */
export function lockTaken(): void {
  held++;
}

/** A lock was let go (or lost): whoever waits for none to be held is told once none is. */
export function lockLetGo(): void {
  held = Math.max(0, held - 1);
  if (held > 0) return;
  for (const resolve of [...waiting]) resolve();
  waiting.clear();
}

/** Whether this process holds one of Memdir's locks now: a write is under way. */
export function isLockHeld(): boolean {
  return held > 0;
}

/** Resolves once this process holds none of Memdir's locks (at once when it holds none). */
export function whenNoLockHeld(): Promise<void> {
  return held === 0 ? Promise.resolve() : new Promise((resolve) => waiting.add(resolve));
}

/** Runs `fn` as a write under way (counted as a lock held): for the writing steps of a run whose lock is a guard. */
export async function asWrite<T>(fn: () => Promise<T>): Promise<T> {
  lockTaken();
  try {
    return await fn();
  } finally {
    lockLetGo();
  }
}
