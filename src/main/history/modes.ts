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
import { MODE_TRAILER, parseTakenModes, type TakenMode } from './log-format.js';

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
 * Read once per change, with one git run over the entries that took files away (an undo of a bulk
 * delete brings back thousands) — and none of that when no entry ever recorded a mode.
 */
export function modeWhenTakenAway(repo: ShadowRepo): (abs: string) => Promise<number | undefined> {
  let taken: Promise<Map<string, number | undefined>> | undefined;
  return async (abs) => {
    const rel = path.relative(repo.workTree, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    taken ??= lastTakenModes(repo);
    return (await taken).get(rel.split(path.sep).join('/'));
  };
}

/** Each file some entry took away, with the mode the newest such entry recorded for it (undefined: none). */
async function lastTakenModes(repo: ShadowRepo): Promise<Map<string, number | undefined>> {
  const found = new Map<string, number | undefined>();
  const any = await git(repo, ['log', '-1', '--format=%H', `--grep=^${MODE_TRAILER}:`], { okCodes: [128] });
  if (any.code !== 0 || any.stdout.trim() === '') return found;
  // Newest first; without rename detection a rename away is its old name deleted.
  const out = await git(repo, ['log', '--first-parent', '--no-renames', '--diff-filter=D', '-z', '--name-status', '--format=%x1e%B%x1f']);
  for (const record of out.stdout.split('\x1e').slice(1)) {
    const [message = '', rest = ''] = record.split('\x1f');
    const tokens = rest.replace(/^\0/, '').replace(/^\n/, '').split('\0');
    const modes = parseTakenModes(message);
    for (let i = 0; i + 1 < tokens.length; i += 2) {
      const file = tokens[i + 1]!;
      if (tokens[i] === 'D' && !found.has(file)) found.set(file, modes.get(file));
    }
  }
  return found;
}
