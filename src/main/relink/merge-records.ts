/**
 * Merges done (relinks, clone merges, imports): one record per merge in
 * `<dataDir>/merges/<id>.json` naming every directory it changed and the history entry it made
 * there (what one undo puts back), and beside it `<id>/conflict-<n>` holding the bytes of each
 * file kept as a conflict until the user resolves it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type MergeConflict, type MergePlan, type MergeRecord, mergeRecordSchema } from '../../shared/contract/identity.js';
import { writeDataFile } from '../core/safe-fs.js';
import { MemoryError, projectsRoot } from '../memdir/index.js';
import { maskedName } from '../secrets/index.js';

const ID = /^\d{8}-\d{6}-[0-9a-f]{4}$/;
const pad = (n: number) => String(n).padStart(2, '0');

/** `<dataDir>/merges`. */
export function mergesDir(dataDir: string): string {
  return path.join(dataDir, 'merges');
}

/** A new id, `YYYYMMDD-HHMMSS-xxxx` (UTC): sortable by time, unique in the data dir. */
export async function newMergeId(dataDir: string, nowMs = Date.now()): Promise<string> {
  const d = new Date(nowMs);
  const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  for (;;) {
    const id = `${stamp}-${randomBytes(2).toString('hex')}`;
    const taken = await fs.access(path.join(mergesDir(dataDir), `${id}.json`)).then(
      () => true,
      () => false,
    );
    if (!taken) return id;
  }
}

export async function saveMergeRecord(dataDir: string, record: MergeRecord): Promise<void> {
  await writeDataFile(path.join(mergesDir(dataDir), `${record.id}.json`), `${JSON.stringify(mergeRecordSchema.parse(record), null, 2)}\n`, {
    what: 'the record of the merge',
  });
}

/** One record, or null when there is none by that id (or it is unreadable). */
export async function readMergeRecord(dataDir: string, id: string): Promise<MergeRecord | null> {
  if (!ID.test(id)) return null;
  try {
    const parsed = mergeRecordSchema.safeParse(JSON.parse(await fs.readFile(path.join(mergesDir(dataDir), `${id}.json`), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Every record, newest first; unreadable ones are skipped. */
export async function listMergeRecords(dataDir: string): Promise<MergeRecord[]> {
  let names: string[];
  try {
    names = await fs.readdir(mergesDir(dataDir));
  } catch {
    return [];
  }
  const ids = names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -5))
    .filter((id) => ID.test(id))
    .sort()
    .reverse();
  const out: MergeRecord[] = [];
  for (const id of ids) {
    const record = await readMergeRecord(dataDir, id);
    if (record) out.push(record);
  }
  return out;
}

function conflictFile(dataDir: string, id: string, n: number): string {
  return path.join(mergesDir(dataDir), id, `conflict-${n}`);
}

/** Keep the bytes of conflict `n` of merge `id` (written before anything is removed from the source). */
export async function keepConflictBytes(dataDir: string, id: string, n: number, bytes: Buffer): Promise<void> {
  await writeDataFile(conflictFile(dataDir, id, n), bytes);
}

export async function readConflictBytes(dataDir: string, id: string, n: number): Promise<Buffer | null> {
  return fs.readFile(conflictFile(dataDir, id, n)).catch(() => null);
}

/**
 * Whether a merge was made in the Claude Code home `home` (what `--home` selects, as for every
 * command): the memory it merged into is one of that home's projects. Records are kept per data
 * folder, which one Memdir shares between every home it is pointed at.
 */
export function mergeInHome(record: MergeRecord, home: string): boolean {
  const rel = path.relative(projectsRoot(home), record.plan.target.memoryDir);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** Refuse merge `id` when it was made in another home than `home` (`memdir merge conflicts|resolve|undo --home H`). */
export async function checkMergeHome(dataDir: string, id: string, home: string): Promise<void> {
  const record = await readMergeRecord(dataDir, id);
  if (record && !mergeInHome(record, home))
    throw new MemoryError(
      'not-found',
      `Merge ${id} was made in another Claude Code home (into ${record.plan.target.memoryDir}), not in ${home}; give its home, or leave out --home.`,
    );
}

/**
 * A conflict a merge kept, as it may be shown (the app, the CLI): each secret in its file's name
 * masked, the one rule for names (secrets `maskedName`), as a team sync conflict's key is. The
 * record keeps the name; a conflict is found again by its number.
 */
export async function shownMergeConflict(conflict: MergeConflict): Promise<MergeConflict> {
  return { ...conflict, file: (await maskedName(conflict.file)).masked };
}

/**
 * A plan as it may be shown: every file it names — its files, the index lines it adds or leaves
 * past the cut, and the warnings and blockers that name them — named as {@link shownMergeConflict}
 * names a conflict's.
 */
export async function shownMergePlan<P extends MergePlan>(plan: P): Promise<P> {
  const masked = new Map<string, string>();
  const shown = async (name: string): Promise<string> => {
    let said = masked.get(name);
    if (said === undefined) masked.set(name, (said = (await maskedName(name)).masked));
    return said;
  };
  const files = await Promise.all(plan.files.map(async (f) => ({ ...f, file: await shown(f.file) })));
  const areas = await Promise.all(
    plan.areas.map(async (a) => ({ ...a, indexAdded: await Promise.all(a.indexAdded.map(shown)), notInIndex: await Promise.all(a.notInIndex.map(shown)) })),
  );
  // Longest first: a name that holds another is replaced whole.
  const renamed = [...masked].filter(([name, said]) => name !== said).sort(([a], [b]) => b.length - a.length);
  const said = (text: string): string => renamed.reduce((t, [name, as]) => t.split(name).join(as), text);
  return { ...plan, files, areas, warnings: plan.warnings.map(said), blockers: plan.blockers.map(said) };
}

/** A record as it may be shown: every file its plan, its history entries and its conflicts name, as {@link shownMergeConflict} names a conflict's. */
export async function shownMergeRecord<R extends MergeRecord>(record: R): Promise<R> {
  const touched = await Promise.all(
    record.touched.map(async (t) => ({ ...t, files: await Promise.all(t.files.map(async (f) => (await maskedName(f)).masked)) })),
  );
  return { ...record, plan: await shownMergePlan(record.plan), touched, conflicts: await Promise.all(record.conflicts.map(shownMergeConflict)) };
}
