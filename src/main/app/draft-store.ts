/**
 * Unsaved drafts on disk: one JSON file per draft in `<dataDir>/drafts/`, named by a hash of
 * its project, scope and file — so two windows keeping drafts of different files never race
 * over one file, and each write is atomic. A file that cannot be read is skipped, never fatal.
 * Each check-then-write (keep, discard) of one file holds that file's lock (core/lock.ts, across
 * processes), so two windows' writes of one memory never both pass the check and one drop the other.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type DraftRef, type StoredDraft, draftSchema } from '../../shared/contract/drafts.js';
import { withLock } from '../core/lock.js';
import { writeDataFile } from '../core/safe-fs.js';
import { MemoryError } from '../memdir/index.js';

function draftId(ref: DraftRef): string {
  const key = JSON.stringify([ref.dir, ref.file === null ? 'new' : ref.scope, ref.file]);
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 32);
}

function draftFile(dataDir: string, ref: DraftRef): string {
  return path.join(dataDir, 'drafts', `${draftId(ref)}.json`);
}

/** Run one check-then-write of a file's draft alone: no other keep or discard of it, in this process or another, in between. */
function alone<T>(dataDir: string, ref: DraftRef, work: (file: string) => Promise<T>): Promise<T> {
  const what = ref.file ?? 'the new memory';
  return withLock(path.join(dataDir, 'locks', `draft-${draftId(ref)}.lock`), () => work(draftFile(dataDir, ref)), {
    timeoutMs: 10_000,
    busy: `Another Memdir process is keeping the draft of ${what}; try again in a moment.`,
    lost: `Lost the lock on the draft of ${what} while keeping it (another process took it over); check it and try again.`,
  });
}

/** Which window asks, and the savedAt of the stored draft it last saw (null: none). */
export interface DraftWindow {
  window?: string | undefined;
  over?: string | null | undefined;
}

/** Whether the stored draft is another window's that this one has not seen: not replaced, not removed. */
function othersUnseen(stored: StoredDraft | null, asking: DraftWindow): boolean {
  if (stored === null || asking.window === undefined || stored.window === undefined) return false;
  return stored.window !== asking.window && stored.savedAt !== asking.over;
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
export async function keepDraft(dataDir: string, draft: Omit<StoredDraft, 'savedAt'> & DraftWindow, now = Date.now()): Promise<StoredDraft> {
  const { over, ...kept } = draft;
  return alone(dataDir, draft, async (file) => {
    const before = await readDraft(file);
    if (othersUnseen(before, { window: kept.window, over })) {
      const what = draft.file ?? 'a new memory';
      throw new MemoryError('conflict', `Another window has an unsaved draft of ${what}: this edit was not kept over it, and is only in this window.`);
    }
    // Each stored draft has its own time, later than the one it replaces: a window's `over` names exactly one.
    const at = Math.max(now, before === null ? 0 : Date.parse(before.savedAt) + 1);
    const stored: StoredDraft = { ...kept, savedAt: new Date(at).toISOString() };
    await writeDataFile(file, `${JSON.stringify(stored)}\n`, { mode: 0o600 });
    return stored;
  });
}

/**
 * Forget the draft of one file; false when there was none. Asked by a window (its own draft saved
 * or thrown away), another window's draft it has not seen stays (false): a save in one window never
 * deletes another window's unsaved edit of the same memory.
 */
export async function discardDraft(dataDir: string, ref: DraftRef, asking: DraftWindow = {}): Promise<boolean> {
  return alone(dataDir, ref, async (file) => {
    if (othersUnseen(await readDraft(file), asking)) return false;
    return fs.rm(file).then(
      () => true,
      () => false,
    );
  });
}
