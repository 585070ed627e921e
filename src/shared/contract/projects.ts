/** Projects and their memories as the dashboard and the browser see them. */
import * as z from 'zod';
import { MEMORY_TYPES } from '../memory-types.js';
import { indexSummarySchema, launchDirSchema, memoryDirScanSchema, projectScanSchema, projectSettingsSchema } from '../scan-types.js';
import { projectIdentitySchema } from '../project-identity-schema.js';
import { query } from './define.js';
import { projectRef } from './common.js';

const countsByType = z.object(
  Object.fromEntries([...MEMORY_TYPES, 'untyped'].map((t) => [t, z.number()])) as Record<(typeof MEMORY_TYPES)[number] | 'untyped', z.ZodNumber>,
);

/** A scope's memories: how many, by type, and how many the agent never sees because they are past their index's cut (index-cut.ts). */
const scopeCountsSchema = z.object({ total: z.number(), byType: countsByType, cut: z.number() });

/** One dashboard row: enough to sort, filter and judge a project without its memory list. */
export const projectSummarySchema = z.object({
  dir: z.string(),
  path: z.string().nullable(),
  memoryDir: z.string(),
  exists: z.boolean(),
  private: scopeCountsSchema,
  team: scopeCountsSchema.nullable(),
  /** The index's load and cut; not the names of the files it loads (a project's own call has them): they were most of the list's bytes. */
  index: indexSummarySchema.omit({ loaded: true }),
  problems: z.object({ error: z.number(), warning: z.number(), hint: z.number() }),
  lastChangeMs: z.number().nullable(),
  transcripts: z.number(),
  /** Where the project's sessions were launched (R-LAYOUT) and whether each writes memory. */
  launchDirs: z.array(launchDirSchema),
  /** Set when Claude Code never reads this memory: the folder its sessions read instead. */
  readInstead: z.string().nullable(),
  settings: projectSettingsSchema,
  /** Remotes and root commits, else last known paths (issue 18). */
  identity: projectIdentitySchema,
});
export type ProjectSummary = z.infer<typeof projectSummarySchema>;

export const projectsContract = {
  'projects.list': query(
    'Every project in the home with counts, index load and health — the dashboard.',
    z.object({}),
    z.object({ home: z.string(), exists: z.boolean(), projects: z.array(projectSummarySchema) }),
  ),
  'projects.get': query('One project in full: its memories, index, problems and team memory.', projectRef, projectScanSchema),
};

export { memoryDirScanSchema };
