/**
 * Extraction when the disk says no (a real full tmpfs): nothing half-written, MEMORY.md and the
 * memories agree, History holds no change that is not on disk, the run's record says truthfully
 * that nothing was written, the turn is NOT marked as extracted — and the next run, once there is
 * room, writes it (from the run's journal: no second model call).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../core/test-support/small-disk.js';
import { CursorStore } from '../transcripts/index.js';
import { EventBus } from '../core/event-bus.js';
import { JobRunner } from '../jobs/index.js';
import { EXTRACT_CONSUMER } from './extraction-run.js';
import { ExtractionService } from './extraction-service.js';
import { waitFor } from '../core/test-support/wait-for.js';
import { testingMemory, useExtractHarness } from './test-support/extract-harness.js';
import { fakeProvider, operationsReply } from './test-support/extract-fixture.js';

const h = useExtractHarness();
const disks: SmallDisk[] = [];

async function folder(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile() && e.name !== '.filler')
      out[path.relative(dir, path.join(e.parentPath, e.name))] = await fs.readFile(path.join(e.parentPath, e.name), 'utf8');
  return out;
}

async function leftovers(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true }))
    if (/^(\.memdir-tmp-|tmp_obj_|tmp_idx_|tmp_pack_)|\.tmp$|\.lock$/.test(e.name) && !e.parentPath.includes(`${path.sep}locks`))
      found.push(path.join(e.parentPath, e.name));
  return found;
}

/** The memory folder on a small disk of its own (its files copied onto it). */
async function memoryOnSmallDisk(): Promise<SmallDisk> {
  const saved = await folder(h.fx.memoryDir);
  await fs.rm(h.fx.memoryDir, { recursive: true });
  const disk = mountSmallDisk(h.fx.memoryDir, 4 * 1024 * 1024);
  disks.push(disk);
  for (const [rel, text] of Object.entries(saved)) await fs.writeFile(path.join(h.fx.memoryDir, rel), text);
  return disk;
}

function dataOnSmallDisk(): SmallDisk {
  const disk = mountSmallDisk(h.fx.dataDir, 4 * 1024 * 1024);
  disks.push(disk);
  return disk;
}

const cursorOf = async () => (await new CursorStore(h.fx.dataDir).load(h.fx.transcript(), EXTRACT_CONSUMER)).status;

const bigMemory = { ...testingMemory, body: `${'Mocks hid a broken migration. '.repeat(400)}\n` };

