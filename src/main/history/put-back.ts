/**
 * Taking back a change the disk refused half-way (a full disk, a read-only one): every file it
 * wrote, removed or added is put back as the history's newest entry holds it — which `transact`
 * recorded just before the change began — and the folders it created are taken away; a file Claude
 * Code wrote meanwhile is not the change's and stays. So a save
 * that could not be finished, or could not be kept in History, leaves no half-made change (a
 * memory without its MEMORY.md pointer) and no change History does not hold; the person's text is
 * still in the editor, and saving again once there is room goes through.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type NotedWrites, removeFileConfined, writeFileAtomic } from '../core/safe-fs.js';
import { changedFiles, git, gitBlobs } from './git.js';
import { openShadowRepo } from './shadow-repo.js';

/**
 * Puts the files the change wrote (`noted`, safe-fs noteWrites) back as the newest history entry
 * of `memoryDir` has them (`to`: as that entry has them, for a change that recorded versions not on
 * disk as entries of its own first — history `replaces` — which are then dropped again, as far as
 * the disk lets git) (removed when it has none or there is no entry yet) — a file another
 * program (Claude Code) wrote while the change ran is not the change's and stays — then removes the
 * folders the change created that are empty. Removals first, so a full disk gets room back before
 * the old texts are written. Call it holding the memory lock.
 */
export async function putBackChange(memoryDir: string, dataDir: string, noted: NotedWrites, to: string | null = null): Promise<void> {
  const repo = await openShadowRepo(memoryDir, dataDir);
  if (repo) {
    const changed = (await changedFiles(repo, { putBack: true })).filter((rel) => noted.files.has(path.join(repo.workTree, rel)));
    const at = to ?? 'HEAD';
    const head = await git(repo, ['rev-parse', '--verify', '-q', at], { okCodes: [1] });
    const before = new Map<string, string>();
    if (head.code === 0 && changed.length > 0) {
      const tree = await git(repo, ['ls-tree', '-z', '-r', at, '--', ...changed]);
      for (const line of tree.stdout.split('\0').filter(Boolean)) {
        const tab = line.indexOf('\t');
        const [mode = '', type = '', oid = ''] = line.slice(0, tab).split(' ');
        // Links are never content (history never re-creates one).
        if (type === 'blob' && mode !== '120000') before.set(line.slice(tab + 1), oid);
      }
    }
    for (const rel of changed) {
      if (!before.has(rel)) await removeFileConfined(memoryDir, rel).catch((err: unknown) => ignoreMissing(err));
    }
    const blobs = await gitBlobs(repo, [...before.values()]);
    // Each with the mode it had before the change (a file the change took away too: modes.ts).
    for (const [rel, oid] of before) {
      const mode = noted.modes?.get(path.join(repo.workTree, rel)) ?? undefined;
      await writeFileAtomic(memoryDir, rel, blobs.get(oid)!, mode !== undefined ? { mode } : {});
    }
    // The replaced versions' entries go too (the change they belonged to is not made); a disk too
    // full for that leaves them, each still a whole version — the next record notes the file as it is.
    if (to) await git(repo, ['reset', '-q', '--mixed', to], { workTree: true, clearStaleLocks: true }).catch(() => undefined);
  }
  await removeEmptyFolders(memoryDir, noted.created);
}

function ignoreMissing(err: unknown): void {
  if ((err as { reason?: string }).reason !== 'missing') throw err;
}

/**
 * Removes each of `folders` (relative to `memoryDir`: `.` itself, `..` above it, or a folder
 * inside it) that is empty, deepest first — so a folder emptied by removing its created
 * sub-folder goes too. rmdir removes only an empty folder and never follows a link. Returns how
 * many were removed.
 */
export async function removeEmptyFolders(memoryDir: string, folders: readonly string[]): Promise<number> {
  const paths = folders
    .filter((rel) => rel === '.' || /^\.\.(\/\.\.)*$/.test(rel) || rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..'))
    .map((rel) => path.resolve(memoryDir, rel))
    .sort((a, b) => b.length - a.length);
  let removed = 0;
  for (const folder of paths) {
    const gone = await fs.rmdir(folder).then(
      () => true,
      () => false,
    );
    if (gone) removed++;
  }
  return removed;
}
