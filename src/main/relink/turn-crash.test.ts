/**
 * The crash test for changes of two memory folders as one (a clone merge and its undo), in the
 * way of history/crash.test.ts: a child process merging clone A's memory into clone B's and
 * undoing it in a loop is SIGKILLed at random moments — many of them while a merge or an undo is
 * between its two folders. After each kill, once Memdir has finished what the killed process left
 * (as the next command or app start does), both folders are whole — every file as before the merge
 * or every file as after it — and the merge records say the same; and at each kill, before
 * anything is put back, every memory is in one folder at least.
 */
import { watch } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleWorker, sleep, startWorker } from '../../../bench/kill/harness.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { scanHome } from '../memdir/scan-home.js';
import { listHistory } from '../history/index.js';
import { fsckHistory, processGroupGone } from '../history/test-support/crash-check.js';
import { finishUnfinishedTurn, listMergeRecords, mergeProjects, undoMerge } from './index.js';
import { addMemories, readTree, topic, twoClones } from './test-support/moved-project.js';

// Each kill costs 2–5 s (a writer's start, a merge's planning, the put-back). The kill moments are
// random, so how many land between the folders is too: 20 kills landed 4–10 there. The test goes on
// killing (up to 40) until 5 have landed there — a test that saw fewer would prove less than it says
// — and fails only when even 40 do not.
const KILLS = 20;
const MAX_KILLS = 40;
const BETWEEN_WANTED = 5;

let tmp: string;
let writer: string;

beforeAll(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-turn-crash-')));
  writer = await bundleWorker('src/main/relink/test-support/turn-crash-writer.ts');
});

afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/**
 * Random moments: up to ~1.5 s after the writer starts (a merge and its undo take a few seconds),
 * or — so kills land between the folders and inside one often, not only in the planning — 0–40 ms
 * after the 1st to 4th change of the turn's journal (a step has just planned its writes: it is
 * writing that folder) or of either folder's history head (a step has just ended).
 */
async function waitForKillMoment(historyDir: string, mergesDir: string): Promise<void> {
  if (Math.random() < 0.25) return sleep(Math.random() * 1_500);
  await fs.mkdir(historyDir, { recursive: true });
  await fs.mkdir(mergesDir, { recursive: true });
  const watchers = [watch(historyDir, { recursive: true }), watch(mergesDir)];
  try {
    let seen = 0;
    const wanted = 1 + Math.floor(Math.random() * 4);
    await Promise.race([
      new Promise<void>((resolve) => {
        for (const watcher of watchers)
          watcher.on('change', (_event, name) => {
            const file = String(name);
            if ((file.endsWith('HEAD') || file === 'turning.json') && ++seen >= wanted) resolve();
          });
      }),
      sleep(6_000),
    ]);
  } finally {
    for (const watcher of watchers) watcher.close();
  }
  await sleep(Math.random() * 40);
}

