/**
 * What a scan of the agent home finds: the shapes behind `memdir scan --json` and the app's
 * dashboard. Field names are a contract (README documents them); add, never rename.
 */
import type { MemoryType, Scope } from './memory-types.js';
import type { Problem } from './problems.js';

export interface IndexSummary {
  exists: boolean;
  /** Lines and UTF-8 bytes as Claude Code counts them (trimmed). */
  lines: number;
  bytes: number;
  /** Files whose pointers reach the agent, and those past the cut (R-INDEX). */
  loaded: string[];
  cut: string[];
  loadedLines: number;
  loadedBytes: number;
  /** First 1-based line past the cut, or null when everything reaches the agent. */
  firstCutLine: number | null;
}

export interface MemorySummary {
  /** Path relative to the memory directory it belongs to (the team dir for team memories). */
  file: string;
  name: string;
  description: string;
  type: MemoryType | null;
  scope: Scope;
  bytes: number;
  mtimeMs: number;
  layout: 'flat' | 'nested' | 'none';
}

export interface MemoryDirScan {
  memoryDir: string;
  exists: boolean;
  index: IndexSummary;
  memories: MemorySummary[];
  problems: Problem[];
  /** Newest mtime among the index and topic files, or null when there are none. */
  lastChangeMs: number | null;
}

export interface ProjectScan extends MemoryDirScan {
  /** Sanitised directory name under `projects/`. */
  dir: string;
  /** The project's real path, recovered from the `cwd` of its transcripts; null when none. */
  path: string | null;
  /** The team memory (`memory/team/`), or null when the project has none. */
  team: MemoryDirScan | null;
  transcripts: number;
}

export interface HomeScan {
  home: string;
  exists: boolean;
  projects: ProjectScan[];
}
