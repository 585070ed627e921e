/** Reading and changing memories, the index, health fixes and history. */
import * as z from 'zod';
import { MEMORY_TYPES, SCOPES } from '../memory-types.js';
import { problemSchema } from '../problems.js';
import { secretOnSaveSchema } from '../secret-types.js';
import { mutation, query } from './define.js';
import { allowSecrets, dirRef, fileName, historyEntrySchema, importedHistorySchema, memoryBody, projectRef, topicFields, writeResult } from './common.js';

const bulkItem = z.object({ scope: z.enum(SCOPES), file: fileName });

/** The memory directory an editor read its file from (MemoryDoc.memoryDir). */
const openedFrom = z.string().min(1).max(4096);

/** A point in history: a commit id (or a name like HEAD~1), as history entries give it. */
const revision = z.string().min(1).max(200);

export const memoryDocSchema = z.object({
  file: z.string(),
  /** The memory directory it was read from: a save carries it back, and main refuses one that no longer matches. */
  memoryDir: z.string(),
  /** The whole file as it is on disk (the editor's base for conflict detection). */
  text: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(MEMORY_TYPES).nullable(),
  /** The type as written when it is not one of the four (`todo`), so the editor can say so; null otherwise. */
  rawType: z.string().nullable(),
  /** The YAML between the fences, as written (null without a closed block): editable when it cannot be read. */
  frontmatter: z.string().nullable(),
  /** Why the frontmatter cannot be read (not YAML, not key: value pairs), or null. */
  frontmatterError: z.string().nullable(),
  /** Fields the file does not have (the form shows a stand-in value, marked, that a save writes). */
  missingFields: z.array(z.enum(['name', 'description', 'type'])),
  body: z.string(),
  layout: z.enum(['flat', 'nested', 'none']),
  /** Frontmatter keys Memdir does not edit, shown read-only and kept on save. */
  otherKeys: z.array(z.string()),
  problems: z.array(problemSchema),
  mtimeMs: z.number(),
  /** A team memory the sync server holds (R-SYNC): it leaves by memories.retire — a delete or rename is refused. False for one never pushed, and for a private memory. */
  heldByServer: z.boolean(),
});
export type MemoryDoc = z.infer<typeof memoryDocSchema>;

/** What the agent sees of MEMORY.md (`memdir show --loaded --json`, R-INDEX). */
export const agentIndexViewSchema = z.object({
  /** The index exactly as Claude Code will load it next (empty: it loads none). */
  text: z.string(),
  truncated: z.boolean(),
  /** Why it is cut, in Claude Code's words, or null. */
  reason: z.string().nullable(),
  /** The Claude Code version the project's transcripts name (it words the warning), or null. */
  claudeCodeVersion: z.string().nullable(),
  /** Whether the project has a transcript at all (false: no session has run yet; true with no version: its transcripts do not say). */
  hasTranscript: z.boolean(),
  /** What the newest transcript recorded as injected, or null. */
  lastInjected: z.string().nullable(),
  /** With auto memory off (Claude Code then loads no index): why, naming the setting and where it came from; else null. */
  autoMemoryOff: z.string().nullable(),
  /** While Claude Code syncs the memory with its stores (it then loads no index): which folders, and what it means; else null. */
  storesLoadNoIndex: z.string().nullable(),
  /** With memories but no MEMORY.md: Claude Code writes one at its next session start and loads it (`text`); this says so. Else null. */
  builtByClaudeCode: z.string().nullable(),
  /**
   * No MEMORY.md, memories beside it: the file Claude Code would write at its next session start (index-build.ts), byte for
   * byte, which an edit starts from — a save of the typed lines alone would stop that build and leave every other memory
   * unlisted. Else null — and null with auto memory off or in memory-store mode: Claude Code 2.1.332 writes none then
   * (test/fixtures/claude-code-index/observed-built.json, memory-off*), so an edit starts from nothing.
   */
  builtFile: z.string().nullable(),
});
export type AgentIndexViewShape = z.infer<typeof agentIndexViewSchema>;