it(`crash test: ${KILLS} SIGKILLs of a clone merge and its undo never leave the two folders half turned`, async () => {
  const home = path.join(tmp, 'home');
  const dataDir = path.join(tmp, 'data');
  const { a, b } = await twoClones(tmp, home);
  const aMemory = await addMemories(home, a, {
    'MEMORY.md': '- [A](a.md) — a\n- [Shared](shared.md) — both\n',
    'a.md': topic('A', 'user', 'a'),
    'shared.md': topic('Shared', 'project', 'the same in both'),
    'team/MEMORY.md': '- [CI](ci.md) — CI\n',
    'team/ci.md': topic('CI', 'project', 'CI dropped Python 3.8.'),
  });
  const bMemory = await addMemories(home, b, {
    'MEMORY.md': '- [B](b.md) — b\n- [Shared](shared.md) — both\n',
    'b.md': topic('B', 'user', 'b'),
    'shared.md': topic('Shared', 'project', 'the same in both'),
  });
  await scanHome(home, { dataDir });
  const [from, into] = [sanitizeDirName(a), sanitizeDirName(b)];
  const now = async () => ({ a: await readTree(aMemory), b: await readTree(bMemory) });
  // What "as before" and "as after" are: one merge and its undo, done here.
  const apart = await now();
  const record = await mergeProjects({ home, dataDir }, from, into);
  const merged = await now();
  await undoMerge(dataDir, record.id);
  expect(await now()).toEqual(apart);
  expect(merged.a).toEqual({});
  expect(Object.keys(merged.b).sort()).toEqual(['MEMORY.md', 'a.md', 'b.md', 'shared.md', 'team/MEMORY.md', 'team/ci.md']);

  const historyDir = path.join(dataDir, 'history');
  let between = 0;
  let killedPuttingBack = 0;
  let leftHalf = false;
  const states = { apart: 0, merged: 0 };
  const args = [home, dataDir, from, into];
  let next = startWorker(writer, args);
  const goOn = (kill: number) => kill < KILLS || (between < BETWEEN_WANTED && kill < MAX_KILLS);
  let kills = 0;
  for (let kill = 0; goOn(kill); kill++) {
    kills = kill + 1;
    const w = await next;
    w.child.stdin?.end('go\n');
    await waitForKillMoment(historyDir, path.join(dataDir, 'merges'));
    w.child.kill('SIGKILL');
    const [, signal] = await w.exit;
    expect(signal, `the writer died on its own: ${w.stderr()}`).toBe('SIGKILL');
    expect(await processGroupGone(w.child.pid!)).toBe(true);
    if (leftHalf && !w.stdout().includes('recovered')) killedPuttingBack++;

    const left = await now();
    // At the kill itself, before anything is put back: every memory of A's in one folder at least (a turn writes it where it goes before it takes it out of where it was).
    const lost = Object.keys(apart.a).filter((f) => !(f in left.a) && !(f in left.b));
    expect(lost, `at kill ${kill}, memories in neither folder`).toEqual([]);
    const half = JSON.stringify(left) !== JSON.stringify(apart) && JSON.stringify(left) !== JSON.stringify(merged);
    if (half) between++;
    // Every other half-turned state is left for the next writer to put back, so that some kills
    // land while it does (a put-back killed is put back again).
    leftHalf = half && kill % 2 === 1 && goOn(kill + 1);
    if (leftHalf) {
      next = startWorker(writer, args);
      continue;
    }
    // What the next command, or the app's start, does first.
    const told = await finishUnfinishedTurn(dataDir);
    if (half) expect(told, 'a half-turned merge is put back, and said').toMatch(/^Memdir was stopped while /);
    const after = await now();
    const standing = (await listMergeRecords(dataDir)).filter((r) => !r.undone);
    if (JSON.stringify(after) === JSON.stringify(merged)) {
      states.merged++;
      expect(standing, `after kill ${kill}: merged, and one merge stands`).toHaveLength(1);
    } else {
      // On a failure, what each folder's history says happened: the kill moment is random.
      const story =
        JSON.stringify(after) === JSON.stringify(apart)
          ? ''
          : (
              await Promise.all(
                [aMemory, bMemory].map(async (d) => (await listHistory(d, { dataDir, limit: 6 })).map((e) => `${e.source}: ${e.summary}`).join('; ')),
              )
            ).join(' | ');
      expect(after, `after kill ${kill} (${told ?? 'nothing told'}; ${story}), the folders are neither as before the merge nor as after it`).toEqual(apart);
      states.apart++;
      expect(standing, `after kill ${kill}: apart, and no merge stands`).toEqual([]);
    }
    await fsckHistory(dataDir, true);
    next = startWorker(writer, args);
  }
  const last = await next;
  last.child.kill('SIGKILL');
  await last.exit;
  expect(await processGroupGone(last.child.pid!)).toBe(true);
  // The kills did land between the two folders of a turn, not only before or after one.
  expect(between, `${kills} kills`).toBeGreaterThanOrEqual(BETWEEN_WANTED);
  console.info(
    `turn crash test: ${kills} kills, ${between} between the folders (${killedPuttingBack} of the next writers killed while putting back), then ${states.apart} apart and ${states.merged} merged`,
  );
}, 420_000);
