/**
 * Writing extraction's operations (R-EXTRACT): through memory-service — and so through
 * `transact` (lock, outside changes recorded first, one history entry with source `extract`)
 * and safe-fs (atomic, confined, no symlinks). All operations of one span share one history
 * entry: the service calls nest inside one outer transaction.
 *
 * In Claude Code's memory-store mode no index loads and the client writes no pointer (recorded:
 * test/fixtures/claude-code-extract/observed-stores-2.1.332.json): neither does this.
 *
 * Idempotent, because a run interrupted after writing is finished from its journal after a
 * restart: a `create` whose file already holds exactly what it would write is done (its index
 * pointer is added if the crash fell between the two writes); an `update` whose file already
 * reads as its result is done. Anything else that changed meanwhile is refused with a reason,
 * never overwritten.
 *
 * An update accepted from the review queue carries the text it was proposed from (`baseOf`), as
 * does one applied at once (the text the model read, kept in the run's journal): a file that changed since gets the proposal merged onto it line by line (shared/line-merge.ts),
 * so what it gained meanwhile stays; when the changes overlap, or the base is unknown (a queue
 * written before Memdir kept it), nothing is written and the file as it is now is handed back.
 */
import fs from 'node:fs/promises';
import type { ExtractOperation } from '../../shared/contract/extract.js';
import { TEAM_DIR } from '../../shared/limits.js';
import { listInWords } from '../../shared/size-text.js';
import { mergeLines } from '../../shared/line-merge.js';
import { type ChangeDescription, transact } from '../history/index.js';
import { applyFixes, createMemory, MemoryError, parseTopicFile, serializeTopicFile, type TopicFields, updateMemory } from '../memdir/index.js';
import { UnsafePathError, resolveInside } from '../core/confined-path.js';
import { SecretFoundError } from '../secrets/index.js';

/** What became of one operation. */
export interface AppliedOperation {
  operation: ExtractOperation;
  ok: boolean;
  /** Why it was not written. */
  reason: string | null;
  /** Not written because the file changed since the update was proposed, in a way that overlaps it: the file as it is now. */
  current?: string;
}

/** The result of applying a span's operations. */
export interface ApplyResult {
  results: AppliedOperation[];
  /** The history revision that records them, or null when nothing changed. */
  rev: string | null;
}

