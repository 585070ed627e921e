/**
 * What a scan of the agent home finds: the shapes behind `memdir scan --json` and the app's
 * dashboard, declared once as zod schemas (the app contract validates with them; the types
 * are derived). Field names are a contract (README documents them): add, never rename.
 */
import * as z from 'zod';
import { MEMORY_TYPES, SCOPES } from './memory-types.js';
import { problemSchema } from './problems.js';
import { projectIdentitySchema } from './project-identity-schema.js';

export const indexSummarySchema = z.object({
  exists: z.boolean(),
  /** Lines as Claude Code counts them: after stripping frontmatter and block comments (not for a sub-agent's index), trimmed. */
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
  /**
   * Of `cut`: the memories the agent never sees because every pointer to them is past the cut
   * (each once), and the pointers that name files that do not exist (one per pointer). Three
   * different facts, never added up (index-cut.ts).
   */
  cutMemories: z.array(z.string()),
  cutMissing: z.array(z.string()),
  /**
   * Of `loaded`: the pointers that name files that do not exist (Health's dangling links), one per
   * pointer, as `cutMissing` is of `cut` — they reach the agent, but point at nothing.
   */
  loadedMissing: z.array(z.string()),
});
export type IndexSummary = z.infer<typeof indexSummarySchema>;

/** The summary of a directory with no index: nothing of it loads. */
export const EMPTY_INDEX: IndexSummary = {
  exists: false,
  lines: 0,
  bytes: 0,
  chars: 0,
  loaded: [],
  cut: [],
  loadedLines: 0,
  loadedBytes: 0,
  loadedChars: 0,
  firstCutLine: null,
  reason: null,
  cutMemories: [],
  cutMissing: [],
  loadedMissing: [],
};

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
  /**
   * Larger than a memory may be (TOPIC_MAX_BYTES): Memdir does not read it whole (name and
   * description come from its beginning), Health says so, and Claude Code still offers it to recall.
   */
  tooLarge: z.boolean(),
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
  autoMemoryEnabledSource: z.enum(['default', 'env', 'managed', 'user', 'local', 'project']),
  /** The settings file or environment variable that decided it; null for the default. */
  autoMemoryEnabledFrom: z.string().nullable(),
  autoMemoryDirectory: z.string().nullable(),
  autoMemoryDirectorySource: z.enum(['default', 'env', 'managed', 'user', 'local', 'project']),
  autoMemoryDirectoryFrom: z.string().nullable(),
  /**
   * When the repository's own settings (local or the shared project settings) move the memory:
   * whether Claude Code trusts the folder (`.claude.json`). `claude -p` follows them either way;
   * a session does not start there until the folder is trusted, and then follows them.
   */
  autoMemoryDirectoryTrust: z.object({ trusted: z.boolean(), config: z.string().nullable(), folder: z.string().nullable() }).nullable(),
  /** `CLAUDE_CODE_REMOTE_MEMORY_DIR`: where `projects/<key>/memory` is instead of the home. */
  memoryBase: z.string().nullable(),
  /** Memdir's own scheduled dreams (R-DREAM-GATE); default off. */
  autoDreamEnabled: z.boolean(),
  autoDreamEnabledSource: z.enum(['default', 'managed', 'user', 'local', 'project']),
  autoDreamEnabledFrom: z.string().nullable(),
  /** The launch directory project and local settings were read for; null when none is known. */
  launchDir: z.string().nullable(),
  /** `CLAUDE_MEMORY_STORES` as a session sees it (the shell's, or a settings file's env block) and where it is set, or null: set, Claude Code runs in memory-store mode. */
  memoryStores: z.object({ value: z.string(), from: z.string() }).nullable(),
  /** Every settings file consulted, highest precedence first. */
  files: z.array(z.object({ source: z.enum(['managed', 'user', 'project', 'local']), file: z.string(), exists: z.boolean() })),
  ignored: z.array(z.object({ file: z.string(), key: z.string(), reason: z.string() })),
  problems: z.array(z.object({ file: z.string(), message: z.string() })),
});
export type ProjectSettings = z.infer<typeof projectSettingsSchema>;

/** A transcript folder of a project: the directory its sessions were launched in (R-LAYOUT). */
export const launchDirSchema = z.object({
  /** The `cwd` its transcripts record (null when none does). */
  cwd: z.string().nullable(),
  /** Its folder name under `projects/`: `sanitize(cwd)`, not the memory folder's. */
  folder: z.string(),
  transcripts: z.number(),
  /** Whether a session launched there writes memory, and which setting decides (R-SETTINGS). */
  autoMemoryEnabled: z.boolean(),
  autoMemoryEnabledSource: projectSettingsSchema.shape.autoMemoryEnabledSource,
  autoMemoryEnabledFrom: z.string().nullable(),
});
export type LaunchDirScan = z.infer<typeof launchDirSchema>;

export const projectScanSchema = memoryDirScanSchema.extend({
  /** Sanitised name of the memory folder under `projects/`. */
  dir: z.string(),
  /** The project's canonical key (R-KEY), from the launch directories of its transcripts; null when none. */
  path: z.string().nullable(),
  /** The team memory (`memory/team/`), or null when the project has none. */
  team: memoryDirScanSchema.nullable(),
  /** Session transcripts of every launch directory of the project. */
  transcripts: z.number(),
  /** The transcript folders whose sessions read this memory, most sessions first. */
  launchDirs: z.array(launchDirSchema),
  /** For a folder whose own sessions read another memory folder (Claude Code never reads this one): that folder. */
  readInstead: z.string().nullable(),
  settings: projectSettingsSchema,
  /** What the project is beyond its path: its repository's remotes and root commits, else its last known paths (issue 18). */
  identity: projectIdentitySchema,
});
export type ProjectScan = z.infer<typeof projectScanSchema>;

export const homeScanSchema = z.object({
  home: z.string(),
  exists: z.boolean(),
  projects: z.array(projectScanSchema),
});
export type HomeScan = z.infer<typeof homeScanSchema>;
