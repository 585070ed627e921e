/**
 * Data-dir JSON files that more than one writer changes (the app, a `memdir` command in a
 * terminal, two calls in the app): `identity/projects.json`, `identity/kept-apart.json`,
 * `recall-recent.json`, `settings.json`, `credentials.json`. A
 * writer never writes back a whole copy it read earlier: it applies its own change to the file
 * as it is at that moment, under the data dir's one lock on the file's folder (withMemoryLock),
 * and writes the result atomically (writeDataFile) — so no writer drops another's change. A
 * damaged file is renamed aside (dated), never silently overwritten (credentials.json excepted).
 */
import fs from 'node:fs';
import path from 'node:path';
import { MemoryFileError } from '../core/confined-path.js';
import { renameConfined, writeDataFile } from '../core/safe-fs.js';
import { withMemoryLock } from '../core/memory-lock.js';

/** A data file as read now: its parsed contents (or `damaged`), the stat facts of the very file read, and when it last changed. */
export interface DataFileRead<T> {
  contents: T | 'damaged';
  facts: string;
  changedMs: number;
}

/** Size, times and inode: writers replace a data file by a rename, so a new inode each time. */
export function statFacts(st: fs.Stats): string {
  return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
}

/** Read a data file now: null when it is missing, `damaged` when `parse` refuses it (null); any other error is thrown. */
export async function readDataFileNow<T>(file: string, parse: (text: string) => T | null): Promise<DataFileRead<T> | null> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const st = await handle.stat();
    const text = await handle.readFile('utf8');
    return { contents: parse(text) ?? 'damaged', facts: statFacts(st), changedMs: Math.max(st.mtimeMs, st.ctimeMs) };
  } finally {
    await handle.close();
  }
}

/**
 * Rename a damaged data file aside, confined to its folder and never over another one:
 * `projects.json.damaged-20260101T120000Z` (then `…Z-2`, `…Z-3` within the same second).
 */
async function keepAside(file: string, now: Date): Promise<void> {
  const dated = `${path.basename(file)}.damaged-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;
  for (let n = 1; ; n++) {
    try {
      return await renameConfined(path.dirname(file), path.basename(file), n === 1 ? dated : `${dated}-${n}`);
    } catch (error) {
      if (!(error instanceof MemoryFileError && error.reason === 'exists') || n >= 20) throw error;
    }
  }
}

/** Options of {@link changeDataFile}. */
export interface ChangeDataFileOptions<T> {
  /** The data dir whose lock is taken (on the file's folder). */
  dataDir: string;
  /** The file's contents from its text, or null when it is damaged (not JSON, or not its shape). */
  parse: (text: string) => T | null;
  /** When the change is made: names a damaged file kept aside (a test seam). */
  now?: Date;
  /** The written file's mode (0o600 for what only this user may read). */
  mode?: number;
  /**
   * What a damaged file becomes when the change is written: renamed aside (the default: it may
   * hold something a person wants back), or replaced — only for a file whose contents cannot be
   * recovered anyway (credentials.json: its values may be encrypted with a key of another install).
   */
  damaged?: 'keep-aside' | 'replace';
}

/** What a change returns to write nothing (an invalid change, or nothing to change): the file stays as it is. */
export const LEAVE_AS_IS: unique symbol = Symbol('leave the data file as it is');

/**
 * Apply `change` to a data file as it is now and write what it returns (as JSON), under the
 * lock of the file's folder, atomically. `change` gets null when the file is missing or
 * damaged; a damaged file is kept aside (or replaced, see `damaged`) only when something is
 * written. A change that returns {@link LEAVE_AS_IS} writes nothing. Returns what was written.
 */
export async function changeDataFile<T, W>(file: string, change: (current: T | null) => W, options: ChangeDataFileOptions<T>): Promise<W> {
  return withMemoryLock(
    path.dirname(file),
    async () => {
      const read = await readDataFileNow(file, options.parse);
      const next = change(read && read.contents !== 'damaged' ? read.contents : null);
      if (next === LEAVE_AS_IS) return next;
      if (read?.contents === 'damaged' && options.damaged !== 'replace') await keepAside(file, options.now ?? new Date());
      await writeDataFile(file, `${JSON.stringify(next, null, 2)}\n`, options.mode !== undefined ? { mode: options.mode } : {});
      return next;
    },
    { dataDir: options.dataDir },
  );
}