export const memoriesContract = {
  'memories.read': query('One memory file, parsed, with its problems.', dirRef.extend({ file: fileName }), memoryDocSchema),
  'memories.create': mutation(
    'Create a memory and its index pointer. A "user" memory is never created in the team scope. memoryDir is where the draft was started: a project whose memory has moved since refuses it. A secret in it is refused (`secrets` in the error) unless its fingerprint is in allowSecrets.',
    dirRef.extend({
      memoryDir: openedFrom,
      fields: topicFields,
      body: memoryBody,
      file: fileName.optional(),
      hook: z.string().max(500).optional(),
      allowSecrets,
    }),
    writeResult,
  ),
  'memories.update': mutation(
    'Save a memory, bound to the file it was opened from: project (dir), scope, file, the memory directory it was read from and the text it was based on. A project whose memory has moved since is refused; a file changed on disk since is a conflict carrying what is there now. frontmatter replaces a block that could not be read. A secret the file did not hold before is refused (`secrets` in the error) unless its fingerprint is in allowSecrets.',
    dirRef.extend({
      file: fileName,
      memoryDir: openedFrom,
      baseText: z.string(),
      fields: topicFields,
      body: memoryBody,
      frontmatter: z.string().max(100_000).optional(),
      hook: z.string().max(500).optional(),
      allowSecrets,
    }),
    writeResult,
  ),
  'memories.rename': mutation(
    'Rename a memory file; its index pointers follow. A new name holding a secret is refused (`secrets` in the error) unless its fingerprint is in allowSecrets. A team memory the sync server holds keeps its name (scope-refused, saying what to do instead).',
    dirRef.extend({ from: fileName, to: fileName, allowSecrets }),
    writeResult,
  ),
  'memories.delete': mutation(
    'Delete a memory and its pointers. It stays in history and can be restored. A team memory the sync server holds is not deleted (scope-refused, saying to retire it instead: memories.retire).',
    dirRef.extend({ file: fileName }),
    writeResult,
  ),
  'memories.retire': mutation(
    "Retire a team memory (R-SYNC: a deletion never propagates): its text emptied (a 0-byte file) and its pointers removed from team/MEMORY.md and MEMORY.md, one history entry, one undo; the next sync shares it. scope must be 'team'; a private memory is refused (delete it), as is one already retired.",
    dirRef.extend({ file: fileName }),
    writeResult,
  ),
  'memories.bulk': mutation(
    'Change several memories at once — set their type, move them between private and team, delete them, or retire team memories (as memories.retire) — as one history entry (one undo). A memory that cannot change is left as it is and listed with the reason (heldByServer: refused because the sync server holds it — retire it instead); one left for a secret in its name lists it (`secrets`, masked) and moves with its fingerprint in allowSecrets, as team.move does.',
    projectRef.extend({
      items: z.array(bulkItem).min(1).max(10_000),
      allowSecrets,
      action: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('delete') }),
        z.object({ kind: z.literal('retire') }),
        z.object({ kind: z.literal('set-type'), type: z.enum(MEMORY_TYPES) }),
        z.object({ kind: z.literal('move'), to: z.enum(SCOPES) }),
      ]),
    }),
    z.object({
      rev: z.string().nullable(),
      done: z.array(bulkItem),
      refused: z.array(bulkItem.extend({ reason: z.string(), secrets: z.array(secretOnSaveSchema).optional(), heldByServer: z.boolean().optional() })),
    }),
  ),
  'index.read': query(
    "MEMORY.md as text (empty when there is none); one Memdir will not edit comes as Claude Code reads it, with why it is read-only. With none, the file Claude Code would build is index.loaded's builtFile (one prediction for the tab).",
    dirRef,
    z.object({
      text: z.string(),
      exists: z.boolean(),
      /** Why Memdir will not edit it (a link out of the memory directory, not UTF-8, binary), or null: `text` is then what Claude Code reads. */
      readOnly: z.string().nullable(),
    }),
  ),
  'index.loaded': query(
    'MEMORY.md as the agent sees it: the text Claude Code will load next, and what the newest transcript says it loaded; with no MEMORY.md, the file Claude Code would write (builtFile), predicted once from the scan of the folder — none with auto memory off.',
    projectRef,
    agentIndexViewSchema,
  ),
  'index.save': mutation(
    'Save MEMORY.md. With baseText (the text the edit started from), a file changed on disk since gets the edit merged onto it line by line (`merged` true); where both changed the same lines, refused with a conflict carrying the text on disk (`current`). A secret it did not hold before is refused (`secrets` in the error) unless its fingerprint is in allowSecrets.',
    dirRef.extend({ text: z.string().max(5_000_000), baseText: z.string().optional(), allowSecrets }),
    writeResult.extend({ merged: z.boolean() }),
  ),
  'history.list': query(
    "Recorded changes of a project's memory, newest first (outside changes are recorded first), and the histories imports brought in, newest import first.",
    projectRef.extend({ file: z.string().optional(), limit: z.number().int().positive().max(1000).optional() }),
    z.object({ entries: z.array(historyEntrySchema), imported: z.array(importedHistorySchema) }),
  ),
  'history.diff': query(
    'Unified diff between two revisions (from null = the parent of `to`).',
    projectRef.extend({ from: z.string().nullable(), to: z.string(), file: z.string().optional() }),
    z.object({ diff: z.string() }),
  ),
  'history.read': query('A file as it was at a revision.', projectRef.extend({ rev: z.string(), file: z.string() }), z.object({ text: z.string().nullable() })),
  'history.restore': mutation(
    'Restore one file or the whole memory directory as it was at a revision. A whole snapshot retires (empties, its pointers gone with the old index) a team memory the sync server holds instead of removing it; a note says so. A memory restored alone gets its index pointer back too (at its old place when it still reaches the agent there); notes say where. When its name holds another memory written since it left (deleted, renamed away), a conflict names it: `as` restores it under that free name instead (its pointer naming it), overwriteChanged overwrites (what is there stays in history).',
    projectRef.extend({ rev: revision, file: z.string().max(400).optional(), as: z.string().max(400).optional(), overwriteChanged: z.boolean().optional() }),
    z.object({ entry: historyEntrySchema.nullable(), notes: z.array(z.string()) }),
  ),
  'history.plan': query(
    'What restoring a revision (one file, or the whole snapshot) would change now, file by file — shown before the restore is confirmed. Nothing is written. retired: a team memory the sync server holds that the whole snapshot does not have is emptied, not removed (R-SYNC).',
    projectRef.extend({ rev: revision, file: z.string().max(400).optional() }),
    z.object({ changes: z.array(z.object({ path: z.string(), status: z.enum(['added', 'modified', 'deleted', 'retired']) })) }),
  ),
  'history.undo': mutation(
    'Undo one history entry as a new entry: its files and its index lines go back. A team memory the sync server holds that the undo would take away (the entry created it) is retired instead — its text emptied, its pointers gone — and a note says so. Later index edits are kept; a file a later change touched stops the undo (a conflict naming that change) unless overwriteChanged; an entry already undone writes nothing (entry null; a note says so when its memory is back under another name, by an undo anyway — never brought back twice).',
    projectRef.extend({ rev: revision, overwriteChanged: z.boolean().optional() }),
    z.object({ entry: historyEntrySchema.nullable(), notes: z.array(z.string()) }),
  ),
  'history.deleted': query(
    'Memories deleted since history began, with the revision to restore them from.',
    projectRef,
    z.object({ files: z.array(z.object({ path: z.string(), rev: z.string(), deletedIn: z.string(), time: z.string() })) }),
  ),
};
