/**
 * Where a project's project and local agent memory is (R-AGENT): `.claude/agent-memory[-local]/`
 * of each directory its sessions start in (the one rule: `projectLaunchDirs`), and of the root.
 * Export/import and relink/merge carry each to the same place relative to the new root; a launch
 * directory outside the root (a linked worktree) has no such place, and is named instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_MEMORY_FOLDER } from '../../shared/limits.js';
import { type LaunchDirsOf, listSubfolders, projectLaunchDirs } from '../memdir/index.js';

/** A directory under the root that may hold agent memory: `rel` is its path from the root, with `/` ('' for the root). */
export interface AgentPlace {
  rel: string;
  dir: string;
}

/** `<dir>/.claude/agent-memory` or `agent-memory-local`. */
export const agentFolderOf = (dir: string, scope: 'project' | 'local') => path.join(dir, '.claude', AGENT_MEMORY_FOLDER[scope]);

/**
 * The sentence for an agent type's folder in `folder` that is a symbolic link (listSubfolders'
 * `link`): Claude Code uses it, but Memdir never moves or packs files through a link (readArea), so
 * it is left as it is — said, never silent. `left` says what that means here ("stays where it is").
 */
export function linkedAgentFolder(folder: string, type: string, left: string): string {
  const at = path.join(folder, type);
  let to = 'another folder';
  try {
    to = fs.realpathSync(at);
  } catch {
    // Gone since it was listed: the sentence still names the link.
  }
  return `The agent memory of ${type} in ${at} is a symbolic link to ${to}: it ${left}, as Memdir never follows a link with your files; copy what it leads to by hand if you want it there.`;
}

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
      if ((['project', 'local'] as const).some((s) => listSubfolders(agentFolderOf(dir, s)).length > 0)) outside.push(dir);
    } else inside.push({ rel: rel.split(path.sep).join('/'), dir });
  }
  return { inside, outside };
}

/** A merge area's name: `agent:<scope>:<type>`, and `@<rel>` for a launch directory under the root. */
export const agentAreaName = (scope: 'project' | 'local', type: string, rel: string) => `agent:${scope}:${type}${rel ? `@${rel}` : ''}`;

/** The same place under another root. */
export const placeUnder = (root: string, rel: string) => (rel ? path.join(root, ...rel.split('/')) : root);
