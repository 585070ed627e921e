/**
 * Memory that follows the project (issue 18): orphaned memory directories and where their
 * project went, relink and merge (one undo), clone groups, and the conflicts a merge kept. The
 * shapes are also what `memdir orphans|relink|merge … --json` prints and what main keeps in
 * `<dataDir>/merges/<id>.json`.
 */
import * as z from 'zod';
import { IDENTITY_EVIDENCE } from '../project-identity.js';
import { projectIdentitySchema } from '../project-identity-schema.js';
import { mutation, query } from './define.js';
import { allowSecrets } from './common.js';

/** Where a candidate location was found. */
export const CANDIDATE_ORIGINS = ['transcripts', 'workspace', 'given'] as const;

/** A place an orphan's project may have gone, with why it looks like the same project. */
export const orphanCandidateSchema = z.object({
  /** The project directory (its key, R-KEY). */
  path: z.string(),
  evidence: z.array(z.enum(IDENTITY_EVIDENCE)),
  origin: z.enum(CANDIDATE_ORIGINS),
  /** The memory folder Claude Code uses for that path now, and how many memories it already holds. */
  dir: z.string(),
  memoryDir: z.string(),
  memories: z.number(),
  /** Other orphans that name the same place (relinking more than one merges them all into it). */
  claimedBy: z.array(z.string()),
});
export type OrphanCandidate = z.infer<typeof orphanCandidateSchema>;

/** A memory directory whose recorded project paths no longer exist. */
export const orphanSchema = z.object({
  dir: z.string(),
  memoryDir: z.string(),
  /** The project paths recorded for it (its key and launch directories), none of which exists now. */
  paths: z.array(z.string()),
  identity: projectIdentitySchema,
  memories: z.object({ private: z.number(), team: z.number(), files: z.array(z.string()) }),
  /** Newest of its memories' and transcripts' modification times, or null. */
  lastActivityMs: z.number().nullable(),
  candidates: z.array(orphanCandidateSchema),
});
export type Orphan = z.infer<typeof orphanSchema>;

export const orphanReportSchema = z.object({
  orphans: z.array(orphanSchema),
  /** Where Memdir looked for candidates besides the transcripts. */
  searched: z.object({ workspaces: z.array(z.string()), given: z.array(z.string()), folders: z.number() }),
});
export type OrphanReport = z.infer<typeof orphanReportSchema>;

/** What a merge does with one file (relative to its memory directory; team files as `team/x.md`). */
export const MERGE_ACTIONS = ['add', 'same', 'conflict', 'index'] as const;

export const mergeFileSchema = z.object({
  /** `private`, `team`, or `agent:<scope>:<agentType>` for an agent memory. */
  area: z.string(),
  file: z.string(),
  action: z.enum(MERGE_ACTIONS),
});

/** One memory directory a merge writes into, from where. */
export const mergeAreaSchema = z.object({
  area: z.string(),
  from: z.string().nullable(),
  to: z.string(),
  /** Index lines brought over, and those left out because the index would pass the cut (R-INDEX). */
  indexAdded: z.array(z.string()),
  notInIndex: z.array(z.string()),
});

/** What a relink, merge or import will do: shown before it is done. */
export const mergePlanSchema = z.object({
  kind: z.enum(['relink', 'merge', 'import']),
  source: z.object({ label: z.string(), dir: z.string().nullable(), memoryDir: z.string().nullable(), identity: projectIdentitySchema.nullable() }),
  target: z.object({ path: z.string().nullable(), dir: z.string(), memoryDir: z.string(), identity: projectIdentitySchema.nullable() }),
  files: z.array(mergeFileSchema),
  areas: z.array(mergeAreaSchema),
  evidence: z.array(z.enum(IDENTITY_EVIDENCE)),
  /** Things to know before going ahead (never a reason to stop). */
  warnings: z.array(z.string()),
  /** Why it cannot go ahead without `force` (the identities disagree, another orphan claims the place); empty when it can. */
  blockers: z.array(z.string()),
});
export type MergePlan = z.infer<typeof mergePlanSchema>;

/** A file both sides had with different contents: the target's stays, the other is kept here until resolved. */
export const mergeConflictSchema = z.object({
  n: z.number(),
  area: z.string(),
  /** Relative to `memoryDir`; as answered to the app and printed, each secret in the name masked (the record on disk keeps it). */
  file: z.string(),
  /** The memory directory the file is in. */
  memoryDir: z.string(),
  status: z.enum(['open', 'resolved']),
  resolution: z.enum(['here', 'moved', 'both', 'merged']).nullable(),
  resolvedAt: z.string().nullable(),
});
export type MergeConflict = z.infer<typeof mergeConflictSchema>;

/** One directory a merge changed: the history entry it made, for the undo. */
export const mergeTouchSchema = z.object({
  memoryDir: z.string(),
  rev: z.string(),
  files: z.array(z.string()),
});

