/**
 * Curation that respects the cut (R-INDEX, R-HEALTH): Health's fixes with their effect on the
 * loaded part shown first, Make room for an index past its limit, near-duplicate memories found
 * and merged, and the editor's "this repeats a memory" warning.
 */
import * as z from 'zod';
import { MEMORY_TYPES } from '../memory-types.js';
import { FIX_KINDS } from '../problems.js';
import { mutation, query } from './define.js';
import { dirRef, fileName, projectRef } from './common.js';

const figures = z.object({
  lines: z.number(),
  /** UTF-16 code units: what Claude Code's 25,000 counts. */
  chars: z.number(),
  /** Whether anything (a pointer or prose) is past the cut. */
  truncated: z.boolean(),
  loadedLines: z.number(),
  firstCutLine: z.number().nullable(),
  /** Pointers that reach the agent, and pointers past the cut. */
  loaded: z.number(),
  cut: z.number(),
});

/** What a write does to what the agent loads of MEMORY.md (R-INDEX), shown before it is applied. */
export const indexImpactSchema = z.object({
  /** Pointers that reach the agent now and would not after. */
  newlyCut: z.array(z.string()),
  /** Pointers past the cut now that would reach the agent after. */
  newlyLoaded: z.array(z.string()),
  changedIsCut: z.boolean(),
  before: figures,
  after: figures,
});
export type IndexImpactShape = z.infer<typeof indexImpactSchema>;

export const fixRequestSchema = z.object({ kind: z.enum(FIX_KINDS), file: z.string().max(1000), line: z.number().int().positive().nullable().optional() });
export type FixRequestShape = z.infer<typeof fixRequestSchema>;
const fixes = z.array(fixRequestSchema).min(1).max(5000);

const line = z.number().int().positive();
/** One Make room choice (see shared/index-room.ts). */
export const roomActionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('shorten'), line, hook: z.string().max(2000) }),
  z.object({ kind: z.literal('move-hook'), line, hook: z.string().max(2000) }),
  z.object({ kind: z.literal('drop'), line }),
  z.object({ kind: z.literal('merge'), line, into: line }),
  z.object({
    kind: z.literal('move-lines'),
    lines: z.array(line).min(1).max(5000),
    file: fileName,
    name: z.string().trim().min(1, 'The new memory needs a name.').max(200),
    description: z.string().max(1000),
    type: z.enum(MEMORY_TYPES),
  }),
]);

const duplicateMemorySchema = z.object({
  file: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(MEMORY_TYPES).nullable(),
  body: z.string(),
  /** The whole file as shown: a merge is refused if it changed since. */
  text: z.string(),
  mtimeMs: z.number(),
});
export type DuplicateMemoryShape = z.infer<typeof duplicateMemorySchema>;

const duplicateKind = z.enum(['exact', 'near', 'similar']);

export const curationContract = {
  'health.preview': query(
    "What fixes would do to MEMORY.md's loaded part, before anything is written: together (orphans past the cut held back) and each alone. first: for the team scope, the private fixes applied before these (Fix all's order); the team's pointers are then previewed on MEMORY.md as those leave it.",
    dirRef.extend({ fixes, first: fixes.optional() }),
    z.object({
      applied: z.array(fixRequestSchema),
      heldBack: z.array(fixRequestSchema),
      stale: z.array(fixRequestSchema),
      impact: indexImpactSchema,
      each: z.array(z.object({ fix: fixRequestSchema, alone: z.enum(['loaded', 'below-cut', 'frees', 'quotes', 'stale']) })),
    }),
  ),
  'health.fix': mutation(
    'Apply safe fixes: quote names and descriptions a # comment cuts short, drop dangling and repeated pointers, then add orphans while their pointers reach the agent (pastCut: add them below the cut too).',
    dirRef.extend({ fixes, pastCut: z.boolean().optional() }),
    z.object({ applied: z.number(), heldBack: z.array(fixRequestSchema), impact: indexImpactSchema, rev: z.string().nullable() }),
  ),
  'index.makeRoom': mutation(
    'Make room in MEMORY.md: shorten hooks or move them into their memories, drop pointers, merge memories, move lines into a new topic file — one history entry. A merged-away team memory the sync server holds is retired (its text emptied, its pointers gone), not deleted: retired says which, in a sentence (null when none). Refused (conflict) when MEMORY.md is no longer baseText.',
    dirRef.extend({ baseText: z.string().max(5_000_000), actions: z.array(roomActionSchema).min(1).max(5000) }),
    z.object({ rev: z.string().nullable(), impact: indexImpactSchema, notes: z.array(z.string()), retired: z.string().nullable() }),
  ),
  'duplicates.list': query(
    "Near-duplicate memories of a project's private memory, most alike first, each pair with both memories' text.",
    projectRef,
    z.object({ pairs: z.array(z.object({ kind: duplicateKind, score: z.number(), a: duplicateMemorySchema, b: duplicateMemorySchema })) }),
  ),
  'duplicates.merge': mutation(
    'Merge memories into one (the keeper keeps its frontmatter and gains what the others said, with both sources listed; the others are deleted and stay in history) as one history entry. expect: the texts shown, refused if a file changed since.',
    projectRef.extend({ keeper: fileName, others: z.array(fileName).min(1).max(20), expect: z.record(z.string(), z.string()).optional() }),
    z.object({ rev: z.string().nullable(), keeper: z.string(), merged: z.array(z.string()), impact: indexImpactSchema }),
  ),
  'projects.timeline': query(
    "A project's timeline from its history, oldest first: after each change, how many memories there were and MEMORY.md's size as Claude Code counts it, with the change's source (dreams and syncs marked).",
    projectRef.extend({ limit: z.number().int().min(1).max(2000).optional() }),
    z.object({
      points: z.array(
        z.object({
          rev: z.string(),
          time: z.string(),
          source: z.string(),
          summary: z.string(),
          memories: z.number(),
          teamMemories: z.number(),
          indexLines: z.number().nullable(),
          indexChars: z.number().nullable(),
          indexCut: z.boolean(),
        }),
      ),
    }),
  ),
  'memories.similar': query(
    'The memories a draft (new, or an edit of `file`) would repeat, most alike first.',
    dirRef.extend({ file: fileName.nullable(), name: z.string().max(1000), description: z.string().max(5000), body: z.string().max(2_000_000) }),
    z.object({ matches: z.array(z.object({ file: z.string(), name: z.string(), description: z.string(), kind: duplicateKind, score: z.number() })) }),
  ),
};
