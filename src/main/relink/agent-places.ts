/**
 * Where a project's project and local agent memory is (R-AGENT): `.claude/agent-memory[-local]/`
 * of each directory its sessions start in (the one rule: `projectLaunchDirs`), and of the root.
 * Export/import and relink/merge carry each to the same place relative to the new root; a launch
 * directory outside the root (a linked worktree) has no such place, and is named instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_MEMORY_FOLDER } from '../../shared/limits.js';
import { type LaunchDirsOf, projectLaunchDirs } from '../memdir/index.js';

/** A directory under the root that may hold agent memory: `rel` is its path from the root, with `/` ('' for the root). */
export interface AgentPlace {
  rel: string;
  dir: string;
}

export function listDirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** `<dir>/.claude/agent-memory` or `agent-memory-local`. */
export const agentFolderOf = (dir: string, scope: 'project' | 'local') => path.join(dir, '.claude', AGENT_MEMORY_FOLDER[scope]);

/** How a place is named in a sentence: "the root", or "app/". */
export const placeName = (rel: string) => (rel ? `${rel}/` : 'the root');

/**
 * The root, then each launch directory of `project` under it (the main one first). Launch
 * directories outside the root that hold agent memory are returned apart, to be named.
 */
export function agentPlaces(root: string, project: LaunchDirsOf): { inside: AgentPlace[]; outside: string[] } {
  const { main, others } = projectLaunchDirs(project);
  const inside: AgentPlace[] = [{ rel: '', dir: root }];
  const outside: string[] = [];
  for (const dir of [main, ...others]) {
    if (!dir) continue;
    const rel = path.relative(root, dir);
    if (rel === '' || inside.some((p) => p.rel === rel.split(path.sep).join('/'))) continue;
    if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
      if ((['project', 'local'] as const).some((s) => listDirs(agentFolderOf(dir, s)).length > 0)) outside.push(dir);
    } else inside.push({ rel: rel.split(path.sep).join('/'), dir });
  }
  return { inside, outside };
}

/** A merge area's name: `agent:<scope>:<type>`, and `@<rel>` for a launch directory under the root. */
export const agentAreaName = (scope: 'project' | 'local', type: string, rel: string) => `agent:${scope}:${type}${rel ? `@${rel}` : ''}`;

/** The same place under another root. */
export const placeUnder = (root: string, rel: string) => (rel ? path.join(root, ...rel.split('/')) : root);
