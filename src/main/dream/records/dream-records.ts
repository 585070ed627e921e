/**
 * Dream history (SPEC §5, "dream history with per-file diffs, and revert of any dream"): one JSON
 * record per dream in `<dataDir>/dreams/<id>.json`. Ids are unique per data dir and each record
 * names its memory dir, so `memdir dream revert <id>` needs nothing else. The changes themselves
 * live in the shadow history (the entry `dream <id>`); a dream held back for confirmation keeps
 * its staged changes beside its record (`<id>.plan.json`) until it is confirmed or superseded.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type DreamRecord, dreamRecordSchema } from '../../../shared/contract/dream.js';
import { writeDataFile } from '../../core/safe-fs.js';
import { DreamError } from '../dream-error.js';
import type { StagedChange } from '../plan/dream-plan.js';

/** `<dataDir>/dreams`. */
export function dreamsDir(dataDir: string): string {
  return path.join(dataDir, 'dreams');
}

const ID = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

/** Whether `id` has the shape of a dream id (checked before it names a file). */
export function isDreamId(id: string): boolean {
  return ID.test(id);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A new id, `YYYYMMDD-HHMMSS-xxxx` (UTC), sortable by time and unique in the data dir. */
export async function newDreamId(dataDir: string, nowMs = Date.now()): Promise<string> {
  const d = new Date(nowMs);
  const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  for (;;) {
    const id = `${stamp}-${randomBytes(2).toString('hex')}`;
    const taken = await fs.access(path.join(dreamsDir(dataDir), `${id}.json`)).then(
      () => true,
      () => false,
    );
    if (!taken) return id;
  }
}

/** Writes (or rewrites) a record atomically. */
export async function saveDreamRecord(dataDir: string, record: DreamRecord): Promise<void> {
  await writeDataFile(path.join(dreamsDir(dataDir), `${record.id}.json`), `${JSON.stringify(dreamRecordSchema.parse(record), null, 2)}\n`, {
    what: 'the record of the dream',
  });
}

/** One record, or null when there is none by that id (or it is unreadable). */
export async function readDreamRecord(dataDir: string, id: string): Promise<DreamRecord | null> {
  if (!isDreamId(id)) return null;
  try {
    const parsed = dreamRecordSchema.safeParse(JSON.parse(await fs.readFile(path.join(dreamsDir(dataDir), `${id}.json`), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The record of dream `id` for an operation on it (confirm, revert, diff): a clear not-found
 * error when there is none, naming the data dir it was looked for in (the CLI may point at another).
 */
export async function requireDreamRecord(dataDir: string, id: string): Promise<DreamRecord> {
  const record = await readDreamRecord(dataDir, id);
  if (!record) throw new DreamError('not-found', `There is no dream ${id} in ${dataDir}.`);
  return record;
}

/** Records, newest first, optionally of one memory dir. Unreadable records are skipped. */
export async function listDreamRecords(dataDir: string, opts: { memoryDir?: string; limit?: number } = {}): Promise<DreamRecord[]> {
  let names: string[];
  try {
    names = await fs.readdir(dreamsDir(dataDir));
  } catch {
    return [];
  }
  const ids = names
    .filter((n) => n.endsWith('.json') && !n.endsWith('.plan.json'))
    .map((n) => n.slice(0, -'.json'.length))
    .filter(isDreamId)
    .sort()
    .reverse();
  const out: DreamRecord[] = [];
  const wanted = opts.memoryDir ? path.resolve(opts.memoryDir) : null;
  for (const id of ids) {
    const record = await readDreamRecord(dataDir, id);
    if (!record || (wanted && path.resolve(record.memoryDir) !== wanted)) continue;
    out.push(record);
    if (opts.limit && out.length >= opts.limit) break;
  }
  return out;
}

/** What a held-back dream needs to be applied later. */
export interface PendingPlan {
  version: 1;
  id: string;
  memoryDir: string;
  changes: StagedChange[];
  retarget: [string, string][];
  stale: string[];
  descriptions: [string, { from: string; to: string }][];
  /** The index texts Orient read (scope index rel → text), to detect edits since. */
  indexes: [string, string | null][];
}

function planFile(dataDir: string, id: string): string {
  return path.join(dreamsDir(dataDir), `${id}.plan.json`);
}

export async function savePendingPlan(dataDir: string, plan: PendingPlan): Promise<void> {
  // Private: it holds memory contents.
  await writeDataFile(planFile(dataDir, plan.id), JSON.stringify(plan), { mode: 0o600 });
}

export async function readPendingPlan(dataDir: string, id: string): Promise<PendingPlan | null> {
  if (!isDreamId(id)) return null;
  try {
    const plan = JSON.parse(await fs.readFile(planFile(dataDir, id), 'utf8')) as PendingPlan;
    return plan.version === 1 && plan.id === id && Array.isArray(plan.changes) ? plan : null;
  } catch {
    return null;
  }
}

export async function removePendingPlan(dataDir: string, id: string): Promise<void> {
  if (isDreamId(id)) await fs.rm(planFile(dataDir, id), { force: true });
}
