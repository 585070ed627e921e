import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ExtractFixture, createExtractFixture } from './test-support/extract-fixture.js';
import { TurnEndWatcher, type TurnEndWatcherOptions } from './turn-end-watcher.js';
import { waitFor } from '../core/test-support/wait-for.js';

let fx: ExtractFixture;
let watcher: TurnEndWatcher | null = null;
/** Every time the watcher told as "watched until", with when it told it. */
let told: { value: number; at: number }[];
let reports: { file: string; stage: string }[];
let failures: Error[];

beforeEach(async () => {
  fx = await createExtractFixture('memdir-turn-end-');
  told = [];
  reports = [];
  failures = [];
});
afterEach(async () => {
  await watcher?.close();
  watcher = null;
  await fx.cleanup();
});

function start(over: Partial<TurnEndWatcherOptions> = {}): TurnEndWatcher {
  watcher = new TurnEndWatcher({
    home: fx.home,
    quietMs: 50,
    idleCloseMs: 60_000,
    activityMs: 60_000,
    watchedEveryMs: 50,
    onActivity: () => undefined,
    onQuiet: (file, stage) => void reports.push({ file, stage }),
    onWatched: (value) => void told.push({ value, at: Date.now() }),
    onFailed: (error) => void failures.push(error),
    ...over,
  });
  return watcher;
}

async function writeTurn(session: string, prompt: string): Promise<void> {
  const t = fx.builder(session).setTime(new Date().toISOString());
  t.prompt(prompt).assistant('Noted.', { stopReason: 'end_turn' });
  await fs.appendFile(fx.transcript(session), t.take());
}

describe('TurnEndWatcher: "watched until"', () => {
  // Review s45-3 #2: nothing failed when the record moved past a change whose idle report had not
  // settled (a mutant telling `Date.now()` passed every test): a quit then lost the turn for good.
  it('never tells a time past a change whose report has not settled, and moves on once it has', async () => {
    const idleCloseMs = 1_500;
    await start({ idleCloseMs }).ready;
    await waitFor(() => told.length > 0, 5_000, 'the first "watched until"');
    const before = Date.now();
    await writeTurn('s1', 'a turn the app saw');
    await waitFor(() => reports.some((r) => r.stage === 'quiet'), 5_000, 'the quiet report');
    const heard = Date.now();
    // Quiet is not the end: told again and again while the idle report is still to come.
    await waitFor(() => told.filter((t) => t.at > heard).length >= 3, 5_000, 'the record to be told again');
    expect(reports.some((r) => r.stage === 'idle')).toBe(false);
    for (const { value } of told.filter((t) => t.at > heard)) expect(value).toBeLessThan(heard);
    expect(told.at(-1)!.value).toBeGreaterThanOrEqual(before - 1_000);
    // The idle report settled: the record moves past the change.
    await waitFor(() => reports.some((r) => r.stage === 'idle'), 5_000, 'the idle report');
    const settled = Date.now();
    await waitFor(() => told.some((t) => t.at > settled && t.value >= heard), 5_000, 'the record to move past the reported change');
  });

  // cb59e3d3 had no test: a stray file directly under projects/ was taken as unreported for good.
  it('a stray file that appears under projects/ does not hold the record back', async () => {
    await start().ready;
    await fs.writeFile(path.join(fx.home, 'projects', 'notes.txt'), 'not a session\n');
    const wrote = Date.now();
    await waitFor(() => told.some((t) => t.value > wrote + 200), 5_000, 'the record to move past the stray file');
  });
});

describe('TurnEndWatcher: a watch that fails', () => {
  // Review s45-3 #7: the record stopped without a word.
  it('says so once, and tells no "watched until" from then on', async () => {
    // A link that loops: the watch cannot stat it (ELOOP), as it could not a folder it may not read.
    await fs.symlink('loop-a.jsonl', path.join(fx.projectDir, 'loop-a.jsonl'));
    await fs.symlink('loop-b.jsonl', path.join(fx.projectDir, 'loop-b.jsonl'));
    await start().ready;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(failures).toHaveLength(1);
    expect(told).toEqual([]);
  });
});
