/**
 * The indexes of one bulk change, held in memory while it runs: a bulk change over 3,000 memories
 * read, parsed and rewrote MEMORY.md (24 KB, written atomically with its fsyncs) once per memory.
 * Inside {@link runIndexBatch} the memory service's index reader and writer (readIndex, writeIndex,
 * editPointers) work on the batch's copy, and each index that changed is written once at the end
 * (memory-service's writingIndexesOnce) — still atomically, in the same history entry.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ParsedIndex } from '../../shared/index-format.js';
import type { Scope } from '../../shared/memory-types.js';

/** One index held by a batch: the text it had on disk and its pointers as the batch has edited them. */
export interface BatchedIndex {
  where: { memoryDir: string; scope: Scope; dataDir?: string };
  before: string;
  parsed: ParsedIndex;
}

type Batch = Map<string, Promise<BatchedIndex | null>>;
const batches = new AsyncLocalStorage<Batch>();

/** Runs `fn` with a new batch; `flush` gets every index it held (after `fn`, also when `fn` threw). */
export async function runIndexBatch<T>(fn: () => Promise<T>, flush: (held: BatchedIndex[]) => Promise<void>): Promise<T> {
  const batch: Batch = new Map();
  let result: T;
  try {
    result = await batches.run(batch, fn);
  } catch (error) {
    // What was written before the failure keeps its index edits (the entry records it as incomplete).
    await flush(await heldIn(batch)).catch(() => undefined);
    throw error;
  }
  await flush(await heldIn(batch));
  return result;
}

async function heldIn(batch: Batch): Promise<BatchedIndex[]> {
  return (await Promise.all(batch.values())).filter((b): b is BatchedIndex => b !== null);
}

/**
 * The batch's copy of an index, read once by `load` (null: no batch, or no such index — a writer
 * that creates one writes it at once, seeded as ever). The caller edits `parsed` without awaiting
 * in between, so two memories changed side by side never lose each other's edit.
 */
export function batchedIndex(
  where: BatchedIndex['where'],
  load: () => Promise<{ parsed: ParsedIndex; text: string | null }>,
): Promise<BatchedIndex | null> | null {
  const batch = batches.getStore();
  if (!batch) return null;
  const key = `${where.memoryDir}\0${where.scope}`;
  let held = batch.get(key);
  if (!held) {
    held = load().then((r) => (r.text === null ? null : { where, before: r.text, parsed: r.parsed }));
    batch.set(key, held);
  }
  return held;
}
