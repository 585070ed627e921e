/**
 * Restoring from history — the one way, shared by the app's History view (`history.restore`) and
 * `memdir restore` (issue 17, item 1): one memory file with its index pointer, or the whole memory
 * directory, as it was at a revision.
 */
import { restoreFromHistory } from '../history/index.js';
import { restoreMemoryFile, type UndoResult } from './undo-change.js';

/**
 * Restore `file` (restoreMemoryFile: its pointer comes back too, the notes say where) or, without
 * one, the whole memory directory (no notes) to how it was at `rev`, as a new `restore` entry;
 * the entry is null when nothing changed.
 */
export async function restoreRevision(opts: { memoryDir: string; dataDir?: string; rev: string; file?: string }): Promise<UndoResult> {
  const history = opts.dataDir ? { dataDir: opts.dataDir } : {};
  if (opts.file) return restoreMemoryFile({ memoryDir: opts.memoryDir, ...history, rev: opts.rev, file: opts.file });
  return { entry: await restoreFromHistory(opts.memoryDir, opts.rev, history), notes: [] };
}
