/**
 * One undo for a whole merge (issue 18: "one undo"): every directory the merge changed gets
 * back, in one history entry of its own (`restore`), each file it wrote or removed as it was
 * just before — the parent of the merge's entry there — and the folders it created go again
 * when that leaves them empty. A file changed since the merge stops the
 * undo before anything is written (it would silently throw away that later work); the sentence
 * names it. Resolving a conflict the merge kept writes one history entry too, undone by
 * `memdir restore`.
 */
import type { MergeRecord } from '../../shared/contract/identity.js';
import {
  HistoryError,
  readAtRevision,
  readEntry,
  reinstateImportedHistory,
  removeFoldersCreatedBy,
  retireImportedHistory,
  transact,
} from '../history/index.js';
import { MemoryError, undoChange } from '../memdir/index.js';
import { refuseNewSecrets } from '../secrets/index.js';
import { removeFileConfined, writeFileAtomic } from '../core/safe-fs.js';
import { unionMerge } from '../../shared/line-union.js';
import { listMergeRecords, readConflictBytes, readMergeRecord, saveMergeRecord } from './merge-records.js';
import fs from 'node:fs';
import path from 'node:path';

function readNow(root: string, rel: string): string | null {
  try {
    return fs.lstatSync(path.join(root, rel)).isFile() ? fs.readFileSync(path.join(root, rel), 'utf8') : null;
  } catch {
    return null;
  }
}

async function before(memoryDir: string, rev: string, file: string, dataDir: string): Promise<string | null> {
  try {
    return await readAtRevision(memoryDir, `${rev}~1`, file, { dataDir });
  } catch (error) {
    // The merge's entry is the first of this history: nothing was there before it.
    if (error instanceof HistoryError) return null;
    throw error;
  }
}

async function requireRecord(dataDir: string, id: string): Promise<MergeRecord> {
  const record = await readMergeRecord(dataDir, id);
  if (!record) throw new MemoryError('not-found', `There is no merge ${id} in ${dataDir}; \`memdir merge list\` shows the merges done.`);
  return record;
}

/** Undo merge `id` (see the module comment); returns the updated record. */
export async function undoMerge(dataDir: string, id: string): Promise<MergeRecord> {
  const record = await requireRecord(dataDir, id);
  if (record.undone) throw new MemoryError('conflict', `Merge ${id} was already undone on ${record.undone.at}.`);
  const plans: { memoryDir: string; rev: string; files: { file: string; text: string | null }[] }[] = [];
  const changed: string[] = [];
  for (const t of record.touched) {
    const files: { file: string; text: string | null }[] = [];
    for (const file of t.files) {
      const after = await readAtRevision(t.memoryDir, t.rev, file, { dataDir });
      if (readNow(t.memoryDir, file) !== after) changed.push(path.join(t.memoryDir, file));
      files.push({ file, text: await before(t.memoryDir, t.rev, file, dataDir) });
    }
    plans.push({ memoryDir: t.memoryDir, rev: t.rev, files });
  }
  // A conflict resolved by writing brought part of the other side in since: undoing around it would leave a mix.
  for (const c of record.conflicts) if (c.status === 'resolved' && c.resolution !== 'here') changed.push(path.join(c.memoryDir, c.file));
  if (changed.length > 0) {
    throw new MemoryError(
      'conflict',
      `Cannot undo merge ${id}: ${changed.length === 1 ? 'this file was' : 'these files were'} changed since — ${changed.join(', ')}. Nothing was undone; put ${changed.length === 1 ? 'it' : 'them'} back with \`memdir restore\` first, or restore the directories from history.`,
    );
  }
  const revs: string[] = [];
  for (const p of plans) {
    const { entry } = await transact(
      p.memoryDir,
      {
        source: 'restore',
        summary: `Undo ${record.kind} ${id}`,
        body: `Put back ${p.files.map((f) => f.file).join(', ')} as they were before merge ${id}.`,
        dataDir,
      },
      async () => {
        for (const f of p.files) {
          if (f.text === null) {
            if (readNow(p.memoryDir, f.file) !== null) await removeFileConfined(p.memoryDir, f.file);
          } else await writeFileAtomic(p.memoryDir, f.file, f.text);
        }
      },
    );
    if (entry) revs.push(entry.rev);
    // The folders the merge made there (a relink's new memory folder and its project folder) go when empty.
    await removeFoldersCreatedBy(p.memoryDir, p.rev, { dataDir });
  }
  // The history an import brought in stays to read, but nothing restores from it any more.
  if (record.kind === 'import') await retireImportedHistory(record.plan.target.memoryDir, id, { dataDir });
  const updated: MergeRecord = { ...record, undone: { at: new Date().toISOString(), revs } };
  await saveMergeRecord(dataDir, updated);
  return updated;
}

