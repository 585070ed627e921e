/**
 * A dream when the disk says no (a real full tmpfs, the memory folder's or Memdir's data folder's):
 * at every point the disk can run out, the memory folder is as it was or as the dream leaves it
 * (never between), MEMORY.md points only at memories that exist, History holds a dream entry
 * exactly when the folder changed, the dream's record says truthfully what happened (completed, or
 * failed with nothing changed — never `running`), no temp file is left, and the next dream, once
 * there is room, applies.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { indexEntries, parseIndex } from '../../shared/index-format.js';
import { listHistory } from '../history/history.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../core/test-support/small-disk.js';
import { defaultAppSettings } from '../settings/app-settings.js';
import { CONSOLIDATION_LOCK_FILE } from './consolidation-lock.js';
import { listDreamRecords } from './records/dream-records.js';
import { type DreamRunOptions, runDream } from './run-dream.js';
import { type DreamFixture, createDreamFixture, topic } from './test-support/dream-fixture.js';

let fx: DreamFixture;
const disks: SmallDisk[] = [];
const DUP = topic(
  { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback' },
  `Mocks hid a migration bug. ${'x'.repeat(6000)}`,
);

async function leftovers(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true }))
    if (/^(\.memdir-tmp-|tmp_obj_|tmp_idx_|tmp_pack_)|\.lock$/.test(e.name) && !e.parentPath.includes(`${path.sep}locks`))
      found.push(path.join(e.parentPath, e.name));
  return found;
}

function options(): DreamRunOptions {
  return {
    memoryDir: fx.memoryDir,
    projectDir: fx.projectDir,
    dir: fx.dir,
    dataDir: fx.dataDir,
    trigger: 'manual',
    settings: defaultAppSettings().dream,
    provider: null,
    force: true,
    allowDeletes: true,
  };
}

beforeEach(async () => {
  fx = await createDreamFixture('memdir-dream-disk-');
  await fs.rm(fx.memoryDir, { recursive: true });
});
afterEach(async () => {
  for (const d of disks.splice(0)) d.unmount();
  await fx.cleanup();
});

async function craft(): Promise<void> {
  await fx.write('feedback_db.md', DUP);
  await fx.write('feedback_db_copy.md', DUP);
  await fx.write(
    'project_freeze.md',
    topic({ name: 'Freeze', description: 'Release freeze starts next Friday', type: 'project' }, 'The freeze starts next Friday.'),
    '2026-03-06T12:00:00Z',
  );
  await fx.write(
    'MEMORY.md',
    [
      '- [Real database in tests](feedback_db.md) — Do not mock the database in integration tests',
      '- [Copy](feedback_db_copy.md) — Do not mock the database in integration tests',
      '- [Freeze](project_freeze.md) — Release freeze starts next Friday',
      '- [Gone](project_gone.md) — deleted long ago',
      '',
    ].join('\n'),
  );
  const lock = path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE);
  await fs.writeFile(lock, '');
  const prior = (Date.now() - 48 * 3_600_000) / 1000;
  await fs.utimes(lock, prior, prior);
}

describe.skipIf(smallDiskUnavailable !== null)(`a dream when the disk says no${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`, () => {
  for (const which of ['memory', 'data'] as const)
    for (const free of which === 'memory' ? [0, 4, 8, 12, 16] : [0, 8, 16, 96, 100, 104, 108, 112, 128])
      it(`${which} disk with ${free} KiB free: never half a dream, a true record, and the next dream applies`, async () => {
        const memDisk = mountSmallDisk(fx.memoryDir, 4 * 1024 * 1024);
        disks.push(memDisk);
        const dataDisk = mountSmallDisk(fx.dataDir, 4 * 1024 * 1024);
        disks.push(dataDisk);
        await craft();
        // A first look records the folder as found.
        await listHistory(fx.memoryDir, { dataDir: fx.dataDir });
        const before = await fx.files();
        (which === 'memory' ? memDisk : dataDisk).leaveFree(free * 1024);
        const first = await runDream(options()).then(
          (r) => ({ ok: true as const, r }),
          (e: unknown) => ({ ok: false as const, e: e as Error }),
        );
        memDisk.free();
        dataDisk.free();
        const mid = await fx.files();
        const changed = JSON.stringify(mid) !== JSON.stringify(before);
        const dreamEntries = (await listHistory(fx.memoryDir, { dataDir: fx.dataDir })).filter((e) => e.source === 'dream');
        const records = await listDreamRecords(fx.dataDir);
        if (!first.ok) expect(first.e.message).not.toMatch(/ENOSPC|Something went wrong|git |sha1/);
        expect(dreamEntries.length).toBe(changed ? 1 : 0);
        for (const entry of indexEntries(parseIndex(mid['MEMORY.md'] ?? ''))) if (changed) expect(Object.keys(mid)).toContain(entry.file);
        // The record is true: completed exactly when the folder changed; never left running.
        for (const r of records) expect(r.status).not.toBe('running');
        if (changed) expect(records.map((r) => r.status)).toContain('completed');
        else expect(records.map((r) => r.status)).not.toContain('completed');
        if (first.ok && first.r.record) {
          if (!changed) expect(first.r.record.status).not.toBe('completed');
          if (first.r.record.status === 'failed') expect(first.r.record.error).not.toMatch(/ENOSPC|Something went wrong|git |sha1/);
        }
        expect(await leftovers(fx.memoryDir)).toEqual([]);
        expect(await leftovers(fx.dataDir)).toEqual([]);

        if (!changed) {
          const again = await runDream(options());
          expect(again.record?.status).toBe('completed');
        }
        expect((await listHistory(fx.memoryDir, { dataDir: fx.dataDir })).filter((e) => e.source === 'dream')).toHaveLength(1);
        expect(await fx.read('feedback_db_copy.md')).toBeNull();
      });
});
