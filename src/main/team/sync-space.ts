/**
 * What one sync engine syncs (issue 18, item 5): a team's `memory/team/`, or the private memory
 * of a personal space — the memory directory itself, `team/` left out (the team sync owns it, and
 * a personal pull must never write where the team would upload it). One engine serves both; the
 * space says where its files are, where its state lives in the data dir, and how to name things.
 */
import { SKIPPED_TOP_FOLDERS, TEAM_DIR } from '../../shared/limits.js';

export interface SyncSpace {
  kind: 'team' | 'personal';
  /** The synced folder under the memory dir (`team`), or '' for the memory dir itself. */
  folder: string;
  /**
   * Top-level folders of the synced folder that are never synced in this space, compared
   * case-insensitively (one folder on macOS and Windows): for the private memory, `team/` and the
   * folders Claude Code's own memory scan leaves out (`logs/`, `sessions/`, `proposals/`).
   */
  exclude: readonly string[];
  /** The folder under the data dir holding this space's connections and their sync state. */
  dataFolder: string;
  /** "team memory" / "personal memory", in sentences. */
  noun: string;
  /** "Team sync" / "Personal sync", in titles. */
  title: string;
  /** Where an upload goes, in sentences: "the team" / "your personal space". */
  destination: string;
}

export const TEAM_SPACE: SyncSpace = {
  kind: 'team',
  folder: TEAM_DIR,
  exclude: [],
  dataFolder: 'team',
  noun: 'team memory',
  title: 'Team sync',
  destination: 'the team',
};

export const PERSONAL_SPACE: SyncSpace = {
  kind: 'personal',
  folder: '',
  exclude: [TEAM_DIR, ...SKIPPED_TOP_FOLDERS],
  dataFolder: 'personal',
  noun: 'personal memory',
  title: 'Personal sync',
  destination: 'your personal space',
};

/** How a key of `space` is shown and addressed relative to the memory dir (`team/x.md`, `x.md`). */
export function spaceRel(space: SyncSpace, key: string): string {
  return space.folder ? `${space.folder}/${key}` : key;
}

/** Whether a top-level name of the synced folder is left out of `space` (case-insensitive). */
export function isExcluded(space: SyncSpace, topName: string): boolean {
  if (space.exclude.length === 0) return false;
  const folded = topName.toLowerCase();
  return space.exclude.includes(folded);
}
