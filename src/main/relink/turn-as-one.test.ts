/**
 * What finishing a killed turn does with what it finds besides a half-turned merge (the half-turned
 * ones: turn-crash.test.ts, with real kills; the CLI's and the app's front doors: their tests).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { bundleWorker, startWorker } from '../../../bench/kill/harness.js';
import { processGroupGone } from '../history/test-support/crash-check.js';
import { scanHome } from '../memdir/scan-home.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { finishUnfinishedTurn, listMergeRecords, mergeProjects } from './index.js';
import { journaled, journalFile } from './turn-as-one.js';
import { leaveIntent } from './test-support/killed-turn.js';
import { addMemories, readTree, topic, twoClones } from './test-support/moved-project.js';

let tmp: string;
let dataDir: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-turn-')));
  dataDir = path.join(tmp, 'data');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

it('finds nothing to finish when no turn was under way, and says nothing', async () => {
  expect(await finishUnfinishedTurn(dataDir)).toBeNull();
});

it('leaves a merge that was done whole as it is when the process died only before removing its intent, and says nothing', async () => {
  const home = path.join(tmp, 'home');
  const { a, b } = await twoClones(tmp, home);
  const aMemory = await addMemories(home, a, { 'a.md': topic('A', 'user', 'a') });
  const bMemory = await addMemories(home, b, { 'b.md': topic('B', 'user', 'b') });
  await scanHome(home, { dataDir });
  const record = await mergeProjects({ home, dataDir }, sanitizeDirName(a), sanitizeDirName(b));
  const merged = { a: await readTree(aMemory), b: await readTree(bMemory) };
  await leaveIntent(dataDir, {
    op: 'apply',
    id: record.id,
    kind: 'merge',
    what: `merging projects/${sanitizeDirName(a)} into projects/${sanitizeDirName(b)} (merge ${record.id})`,
    turn: 'f00d',
    folders: [bMemory, aMemory],
    steps: [{ memoryDir: bMemory, head: null, writes: [{ file: 'a.md', before: null, after: Buffer.from(topic('A', 'user', 'a')).toString('base64') }] }],
    recordState: null,
    startedAt: new Date().toISOString(),
    pid: 2 ** 22 + 1,
  });
  expect(await finishUnfinishedTurn(dataDir)).toBeNull();
  expect({ a: await readTree(aMemory), b: await readTree(bMemory) }).toEqual(merged);
  expect((await listMergeRecords(dataDir)).map((r) => r.undone)).toEqual([null]);
  await expect(fs.access(journalFile(dataDir))).rejects.toThrow();
});

it('keeps aside an intent it cannot read, in a sentence naming where, and touches nothing else', async () => {
  await leaveIntent(dataDir, '{"op": "turn", "id": ');
  const told = await finishUnfinishedTurn(dataDir);
  expect(told).toMatch(/^Memdir found a note of an unfinished merge it cannot read \(.*turning\.json\.unreadable-\d+\); it was left as it is\./);
  const aside = /\((.*turning\.json\.unreadable-\d+)\)/.exec(told!)![1]!;
  expect(await fs.readFile(aside, 'utf8')).toBe('{"op": "turn", "id": ');
  await expect(fs.access(journalFile(dataDir))).rejects.toThrow();
  expect(await finishUnfinishedTurn(dataDir)).toBeNull();
});

it('leaves a turn under way in another Memdir process alone, and finishes it once that process is killed, keeping a memory Claude Code wrote there', async () => {
  const memoryDir = path.join(tmp, 'memory');
  await fs.mkdir(memoryDir);
  // Written outside Memdir (as Claude Code writes), never recorded: not the turn's (it writes b.md), so it stays.
  await fs.writeFile(path.join(memoryDir, 'a.md'), topic('A', 'user', 'a'));
  const holder = await startWorker(await bundleWorker('src/main/relink/test-support/turn-holder.ts'), [dataDir, memoryDir, '20261206-080000-abcd']);
  holder.child.stdin!.end('go\n');
  await expect.poll(() => holder.stdout(), { timeout: 15_000 }).toContain('holding');
  // Alive and holding the turn: not unfinished, only under way.
  expect(await finishUnfinishedTurn(dataDir)).toBeNull();
  await fs.access(journalFile(dataDir));
  holder.child.kill('SIGKILL');
  await holder.exit;
  expect(await processGroupGone(holder.child.pid!)).toBe(true);
  // Dead: its lock is taken over at once, and its turn finished (it had written nothing).
  expect(await finishUnfinishedTurn(dataDir)).toMatch(
    new RegExp(`^Memdir was stopped while undoing merge 20261206-080000-abcd \\(at .*\\): nothing of it was left to put back in ${memoryDir}, so `),
  );
  await expect(fs.access(journalFile(dataDir))).rejects.toThrow();
  expect(await fs.readdir(memoryDir)).toEqual(['a.md']);
  // A live holder is waited for up to 10 s before it is left to finish.
}, 40_000);

it('journals the folders a step makes, so putting a killed step back takes them away again (a sub-folder memory’s db/)', async () => {
  const memoryDir = path.join(tmp, 'memory');
  await fs.mkdir(path.join(memoryDir, 'kept'), { recursive: true });
  const plan = { op: 'apply' as const, id: '20261206-080000-abcd', kind: 'relink' as const, what: 'relinking', folders: [memoryDir], record: null };
  const made = await journaled(dataDir, plan, async (journal) => {
    await journal.plan(memoryDir, [
      { file: 'db/deep/sql.md', before: null, after: 'x' },
      { file: 'kept/a.md', before: null, after: 'y' },
      { file: 'MEMORY.md', before: null, after: 'z' },
    ]);
    return (JSON.parse(await fs.readFile(journalFile(dataDir), 'utf8')) as { steps: { made: string[] }[] }).steps[0]!.made;
  });
  expect(made.sort()).toEqual(['db', 'db/deep']);
});
