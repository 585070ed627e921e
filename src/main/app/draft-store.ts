/**
 * Unsaved drafts on disk: one JSON file per draft in `<dataDir>/drafts/`, named by a hash of
 * its project, scope and file — so two windows keeping drafts of different files never race
 * over one file, and each write is atomic. A file that cannot be read is skipped, never fatal.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type DraftRef, type StoredDraft, draftSchema } from '../../shared/contract/drafts.js';
import { writeDataFile } from '../core/safe-fs.js';
import { MemoryError } from '../memdir/index.js';

function draftFile(dataDir: string, ref: DraftRef): string {
  const key = JSON.stringify([ref.dir, ref.file === null ? 'new' : ref.scope, ref.file]);
  return path.join(dataDir, 'drafts', `${crypto.createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
}

/** Every stored draft, newest first. */
export async function listDrafts(dataDir: string): Promise<StoredDraft[]> {
  const dir = path.join(dataDir, 'drafts');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const drafts: StoredDraft[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const parsed = draftSchema.safeParse(
      await fs.readFile(path.join(dir, name), 'utf8').then(
        (t) => JSON.parse(t) as unknown,
        () => null,
      ),
    );
    if (parsed.success) drafts.push(parsed.data);
  }
  return drafts.sort((a, b) => b.savedAt.localeCompare(a.savedAt));
}

async function readDraft(file: string): Promise<StoredDraft | null> {
  const text = await fs.readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed = draftSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Keep a draft (replacing the one of the same file); returns it as stored. Two windows on one
 * memory (the headless host in two tabs): a stored draft typed in another window that this one
 * has not seen (`over`, the savedAt of the stored draft it last saw) is not replaced — refused
 * with `conflict`, so the second window says so and the first window's edit is never lost unseen.
 */
export async function keepDraft(
  dataDir: string,
  draft: Omit<StoredDraft, 'savedAt'> & { over?: string | null | undefined },
  now = Date.now(),
): Promise<StoredDraft> {
  const { over, ...kept } = draft;
  const file = draftFile(dataDir, draft);
  if (kept.window !== undefined) {
    const before = await readDraft(file);
    if (before?.window !== undefined && before.window !== kept.window && before.savedAt !== over) {
      const what = draft.file ?? 'a new memory';
      throw new MemoryError('conflict', `Another window has an unsaved draft of ${what}: this edit was not kept over it, and is only in this window.`);
    }
  }
  const stored: StoredDraft = { ...kept, savedAt: new Date(now).toISOString() };
  await writeDataFile(file, `${JSON.stringify(stored)}\n`, { mode: 0o600 });
  return stored;
}

/** Forget the draft of one file; false when there was none. */
export async function discardDraft(dataDir: string, ref: DraftRef): Promise<boolean> {
  return fs.rm(draftFile(dataDir, ref)).then(
    () => true,
    () => false,
  );
}
