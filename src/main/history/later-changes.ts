/**
 * What later entries did to the files of an earlier one: what an undo asks before it writes
 * (undo-change.ts), so that a change made since is named, never silently lost.
 */
import { checkFile, readLog, requireRepo, resolveRev } from './history.js';
import { type HistoryEntry, type HistoryFileChange, toEntry } from './log-format.js';
import type { HistoryOptions } from './history.js';

/** What a later entry did to one file: the entry, and its change to the file (a rename names the file as `from`). */
export interface LaterChange {
  entry: HistoryEntry;
  change: HistoryFileChange;
}

/**
 * For each of `files`, the newest entry after `rev` that touched it — the one to undo first
 * before undoing `rev` — with what it did to the file. Only entries on the line from `rev` to
 * now count (a team merge's other side is not a change made here). A file no later entry
 * touched is absent from the map.
 */
export async function laterChanges(memoryDir: string, rev: string, files: readonly string[], opts: HistoryOptions = {}): Promise<Map<string, LaterChange>> {
  const found = new Map<string, LaterChange>();
  for (const { file, ...later } of await changesAfter(memoryDir, rev, files, opts, true)) if (!found.has(file)) found.set(file, later);
  return found;
}

/** Every entry after `rev` that touched `file`, newest first, with what it did to it (see laterChanges). */
export async function everyLaterChange(memoryDir: string, rev: string, file: string, opts: HistoryOptions = {}): Promise<LaterChange[]> {
  return (await changesAfter(memoryDir, rev, [file], opts)).map(({ entry, change }) => ({ entry, change }));
}

/** `newestOnly`: only each file's newest change is wanted, so an older delete's entry is not read whole (one git run each). */
async function changesAfter(
  memoryDir: string,
  rev: string,
  files: readonly string[],
  opts: HistoryOptions,
  newestOnly = false,
): Promise<(LaterChange & { file: string })[]> {
  const paths = files.map(checkFile);
  const found: (LaterChange & { file: string })[] = [];
  if (paths.length === 0) return found;
  const repo = await requireRepo(memoryDir, opts.dataDir);
  const hash = await resolveRev(repo, rev, memoryDir);
  // Newest first; limited to the files, so a rename away shows as the file deleted: read that entry whole to say where it went.
  for (const logged of await readLog(repo, ['--first-parent', `${hash}..HEAD`], paths)) {
    const entry = toEntry(logged);
    for (const change of logged.files) {
      // A rename between two of the files touched both: the one it wrote, and the one it took away.
      if (change.from !== undefined && paths.includes(change.from)) found.push({ file: change.from, entry, change });
      if (!paths.includes(change.path) || (newestOnly && found.some((f) => f.file === change.path))) continue;
      const whole = change.status === 'deleted' ? (await readLog(repo, ['-1', logged.rev]))[0] : undefined;
      const renamed = whole?.files.find((f) => f.status === 'renamed' && f.from === change.path);
      found.push({ file: change.path, entry, change: renamed ?? change });
    }
  }
  return found;
}

/**
 * The memories taken away by the change `rev` that a later undo anyway brought back under their
 * earlier name (see BroughtBack), each with the entry that did, newest first. Only entries on the
 * line from `rev` to now count.
 */
export async function broughtBackSince(
  memoryDir: string,
  rev: string,
  opts: HistoryOptions = {},
): Promise<{ entry: HistoryEntry; path: string; as: string }[]> {
  const repo = await requireRepo(memoryDir, opts.dataDir);
  const hash = await resolveRev(repo, rev, memoryDir);
  const found: { entry: HistoryEntry; path: string; as: string }[] = [];
  for (const logged of await readLog(repo, ['--first-parent', `${hash}..HEAD`])) {
    for (const back of logged.broughtBack) if (back.rev === hash) found.push({ entry: toEntry(logged), path: back.path, as: back.as });
  }
  return found;
}