/** A merge done: `<dataDir>/merges/<id>.json`. */
export const mergeRecordSchema = z.object({
  id: z.string(),
  kind: z.enum(['relink', 'merge', 'import']),
  createdAt: z.string(),
  plan: mergePlanSchema,
  touched: z.array(mergeTouchSchema),
  conflicts: z.array(mergeConflictSchema),
  /** Taken back (`memdir merge undo`, or an undo of its redo): when, and the history entries that did it, one per directory — undoing one of them brings the merge back. */
  undone: z.object({ at: z.string(), revs: z.array(z.string()) }).nullable(),
  /** Brought back by an undo of its undo: when, and the history entries that did it, one per directory — undoing one of them takes the merge back again. */
  redone: z
    .object({ at: z.string(), revs: z.array(z.string()) })
    .nullable()
    .default(null),
  /** The history entries of every turn before the one `undone` or `redone` names, and those of a turn a failed write stopped and put back (none in records written before they were kept): undoing one of them is refused, naming the current turn's entry. */
  earlier: z.array(z.string()).default([]),
});
export type MergeRecord = z.infer<typeof mergeRecordSchema>;

/** Projects that are one project by identity (two clones, a moved copy), for the dashboard. */
export const cloneGroupSchema = z.object({
  key: z.string(),
  projects: z.array(z.object({ dir: z.string(), path: z.string().nullable(), memories: z.number(), lastChangeMs: z.number().nullable() })),
  evidence: z.array(z.enum(IDENTITY_EVIDENCE)),
});
export type CloneGroup = z.infer<typeof cloneGroupSchema>;

export const conflictSidesSchema = z.object({
  conflict: mergeConflictSchema,
  here: z.string(),
  moved: z.string(),
  /** What "keep both" writes, and where the app's merge editor starts: every line of both, the version here first where they differ. */
  both: z.string(),
  source: z.string(),
});
export type ConflictSides = z.infer<typeof conflictSidesSchema>;

const dirName = z.string().min(1).max(400);
const absPath = z.string().min(1).max(4096);
const mergeId = z.string().regex(/^\d{8}-\d{6}-[0-9a-f]{4}$/, 'a merge id looks like 20261203-130500-ab12');

export const identityContract = {
  'identity.orphans': query(
    'Memory directories whose project paths no longer exist, with candidate new locations and the evidence.',
    z.object({ lookIn: z.array(absPath).max(20).default([]) }),
    orphanReportSchema,
  ),
  'identity.planRelink': query(
    'What relinking an orphan into the memory Claude Code uses for a path would do.',
    z.object({ dir: dirName, path: absPath }),
    mergePlanSchema,
  ),
  'identity.relink': mutation(
    "Move an orphan's memories (private, team, agent) to where Claude Code now reads them for a path; one history entry per directory, one undo.",
    z.object({ dir: dirName, path: absPath, force: z.boolean().default(false) }),
    mergeRecordSchema,
  ),
  'identity.cloneGroups': query(
    'Projects with the same identity (clones, moved copies) not kept apart.',
    z.object({}),
    z.object({ groups: z.array(cloneGroupSchema) }),
  ),
  'identity.planMerge': query("What merging one project's memory into another's would do.", z.object({ from: dirName, into: dirName }), mergePlanSchema),
  'identity.merge': mutation(
    "Merge one project's memory into another's (the same merge as a relink).",
    z.object({ from: dirName, into: dirName, force: z.boolean().default(false) }),
    mergeRecordSchema,
  ),
  'identity.keepApart': mutation(
    'Remember that these projects are kept apart: their group is not offered again.',
    z.object({ dirs: z.array(dirName).min(2).max(50) }),
    z.object({ kept: z.array(z.array(z.string())) }),
  ),
  'identity.merges': query('Merges done (relinks, merges, imports), newest first.', z.object({}), z.object({ merges: z.array(mergeRecordSchema) })),
  'identity.undo': mutation(
    'Undo a relink, merge or import: every directory it changed is put back. A file changed since (a memory, a MEMORY.md line it wrote, a resolved conflict) stops it (a conflict naming them) unless overwriteChanged; notes say which edited lines an undo anyway took away.',
    z.object({ id: mergeId, overwriteChanged: z.boolean().optional() }),
    mergeRecordSchema.extend({ notes: z.array(z.string()) }),
  ),
  'identity.recovered': mutation(
    'Finish a relink, merge, import or undo of one that a killed Memdir left between its folders (put back whole, as before it), and say so: the sentences not shown yet, each once.',
    z.object({}),
    z.object({ recovered: z.array(z.string()) }),
  ),
  'identity.conflict': query('Both versions of a file a merge kept.', z.object({ id: mergeId, n: z.number().int().min(0) }), conflictSidesSchema),
  'identity.resolve': mutation(
    'Resolve a merge conflict: keep the version here, take the moved one, keep both, or save a merged text.',
    z.object({
      id: mergeId,
      n: z.number().int().min(0),
      keep: z.enum(['here', 'moved', 'both', 'merged']),
      text: z.string().max(1_000_000).optional(),
      allowSecrets,
    }),
    mergeRecordSchema,
  ),
};