describe.skipIf(smallDiskUnavailable !== null)(`extraction when the disk says no${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`, () => {
  afterEach(() => {
    for (const d of disks.splice(0)) d.unmount();
  });

  it('with the memory folder full: nothing written, the turn not marked extracted, and the next run writes it', async () => {
    const disk = await memoryOnSmallDisk();
    dataOnSmallDisk();
    await h.writeTurns('we never mock the database');
    // A first look records the folder as found.
    expect(await h.historyOf()).toEqual([]);
    h.fake.enqueue(operationsReply(bigMemory));
    const before = await folder(h.fx.memoryDir);
    disk.leaveFree(4096);
    const failed = await h.run().then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    const historyAfterFail = await h.historyOf();
    // What the run says: either it failed in a sentence, or its record says nothing was written.
    if (failed.ok) {
      expect(failed.r.wrote).toBe(false);
      for (const o of failed.r.outcomes) for (const op of o.operations) expect(op.disposition).not.toBe('applied');
    } else {
      expect(String((failed.e as Error).message)).toMatch(/full/);
      expect(String((failed.e as Error).message)).not.toMatch(/ENOSPC|Something went wrong/);
    }
    expect(await folder(h.fx.memoryDir)).toEqual(before);
    expect(await leftovers(h.fx.memoryDir)).toEqual([]);
    expect(await leftovers(h.fx.dataDir)).toEqual([]);
    expect(historyAfterFail.filter((e) => e.source === 'extract')).toEqual([]);
    // Not marked as extracted: no log entry claims the turn, the cursor has not moved past it.
    expect((await h.store().readLog()).filter((e) => e.kind === 'turns')).toEqual([]);
    expect(await cursorOf()).toBe('absent');

    disk.free();
    const again = await h.run();
    expect(again.wrote).toBe(true);
    expect(h.fake.messageRequests()).toHaveLength(1);
    expect(await h.indexFiles()).toEqual(['feedback_sql.md', 'feedback_real_db.md']);
    expect((await h.historyOf()).filter((e) => e.source === 'extract')).toHaveLength(1);
    expect((await h.store().readLog()).filter((e) => e.kind === 'turns')).toHaveLength(1);
    expect((await h.run()).outcomes).toEqual([]);
  });

  it("with Memdir's data folder full: nothing written, the turn not marked extracted, and the next run writes it", async () => {
    await memoryOnSmallDisk();
    const data = dataOnSmallDisk();
    await h.writeTurns('we never mock the database');
    expect(await h.historyOf()).toEqual([]);
    h.fake.enqueue(operationsReply(bigMemory));
    const before = await folder(h.fx.memoryDir);
    const entries = await h.historyOf();
    data.leaveFree(8 * 1024);
    const failed = await h.run().then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    if (failed.ok) {
      expect(failed.r.wrote).toBe(false);
    } else {
      expect(String((failed.e as Error).message)).toMatch(/full/);
      expect(String((failed.e as Error).message)).not.toMatch(/ENOSPC|Something went wrong|git /);
    }
    expect(await folder(h.fx.memoryDir)).toEqual(before);
    expect(await leftovers(h.fx.memoryDir)).toEqual([]);
    expect(await leftovers(h.fx.dataDir)).toEqual([]);
    data.free();
    expect(await h.historyOf()).toEqual(entries);
    expect(await cursorOf()).toBe('absent');

    h.fake.enqueue(operationsReply(bigMemory));
    const again = await h.run();
    expect(again.wrote).toBe(true);
    expect(await h.indexFiles()).toEqual(['feedback_sql.md', 'feedback_real_db.md']);
    expect((await h.historyOf()).filter((e) => e.source === 'extract')).toHaveLength(1);
    expect((await h.store().readLog()).filter((e) => e.kind === 'turns')).toHaveLength(1);
  });

  // Every point at which the disk can run out during a run: at each, the folder is as it was or as
  // the run writes it (never between), History agrees with it, and the next run finishes the job.
  const update = { ...testingMemory, action: 'update', file: 'feedback_sql.md', name: 'No ORM', description: 'We write SQL by hand' };
  for (const which of ['memory', 'data'] as const)
    for (const op of ['create', 'update'] as const)
      for (const free of which === 'memory' ? [0, 4, 8, 12, 16, 20, 24] : [0, 16, 40, 96, 104, 108, 112, 116, 120, 124, 128, 192])
        it(`${which} disk with ${free} KiB free, ${op}: never half a change, and the next run finishes it`, async () => {
          const memDisk = await memoryOnSmallDisk();
          const dataDisk = dataOnSmallDisk();
          await h.writeTurns('we never mock the database');
          expect(await h.historyOf()).toEqual([]);
          const body = `${randomBytes(6000).toString('hex')}\n`;
          h.fake.enqueue(operationsReply(op === 'create' ? { ...testingMemory, body } : { ...update, body }));
          const before = await folder(h.fx.memoryDir);
          (which === 'memory' ? memDisk : dataDisk).leaveFree(free * 1024);
          const first = await h.run().then(
            (r) => ({ ok: true as const, r }),
            (e: unknown) => ({ ok: false as const, e: e as Error }),
          );
          memDisk.free();
          dataDisk.free();
          const mid = await folder(h.fx.memoryDir);
          const extractEntries = (await h.historyOf()).filter((e) => e.source === 'extract');
          if (first.ok) {
            expect(first.r.wrote).toBe(true);
            expect(first.r.outcomes[0]!.operations[0]!.disposition).toBe('applied');
          } else {
            expect(first.e.message).toMatch(/full|no space/i);
            expect(first.e.message).not.toMatch(/ENOSPC|Something went wrong|git |sha1/);
            // What could not be saved, in words: never the name of one of Memdir's own files.
            expect(first.e.message).not.toMatch(/\.jsonl?\b|[0-9a-f]{32}/);
          }
          // History holds the folder as it is: an extract entry exactly when the folder changed.
          expect(extractEntries.length).toBe(JSON.stringify(mid) === JSON.stringify(before) ? 0 : 1);
          if (JSON.stringify(mid) === JSON.stringify(before)) expect(await cursorOf()).toBe('absent');
          expect(await leftovers(h.fx.memoryDir)).toEqual([]);
          expect(await leftovers(h.fx.dataDir)).toEqual([]);
          const turnsLogged = (await h.store().readLog()).filter((e) => e.kind === 'turns');
          // The record is true: no turn logged as extracted while nothing was written.
          if (!first.ok && JSON.stringify(mid) === JSON.stringify(before)) expect(turnsLogged).toEqual([]);

          h.fake.enqueue(operationsReply(op === 'create' ? { ...testingMemory, body } : { ...update, body }));
          const again = await h.run();
          if (!first.ok) expect(again.outcomes.flatMap((o) => o.operations.map((x) => x.disposition))).toEqual(['applied']);
          expect(await h.memory(op === 'create' ? 'feedback_real_db.md' : 'feedback_sql.md')).toContain(body.trim());
          expect(await h.indexFiles()).toEqual(op === 'create' ? ['feedback_sql.md', 'feedback_real_db.md'] : ['feedback_sql.md']);
          expect((await h.historyOf()).filter((e) => e.source === 'extract')).toHaveLength(1);
          expect((await h.store().readLog()).filter((e) => e.kind === 'turns')).toHaveLength(1);
          expect(await leftovers(h.fx.dataDir)).toEqual([]);
        });

  it("the app's background extraction: a turn only the watcher saw, whose note and run the full disk refused, is extracted with the next turn, not skipped as one from before Memdir watched", async () => {
    const data = dataOnSmallDisk();
    const service = new ExtractionService({
      home: () => h.fx.home,
      dataDir: h.fx.dataDir,
      env: {},
      jobs: new JobRunner(new EventBus()),
      provider: () => fakeProvider(h.fake, h.fx.dataDir),
    });
    // The first turn Memdir sees of this session ends while the data disk is full.
    await h.writeTurns('we never mock the database');
    data.leaveFree(0);
    // A session made since the watcher began: all of it is new to Memdir (seenFrom 0).
    await expect(service.watcherReported(h.fx.transcript(), { stage: 'quiet', seenFrom: 0, owed: true })).rejects.toThrow(/full/);
    await service.idle();
    expect(await cursorOf()).toBe('absent');
    expect(await h.store().loadCarry()).toEqual({});
    data.free();
    // The next turn ends once there is room: both turns are read, the first is not taken as one before watching.
    await h.writeTurns('and we write SQL by hand');
    await service.watcherReported(h.fx.transcript(), { stage: 'quiet', seenFrom: 0, owed: true });
    await service.idle();
    const outcomes = (await h.store().readLog()).flatMap((e) => (e.kind === 'turns' ? [e.outcome] : []));
    expect(outcomes.map((o) => o.reason)).not.toContain('before-watching');
    expect(outcomes.reduce((n, o) => n + o.turns, 0)).toBe(2);
    expect(h.fake.messageRequests().some((r) => JSON.stringify(r.body).includes('we never mock the database'))).toBe(true);
  });

  it('a turn the watcher reports twice (quiet, then idle) is owed once: after a run the full disk stopped, an older turn of a session never read is not taken as new', async () => {
    const data = dataOnSmallDisk();
    const service = new ExtractionService({
      home: () => h.fx.home,
      dataDir: h.fx.dataDir,
      env: {},
      jobs: new JobRunner(new EventBus()),
      provider: () => fakeProvider(h.fake, h.fx.dataDir),
    });
    await h.writeTurns('the deploy goes through staging');
    // What the watcher found when it began.
    const seenFrom = (await fs.stat(h.fx.transcript())).size;
    await h.writeTurns('we never mock the database');
    // Quiet: the last turn is owed; its run fails on the full disk.
    data.leaveFree(0);
    await service.watcherReported(h.fx.transcript(), { stage: 'quiet', seenFrom, owed: true }).catch(() => undefined);
    await service.idle();
    data.free();
    // Idle, no change since: the same turn again, with a stronger request to close it.
    await service.watcherReported(h.fx.transcript(), { stage: 'idle', seenFrom, owed: true });
    await service.idle();
    const sent = JSON.stringify(h.fake.messageRequests().map((r) => r.body));
    expect(sent).toContain('we never mock the database');
    expect(sent).not.toContain('the deploy goes through staging');
    expect(await h.store().loadCarry()).toEqual({});
  });

  it('a turn held while a run reads more turns than the carry held is still carried when the app quits before the follow-up run', async () => {
    const data = dataOnSmallDisk();
    const service = (bus = new EventBus()): ExtractionService =>
      new ExtractionService({
        home: () => h.fx.home,
        dataDir: h.fx.dataDir,
        env: {},
        jobs: new JobRunner(bus),
        provider: () => fakeProvider(h.fake, h.fx.dataDir),
      });
    const bus = new EventBus();
    const first = service(bus);
    // A run the full disk stopped: its turn is counted into the next run (more than the carry will hold).
    await h.writeTurns('we never mock the database');
    data.leaveFree(0);
    first.trigger(h.fx.transcript(), { trigger: 'hook', closeTrailingTurn: 'never', newTurns: 1 });
    await first.idle();
    data.free();
    // The next turn is held and its run starts; the model is slow to answer.
    let release = (): void => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    h.fake.setHandler(async (request) => {
      if (JSON.stringify(request.body).includes('and we write SQL by hand')) await answered;
      return operationsReply();
    });
    await h.writeTurns('and we write SQL by hand');
    await first.hold(h.fx.transcript(), { closeTrailingTurn: 'never', newTurns: 1 });
    first.trigger(h.fx.transcript(), { trigger: 'hook', closeTrailingTurn: 'never', newTurns: 1 });
    await waitFor(() => h.fake.messageRequests().some((r) => JSON.stringify(r.body).includes('and we write SQL by hand')));
    // Meanwhile a third turn ends and is held; the app quits once the run is done, before the follow-up run.
    await h.writeTurns('the staging database is shared');
    await first.hold(h.fx.transcript(), { closeTrailingTurn: 'never', newTurns: 1 });
    first.trigger(h.fx.transcript(), { trigger: 'hook', closeTrailingTurn: 'never', newTurns: 1 });
    let closing: { done: Promise<void> } | null = null;
    bus.subscribe((event) => {
      if (event.type === 'job' && event.job.kind === 'extract' && event.job.state === 'done') closing ??= { done: first.close() };
    });
    release();
    await (
      await waitFor(() => closing, 15_000, 'the run to finish and the app to quit')
    ).done;
    expect(await h.store().loadCarry()).toEqual({ [h.fx.transcript()]: { newTurns: 1, closeTrailingTurn: 'never' } });
    // The next start takes the held turn up.
    const second = service();
    expect(await second.resume()).toBe(1);
    await second.idle();
    expect(h.fake.messageRequests().filter((r) => JSON.stringify(r.body).includes('the staging database is shared'))).toHaveLength(1);
    expect(await h.store().loadCarry()).toEqual({});
  });
});
