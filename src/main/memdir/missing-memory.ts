/**
 * What a person is told when a memory they named is not there. "No longer exists" is a claim about
 * the past: made only when Memdir's history saw the file (deleted or renamed outside Memdir since);
 * a name that never was a memory — mistyped, or from an old link — is "There is no memory named X
 * in <project>", as a project not found is "There is no project X".
 */
import { quoteName } from '../../shared/visible-text.js';
import { listHistory } from '../history/index.js';
import { MemoryError } from './memory-error.js';

/**
 * The not-found error for `rel` (relative to `memoryDir`: `notes.md`, `team/notes.md`), where
 * `where` names the memory for the sentence (`/work/shop`, `the team memory of /work/shop`).
 */
export async function missingMemory(memoryDir: string, rel: string, where: string, dataDir?: string): Promise<MemoryError> {
  const seen = await listHistory(memoryDir, { file: rel, limit: 1, ...(dataDir ? { dataDir } : {}) }).then(
    (entries) => entries.length > 0,
    () => false,
  );
  return new MemoryError(
    'not-found',
    seen ? `${rel} no longer exists; it may have been deleted or renamed outside Memdir.` : `There is no memory named ${quoteName(rel)} in ${where}.`,
  );
}
