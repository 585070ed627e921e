/**
 * Drafts (issue 14, "never lose an edit"): an unsaved edit is kept per file — bound to its
 * project, scope and file, and to the text it started from — so switching memory or project, a
 * closed window or an app restart never drops it. Main keeps them in its data dir.
 */
import * as z from 'zod';
import { TOPIC_MAX_BYTES } from '../limits.js';
import { MEMORY_TYPES, SCOPES } from '../memory-types.js';
import { mutation, query } from './define.js';
import { fileName, memoryBody } from './common.js';

/** Which file a draft belongs to; `file` null is the one new, not yet created memory of a project. */
export const draftRefSchema = z.object({
  dir: z.string().min(1).max(400),
  scope: z.enum(SCOPES),
  file: fileName.nullable(),
});
export type DraftRef = z.infer<typeof draftRefSchema>;

export const draftSchema = draftRefSchema.extend({
  /** The memory directory the file was read from (a save carries it back to main). */
  memoryDir: z.string().min(1).max(4096),
  /** The file's text when the edit started; null for a new memory. A different text on disk now is a conflict, shown, never overwritten. */
  baseText: z.string().max(TOPIC_MAX_BYTES).nullable(),
  name: z.string().max(200),
  description: z.string().max(1000),
  /** null: no valid type picked yet (a file whose type was invalid or missing). */
  type: z.enum(MEMORY_TYPES).nullable(),
  body: memoryBody,
  /** For a new memory: the file name typed (empty = derived from type and name). */
  newFile: z.string().max(255),
  /** Repaired frontmatter YAML, when the file's own could not be read; else null. */
  frontmatter: z.string().max(100_000).nullable(),
  /** When main last stored it (ISO); set by main. */
  savedAt: z.string(),
  /** The window (one app page load) that typed it: another window's draft of the same file is never replaced unseen. */
  window: z.string().max(100).optional(),
});
export type StoredDraft = z.infer<typeof draftSchema>;

export const draftsContract = {
  'drafts.list': query('Every unsaved draft, newest first, in every project.', z.object({}), z.object({ drafts: z.array(draftSchema) })),
  'drafts.keep': mutation(
    'Keep (or update) the draft of one file; it survives switching, closing and restarts until saved or discarded. A stored draft another window typed, that this window has not seen (`over`: the savedAt of the stored draft it last saw, or null), is not replaced: `conflict`.',
    draftSchema.omit({ savedAt: true }).extend({ over: z.string().max(100).nullable().optional() }),
    z.object({ draft: draftSchema }),
  ),
  'drafts.discard': mutation(
    "Forget the draft of one file (saved, or thrown away by the person). Asked by a window (`window`, `over` as for drafts.keep), another window's draft it has not seen stays: `discarded` false.",
    draftRefSchema.extend({ window: z.string().max(100).optional(), over: z.string().max(100).nullable().optional() }),
    z.object({ discarded: z.boolean() }),
  ),
};
