/**
 * What a scan of the agent home finds: the shapes behind `memdir scan --json` and the app's
 * dashboard, declared once as zod schemas (the app contract validates with them; the types
 * are derived). Field names are a contract (README documents them): add, never rename.
 */
import { z } from 'zod';
import { MEMORY_TYPES, SCOPES } from './memory-types.js';
import { problemSchema } from './problems.js';

export const indexSummarySchema = z.object({
  exists: z.boolean(),
  /** Lines as Claude Code counts them: after stripping frontmatter and block comments, trimmed. */
  lines: z.number(),
  /** The same text in UTF-8 bytes (what a file manager shows; the limit does not count these). */
  bytes: z.number(),
  /** The same text in UTF-16 code units: what Claude Code's 25,000 limit counts (R-INDEX). */
  chars: z.number(),
  /** Files whose pointers reach the agent, and those past the cut (R-INDEX). */
  loaded: z.array(z.string()),
  cut: z.array(z.string()),
  loadedLines: z.number(),
  loadedBytes: z.number(),
  loadedChars: z.number(),
  /** First 1-based line of the file past the cut, or null when everything reaches the agent. */
  firstCutLine: z.number().nullable(),
  /** Why Claude Code cuts it, in its words (`230 lines (limit: 200)`), or null. */
  reason: z.string().nullable(),
});
export type IndexSummary = z.infer<typeof indexSummarySchema>;

export const memorySummarySchema = z.object({
  /** Path relative to the memory directory it belongs to (the team dir for team memories). */
  file: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(MEMORY_TYPES).nullable(),
  scope: z.enum(SCOPES),
  bytes: z.number(),
  mtimeMs: z.number(),
  layout: z.enum(['flat', 'nested', 'none']),
});
export type MemorySummary = z.infer<typeof memorySummarySchema>;

export const memoryDirScanSchema = z.object({
  memoryDir: z.string(),
  exists: z.boolean(),
  index: indexSummarySchema,
  memories: z.array(memorySummarySchema),
  problems: z.array(problemSchema),
  /** Newest mtime among the index and topic files, or null when there are none. */
  lastChangeMs: z.number().nullable(),
});
export type MemoryDirScan = z.infer<typeof memoryDirScanSchema>;

/** R-SETTINGS: which Claude Code settings are in force for a project, and where they come from. */
export const projectSettingsSchema = z.object({
  autoMemoryEnabled: z.boolean(),
  autoMemoryEnabledSource: z.enum(['default', 'env', 'user', 'local', 'project']),
  autoMemoryDirectory: z.string().nullable(),
  autoMemoryDirectorySource: z.enum(['default', 'user', 'local']),
  autoDreamEnabled: z.boolean(),
  ignored: z.array(z.object({ file: z.string(), key: z.string(), reason: z.string() })),
  problems: z.array(z.object({ file: z.string(), message: z.string() })),
});
export type ProjectSettings = z.infer<typeof projectSettingsSchema>;

export const projectScanSchema = memoryDirScanSchema.extend({
  /** Sanitised directory name under `projects/`. */
  dir: z.string(),
  /** The project's real path, recovered from the `cwd` of its transcripts; null when none. */
  path: z.string().nullable(),
  /** The team memory (`memory/team/`), or null when the project has none. */
  team: memoryDirScanSchema.nullable(),
  transcripts: z.number(),
  settings: projectSettingsSchema,
});
export type ProjectScan = z.infer<typeof projectScanSchema>;

export const homeScanSchema = z.object({
  home: z.string(),
  exists: z.boolean(),
  projects: z.array(projectScanSchema),
});
export type HomeScan = z.infer<typeof homeScanSchema>;