/**
 * Undo history entry `rev` of `memoryDir` — memdir's undoChange, the one undo of an entry, for the
 * CLI's `memdir undo` and the app's History page alike. When that entry is the one undoing an
 * import wrote there (undoMerge above), the import stands again once its memories are back: its
 * history is restored from again and `memdir merge list` no longer says undone (it can be undone anew).
 */
export async function undoHistoryEntry(opts: Parameters<typeof undoChange>[0]): Promise<Awaited<ReturnType<typeof undoChange>>> {
  const undoneImports = opts.dataDir
    ? (await listMergeRecords(opts.dataDir)).filter(
        (r) => r.kind === 'import' && r.undone && path.resolve(r.plan.target.memoryDir) === path.resolve(opts.memoryDir),
      )
    : [];
  const rev = undoneImports.length > 0 ? (await readEntry(opts.memoryDir, opts.rev, { dataDir: opts.dataDir })).rev : null;
  const record = undoneImports.find((r) => rev !== null && r.undone!.revs.includes(rev));
  const done = await undoChange(opts);
  if (record && done.entry) {
    await reinstateImportedHistory(record.plan.target.memoryDir, record.id, { dataDir: opts.dataDir });
    await saveMergeRecord(opts.dataDir!, { ...record, undone: null });
  }
  return done;
}

/** Both versions of conflict `n`: the one in place and the one the merge kept. */
export async function conflictSides(dataDir: string, id: string, n: number): Promise<{ record: MergeRecord; here: string; moved: string; both: string }> {
  const record = await requireRecord(dataDir, id);
  const conflict = record.conflicts.find((c) => c.n === n);
  if (!conflict) throw new MemoryError('not-found', `Merge ${id} kept no conflict number ${n}.`);
  const kept = await readConflictBytes(dataDir, id, n);
  if (!kept) throw new MemoryError('not-found', `The kept version of ${conflict.file} is missing from Memdir's data folder.`);
  const here = readNow(conflict.memoryDir, conflict.file) ?? '';
  const moved = kept.toString('utf8');
  // What keeping both writes, and the text the app's merge editor starts from: every line of
  // both, common lines once, the version here first where they differ — one order for the CLI's
  // `--keep both` and the app alike.
  return { record, here, moved, both: unionMerge(here, moved) };
}

/**
 * Resolve conflict `n` of merge `id`: `here` keeps the file as it is (nothing written), `moved`
 * writes the version the merge kept, `both` every line of both (the one here first where they
 * differ), `merged` the given text — refused when it holds a secret neither version held, unless
 * its fingerprint is in `allowSecrets` (secrets/save-guard.ts). One history entry in that directory.
 */
export async function resolveMergeConflict(
  dataDir: string,
  id: string,
  n: number,
  keep: 'here' | 'moved' | 'both' | 'merged',
  text?: string,
  allowSecrets?: readonly string[],
): Promise<MergeRecord> {
  const { record, here, moved, both } = await conflictSides(dataDir, id, n);
  const conflict = record.conflicts.find((c) => c.n === n)!;
  if (conflict.status === 'resolved') throw new MemoryError('conflict', `${conflict.file} of merge ${id} was already resolved (${conflict.resolution}).`);
  if (keep === 'merged' && text === undefined) throw new MemoryError('invalid-input', 'Keeping a merged version needs the merged text (--file F).');
  const content = keep === 'moved' ? moved : keep === 'both' ? both : keep === 'merged' ? text! : null;
  if (keep === 'merged') await refuseNewSecrets({ label: conflict.file, text: text!, before: [here, moved], allow: allowSecrets });
  if (content !== null && content !== here) {
    const what = keep === 'moved' ? 'took the moved version' : keep === 'both' ? 'kept both versions' : 'saved a merge of both';
    await transact(conflict.memoryDir, { source: 'manual', summary: `Resolve ${conflict.file} of merge ${id}: ${what}`, dataDir }, () =>
      writeFileAtomic(conflict.memoryDir, conflict.file, content),
    );
  }
  const updated: MergeRecord = {
    ...record,
    conflicts: record.conflicts.map((c) => (c.n === n ? { ...c, status: 'resolved' as const, resolution: keep, resolvedAt: new Date().toISOString() } : c)),
  };
  await saveMergeRecord(dataDir, updated);
  return updated;
}
