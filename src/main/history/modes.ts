/**
 * A memory's permission bits across a delete and its undo: git keeps no mode but 755, so a memory
 * a person had made readable by them alone (0600) came back from History readable by everyone.
 * A change's entry keeps the mode of each file it takes away (deleted, renamed away, moved) when
 * it is not a new file's (log-format MODE_TRAILER); a file an undo or a restore brings back is
 * created with the mode it had when it was last taken away (safe-fs NotedWrites.createMode).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { NotedWrites } from '../core/safe-fs.js';
import { git, type ShadowRepo } from './git.js';
import { MODE_TRAILER, parseTakenMode, type TakenMode } from './log-format.js';

/** The permission bits a file Memdir creates gets: 0666 less the umask. */
function newFileMode(): number {
  try {
    return 0o666 & ~process.umask();
  } catch {
    // A worker thread cannot read the umask: the usual one.
    return 0o644;
  }
}

/** The files of the change that `noted` saw which are gone now and had a mode a new file would not get, with that mode (paths in the memory dir). */
export async function takenModes(workTree: string, noted: NotedWrites): Promise<TakenMode[]> {
  const usual = newFileMode();
  const taken: TakenMode[] = [];
  for (const [abs, mode] of noted.modes ?? []) {
    if (mode === null || mode === usual) continue;
    const rel = path.relative(workTree, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    if ((await fs.lstat(abs).catch(() => null)) !== null) continue;
    taken.push({ path: rel.split(path.sep).join('/'), mode });
  }
  return taken;
}

/**
 * For a change that brings files back (an undo, a restore): the mode of the file at an absolute
 * path, as the newest entry that took it away recorded it; undefined when none did (a new file's).
 * The history is asked once whether any entry recorded a mode at all, so a person who never
 * changed one pays one git run per change.
 */
export function modeWhenTakenAway(repo: ShadowRepo): (abs: string) => Promise<number | undefined> {
  let any: Promise<boolean> | undefined;
  return async (abs) => {
    const rel = path.relative(repo.workTree, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    any ??= git(repo, ['log', '-1', '--format=%H', `--grep=^${MODE_TRAILER}:`], { okCodes: [128] }).then((r) => r.code === 0 && r.stdout.trim() !== '');
    if (!(await any)) return undefined;
    const file = rel.split(path.sep).join('/');
    // Path-limited, a rename away shows as the file deleted.
    const out = await git(repo, ['log', '-1', '--first-parent', '--no-renames', '--diff-filter=D', '--format=%B', '--', file], {
      env: { GIT_LITERAL_PATHSPECS: '1' },
    });
    return parseTakenMode(out.stdout, file);
  };
}
