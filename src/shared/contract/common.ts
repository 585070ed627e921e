/** Schemas shared by several parts of the contract. */
import * as z from 'zod';
import { TOPIC_MAX_BYTES } from '../limits.js';
import { MEMORY_TYPES, SCOPES } from '../memory-types.js';

/** A project, by its sanitised directory name under `projects/`. */
export const projectRef = z.object({ dir: z.string().min(1).max(400) });

/** A memory directory of a project: the private one or its team directory. */
export const dirRef = projectRef.extend({ scope: z.enum(SCOPES).default('private') });

/** A topic file in a memory directory: one file name, no folders. */
export const fileName = z.string().min(1).max(255);

/**
 * A memory's body. The real limit is the written file's size in bytes (TOPIC_MAX_BYTES, checked
 * by the service on the whole file); a longer string in UTF-16 units is over it in any case.
 */
export const memoryBody = z.string().max(TOPIC_MAX_BYTES);

export const topicFields = z.object({
  name: z.string().trim().min(1, 'A memory needs a name.').max(200),
  description: z.string().max(1000),
  type: z.enum(MEMORY_TYPES),
});

export const historyEntrySchema = z.object({
  rev: z.string(),
  time: z.string(),
  source: z.string(),
  summary: z.string(),
  files: z.array(z.object({ path: z.string(), status: z.enum(['added', 'modified', 'deleted', 'renamed']), from: z.string().optional() })),
});
export type HistoryEntryShape = z.infer<typeof historyEntrySchema>;

/** A history an import brought in (`refs/memdir/imports/<id>`), listed beside the memory dir's own: its entries restore as the dir's own do. */
export const importedHistorySchema = z.object({
  /** The import's merge record. */
  id: z.string(),
  /** Its newest entry. */
  rev: z.string(),
  /** What was imported, null when the merge record is gone. */
  source: z.string().nullable(),
  importedAt: z.string().nullable(),
  entries: z.array(historyEntrySchema),
  /** The import was undone (`memdir merge undo`): its entries are listed to read, and a restore from them is refused. */
  undone: z.boolean(),
});
export type ImportedHistoryShape = z.infer<typeof importedHistorySchema>;

/** Fingerprints of secrets the person chose to save anyway, after the save was refused for them (a save refused carries them in its error's `secrets`). */
export const allowSecrets = z
  .array(z.string().regex(/^[0-9a-f]{16}$/))
  .max(100)
  .optional();

export const writeResult = z.object({ file: z.string(), rev: z.string().nullable() });