async function readIfExists(memoryDir: string, rel: string): Promise<string | null> {
  const abs = await resolveInside(memoryDir, rel);
  try {
    return await fs.readFile(abs, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function fieldsOf(op: ExtractOperation, sessionId: string | null): TopicFields {
  return { name: op.name, description: op.description, type: op.type, ...(op.action === 'create' && sessionId ? { originSessionId: sessionId } : {}) };
}

/** The file an operation writes, by path in the memory dir: `feedback_ci.md`, `team/project_freeze.md`. */
export function operationPath(op: Pick<ExtractOperation, 'scope' | 'file'>): string {
  return op.scope === 'team' ? `${TEAM_DIR}/${op.file}` : op.file;
}

/** An operation as a history summary names it: `create feedback_ci.md`, `update team/project_freeze.md`. */
export function describeOperation(op: ExtractOperation): string {
  return `${op.action} ${operationPath(op)}`;
}

const DONE: Record<ExtractOperation['action'], string> = { create: 'created', update: 'updated' };

/**
 * Applied operations said as a person would, one verb per kind:
 * `Created feedback_ci.md and user_role.md; updated team/project_freeze.md`.
 */
export function sayApplied(ops: readonly ExtractOperation[]): string {
  const said = (['create', 'update'] as const).flatMap((action) => {
    const files = ops.filter((op) => op.action === action).map(operationPath);
    return files.length > 0 ? [`${DONE[action]} ${listInWords(files)}`] : [];
  });
  const text = said.join('; ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The text an update writes onto `current`, proposed from `base`: the proposal itself when the
 * file is unchanged since, else the proposal's change merged onto the file; null when they overlap
 * or the base is unknown (`null`).
 */
function updatedText(fields: TopicFields, body: string, base: string | null, current: string): string | null {
  if (base === null) return null;
  const proposed = serializeTopicFile(fields, body, base);
  if (base === current) return proposed;
  const merged = mergeLines(base, proposed, current);
  return merged.clean ? merged.text : null;
}

/** Whether a `create` is already on disk exactly as it would be written (a crash after writing it). */
export async function isAlreadyCreated(memoryDir: string, op: ExtractOperation, sessionId: string | null): Promise<boolean> {
  if (op.action !== 'create') return false;
  const current = await readIfExists(memoryDir, operationPath(op)).catch(() => null);
  return current !== null && current === serializeTopicFile(fieldsOf(op, sessionId), op.body);
}

/**
 * Apply `operations` to `memoryDir` in one history entry (source `extract`). Each is written or
 * refused on its own; an I/O failure (lock busy, disk full) rejects and leaves the rest for a
 * retry — which the idempotence above makes safe. The entry's summary, `summary(written)`, names
 * only the operations written: a refused one (a token in its name, say) never reaches history,
 * where the History page, `memdir history` and every export's secret scan would read it.
 */
export async function applyOperations(
  memoryDir: string,
  operations: readonly ExtractOperation[],
  options: {
    dataDir: string;
    sessionId: string | null;
    summary: (written: readonly ExtractOperation[]) => string;
    /** Claude Code's memory-store mode (claude-code-stores.ts inStoreMode): no index loads, so no pointer is written, as the client writes none. */
    storeMode?: boolean;
    /** For an update: the file's text it was proposed from (null: unknown, so never written over a file); absent: written as it stands. */
    baseOf?: (op: ExtractOperation) => string | null | undefined;
  },
): Promise<ApplyResult> {
  if (operations.length === 0) return { results: [], rev: null };
  // `transact` reads the description when it records, after the writes (or after a failure): kept in step with what was written.
  const description: ChangeDescription = { source: 'extract', summary: options.summary([]), dataDir: options.dataDir };
  const { result, entry } = await transact(memoryDir, description, async () => {
    const results: AppliedOperation[] = [];
    const written = () => results.flatMap((r) => (r.ok ? [r.operation] : []));
    for (const op of operations) {
      const where = { memoryDir, scope: op.scope, dataDir: options.dataDir };
      const rel = operationPath(op);
      const fields = fieldsOf(op, options.sessionId);
      try {
        const current = await readIfExists(memoryDir, rel);
        if (op.action === 'create') {
          if (current !== null) {
            if (current !== serializeTopicFile(fields, op.body)) {
              results.push({ operation: op, ok: false, reason: `${rel} was created by someone else meanwhile; not overwritten.` });
              continue;
            }
            // Written before a crash: make sure the pointer made it too.
            // As createMemory does (and Claude Code): the pointer is appended wherever it lands.
            if (!options.storeMode) await applyFixes(where, [{ kind: 'add-to-index', file: op.file }], { source: 'extract', pastCut: true });
          } else {
            await createMemory(where, {
              fields,
              body: op.body,
              file: op.file,
              ...(op.hook ? { hook: op.hook } : {}),
              source: 'extract',
              ...(options.storeMode ? { noPointer: true } : {}),
            });
          }
        } else {
          if (current === null) {
            results.push({ operation: op, ok: false, reason: `${rel} no longer exists; not recreated.` });
            continue;
          }
          const base = options.baseOf?.(op);
          const hook = op.hook ? { hook: op.hook } : {};
          if (base === undefined) {
            if (serializeTopicFile(fields, op.body, current) !== current) {
              await updateMemory(where, { file: op.file, fields, body: op.body, ...hook, source: 'extract' });
            }
          } else {
            const text = updatedText(fields, op.body, base, current);
            if (text === null) {
              results.push({
                operation: op,
                ok: false,
                reason: `${rel} was changed since this update was proposed, and the change overlaps it: compare both and choose which to keep.`,
                current,
              });
              continue;
            }
            if (text !== current) {
              // The merge's own frontmatter values (a description changed since is kept), written onto the file as it is.
              const merged = parseTopicFile(text, op.file);
              const mergedFields = { name: merged.meta.name || op.name, description: merged.meta.description, type: merged.meta.type ?? op.type };
              await updateMemory(where, { file: op.file, fields: mergedFields, body: merged.body, baseText: current, ...hook, source: 'extract' });
            }
          }
        }
        results.push({ operation: op, ok: true, reason: null });
        description.summary = options.summary(written());
      } catch (error) {
        // A refused path or name (a secret in it, too) is this operation's problem; I/O trouble fails the whole run (retried).
        if (!(error instanceof MemoryError) && !(error instanceof UnsafePathError) && !(error instanceof SecretFoundError)) throw error;
        results.push({ operation: op, ok: false, reason: error.message });
      }
    }
    return results;
  });
  return { results: result, rev: entry?.rev ?? null };
}
