// Issue 18: `memdir orphans`, `relink`, `merge undo|conflicts|resolve`, `export`, `import` — their
// words, JSON and exit codes, on a real home with a real git repository moved on disk.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { withMemoryLock } from '../../main/core/memory-lock.js';
import { addMemories, addSession, git, makeRepo, movedWithOneConflict, topic } from '../../main/relink/test-support/moved-project.js';
import { leaveIntent, undoKilledBetweenFolders, undoKilledInsideLastFolder } from '../../main/relink/test-support/killed-turn.js';
import { bundleWorker, sleep, startWorker } from '../../../bench/kill/harness.js';
import { headRevision, listHistory, readAtRevision } from '../../main/history/index.js';
import { createMemory, deleteMemory, renameMemory } from '../../main/memdir/index.js';
import { readMergeRecord } from '../../main/relink/index.js';
import type { CliIo } from '../command.js';
import { runCli } from '../main.js';

let root: string;
let home: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-relink-')));
  home = path.join(root, 'home');
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function memdir(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: { MEMDIR_DATA_DIR: path.join(root, 'data'), HOME: root }, cwd: root };
  // The merge record commands see every home's merges unless a test gives them --home.
  const code = await runCli(args[0] === 'merge' && ['list', 'conflicts', 'resolve', 'undo'].includes(args[1]!) ? args : [...args, '--home', home], io);
  return { code, out, err };
}

/** Project p with a.md at `words` and its first history entry: the project and its memory dir. */
async function projectWithHistory(words = 'first words'): Promise<{ project: string; memoryDir: string }> {
  const project = path.join(root, 'p');
  await makeRepo(project);
  await addSession(home, project);
  const memoryDir = await addMemories(home, project, { 'a.md': topic('A', 'user', words) });
  expect((await memdir('history', project)).code).toBe(0);
  return { project, memoryDir };
}

/** Export `project` to p.tar and import it into a new folder q: the target, its memory dir and the import's merge record. */
async function exportAndImport(project: string): Promise<{ target: string; targetMemory: string; merge: { id: string } | undefined }> {
  const file = path.join(root, 'p.tar');
  expect((await memdir('export', project, file)).code).toBe(0);
  const target = path.join(root, 'q');
  await fs.mkdir(target);
  expect((await memdir('import', file, target, '--yes')).code).toBe(0);
  const targetMemory = path.join(home, 'projects', sanitizeDirName(target), 'memory');
  const [merge] = JSON.parse((await memdir('merge', 'list', '--json')).out).merges as { id: string }[];
  return { target, targetMemory, merge };
}

/** Makes folder `dir` take no new file (chmod; as root, which chmod does not stop, the immutable flag): how to let it be written again, or null when neither bites. */
async function unwritable(dir: string): Promise<(() => Promise<void>) | null> {
  const refused = () =>
    fs.writeFile(path.join(dir, '.probe'), '').then(
      async () => (await fs.rm(path.join(dir, '.probe')), false),
      () => true,
    );
  await fs.chmod(dir, 0o555);
  if (await refused()) return () => fs.chmod(dir, 0o755);
  await fs.chmod(dir, 0o755);
  if (spawnSync('chattr', ['+i', dir]).status === 0 && (await refused())) return async () => void spawnSync('chattr', ['-i', dir]);
  spawnSync('chattr', ['-i', dir]);
  return null;
}

/**
 * src/shop with two memories (and MEMORY.md) moved (a relink) or cloned (a clone merge) to
 * work/shop, which has one of its own, then relinked or merged (the moved memory named `moved`): the two projects, their memory
 * dirs, the merge's id, the two states a test compares (`merged`, `apart`) and readers of them.
 */
/**
 * The line Claude Code would have built for work/shop's own memory: a merge into a folder with no
 * MEMORY.md writes that first, then the source's index (the built-index seeding, s38).
 */
const BUILT_MINE = '- [mine](mine.md) — Mine in one line\n';

async function movedAndMerged(kind: 'relink' | 'merge', moved = 'sql.md', also: Record<string, string> = {}) {
  const from = path.join(root, 'src', 'shop');
  await makeRepo(from);
  await addSession(home, from);
  const fromMemory = await addMemories(home, from, { 'MEMORY.md': `- [SQL](${moved}) — by hand\n`, [moved]: topic('SQL', 'feedback', 'by hand'), ...also });
  expect((await memdir('history', from)).code).toBe(0);
  const into = path.join(root, 'work', 'shop');
  await fs.mkdir(path.dirname(into), { recursive: true });
  if (kind === 'relink') await fs.rename(from, into);
  else {
    git(root, 'clone', '-q', from, into);
    git(into, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop.git');
  }
  await addSession(home, into);
  const intoMemory = await addMemories(home, into, { 'mine.md': topic('Mine', 'user', 'mine') });
  expect((await memdir('history', into)).code).toBe(0);
  const done =
    kind === 'relink'
      ? await memdir('relink', sanitizeDirName(from), into, '--yes', '--json')
      : await memdir('merge', sanitizeDirName(from), sanitizeDirName(into), '--yes', '--json');
  expect(done.code).toBe(0);
  const id = (JSON.parse(done.out) as { record: { id: string } }).record.id;
  const tree = async (dir: string) => (await fs.readdir(dir).catch(() => [])).sort();
  const merged = { from: [], into: ['MEMORY.md', 'mine.md', moved].sort(), undone: false };
  const apart = { from: ['MEMORY.md', moved].sort(), into: ['mine.md'], undone: true };
  const state = async () => ({
    from: await tree(fromMemory),
    into: await tree(intoMemory),
    undone: (JSON.parse((await memdir('merge', 'list', '--json')).out).merges as { undone: unknown }[])[0]!.undone !== null,
  });
  const newest = async (project: string) =>
    (JSON.parse((await memdir('history', project, '--json')).out) as { entries: { rev: string; summary: string }[] }).entries[0]!;
  // The merge's own entry in `project` (source "relink", for a relink and a clone merge alike).
  const mergeEntry = async (project: string) =>
    (JSON.parse((await memdir('history', project, '--json')).out) as { entries: { rev: string; source: string; summary: string }[] }).entries.find(
      (e) => e.source === 'relink',
    )!;
  return { from, into, fromMemory, intoMemory, id, merged, apart, state, newest, mergeEntry };
}

describe('memdir orphans / relink / merge', () => {
  it('lists the orphan with its candidate, previews, relinks with --yes, keeps a conflict to resolve, and undoes', async () => {
    const oldPath = path.join(root, 'src', 'shop');
    await makeRepo(oldPath);
    await addSession(home, oldPath);
    await addMemories(home, oldPath, { 'MEMORY.md': '- [SQL](feedback_sql.md) — by hand\n', 'feedback_sql.md': topic('SQL', 'feedback', 'by hand') });
    expect((await memdir('orphans')).code).toBe(0);
    const newPath = path.join(root, 'work', 'shop');
    await fs.mkdir(path.dirname(newPath));
    await fs.rename(oldPath, newPath);
    const newMemory = await addMemories(home, newPath, { 'feedback_sql.md': topic('SQL', 'feedback', 'an ORM after all') });

    const listed = await memdir('orphans', '--look-in', path.join(root, 'work'));
    expect(listed.code).toBe(1);
    expect(listed.out).toContain(`→ ${newPath}  (same remote, same root commit, same name; found in given; already holds 1 memory)`);
    expect(listed.out).toContain(`memdir relink ${sanitizeDirName(oldPath)} ${newPath}`);
    const json = JSON.parse((await memdir('orphans', '--look-in', path.join(root, 'work'), '--json')).out);
    expect(json.orphans[0].candidates[0]).toMatchObject({ path: newPath, evidence: ['same-remote', 'same-root-commit', 'same-name'] });

    const preview = await memdir('relink', sanitizeDirName(oldPath), newPath);
    expect(preview.code).toBe(0);
    expect(preview.out).toMatch(/feedback_sql\.md\s+conflict \(kept for you\)/);
    expect(preview.out).toContain('Nothing was written yet');
    const done = await memdir('relink', sanitizeDirName(oldPath), newPath, '--yes', '--json');
    expect(done.code).toBe(1);
    const record = JSON.parse(done.out).record;
    expect(record.conflicts).toHaveLength(1);
    expect(await fs.readFile(path.join(newMemory, 'MEMORY.md'), 'utf8')).toBe('- [SQL](feedback_sql.md) — by hand\n');

    // --home, as every command takes it: the merges made in that Claude Code home.
    expect((await memdir('merge', 'list', '--home', home)).out).toContain(record.id);
    const other = path.join(root, 'other-home');
    expect((await memdir('merge', 'list', '--home', other)).out).toBe(`No merges made in ${other}.\n`);
    const elsewhere = `Merge ${record.id} was made in another Claude Code home (into ${newMemory}), not in ${other}`;
    expect(await memdir('merge', 'conflicts', record.id, '--home', other)).toMatchObject({ code: 2, err: expect.stringContaining(elsewhere) });
    expect(await memdir('merge', 'undo', record.id, '--home', other)).toMatchObject({ code: 2, err: expect.stringContaining(elsewhere) });
    expect((await memdir('merge', 'conflicts', record.id, '--home', home)).code).toBe(1);
    const conflicts = await memdir('merge', 'conflicts', record.id);
    expect(conflicts.code).toBe(1);
    expect(conflicts.out).toContain('an ORM after all');
    expect(conflicts.out).toContain('by hand');
    expect((await memdir('merge', 'resolve', record.id, '0', '--keep', 'sideways')).err).toContain('--keep must be here, moved, both or merged');
    const missing = await memdir('merge', 'resolve', record.id, '0', '--keep', 'merged', '--file', 'no-such.md');
    expect(missing).toMatchObject({
      code: 2,
      err: expect.stringContaining(`cannot read ${path.join(root, 'no-such.md')}: give the merged text as a file that exists`),
    });
    expect(missing.err).not.toContain('ENOENT');
    // Keeping the version here writes nothing: the undo can still put everything back.
    expect((await memdir('merge', 'resolve', record.id, '0', '--keep', 'here')).code).toBe(0);
    const undone = await memdir('merge', 'undo', record.id);
    expect(undone.code).toBe(0);
    expect((await fs.readdir(newMemory)).sort()).toEqual(['feedback_sql.md']);
    expect((await memdir('merge', 'list')).out).toMatch(new RegExp(`${record.id}\\s+relink.*undone`));
    const again = await memdir('merge', 'undo', record.id);
    expect(again).toMatchObject({ code: 2, err: expect.stringContaining('already undone') });
  });

  it('names a conflict whose file name holds a secret masked wherever a merge shows it: preview, record, list, conflicts, resolve, history', async () => {
    const token = ['ghp_', 'Wd4Nq7Ls', 'Tf2Kb9Xm', 'Vr5Mc8Zp', 'Ey1Ug3Ja', 'h6Ko'].join('');
    const named = `reference_${token}.md`;
    const oldPath = path.join(root, 'src', 'shop');
    await makeRepo(oldPath);
    await addSession(home, oldPath);
    await addMemories(home, oldPath, { [named]: topic('Bot', 'reference', 'by hand') });
    const newPath = path.join(root, 'work', 'shop');
    await fs.mkdir(path.dirname(newPath));
    await fs.rename(oldPath, newPath);
    const newMemory = await addMemories(home, newPath, { [named]: topic('Bot', 'reference', 'an ORM after all') });

    const shown = [await memdir('relink', sanitizeDirName(oldPath), newPath), await memdir('relink', sanitizeDirName(oldPath), newPath, '--json')];
    const done = await memdir('relink', sanitizeDirName(oldPath), newPath, '--yes', '--json');
    expect(done.code, done.err).toBe(1);
    const record = JSON.parse(done.out).record as { id: string; conflicts: { file: string }[] };
    expect(record.conflicts).toEqual([expect.objectContaining({ file: expect.stringMatching(/^reference_ghp_\*+\.md$/) })]);
    shown.push(
      done,
      await memdir('merge', 'list', '--json'),
      await memdir('merge', 'conflicts', record.id),
      await memdir('merge', 'conflicts', record.id, '--json'),
    );
    expect(shown.at(-2)!.out).toMatch(/^#0 reference_ghp_\*+\.md \(open\)/);
    const resolved = await memdir('merge', 'resolve', record.id, '0', '--keep', 'both', '--json');
    expect(resolved.code, resolved.err).toBe(0);
    shown.push(resolved);
    // Resolved under its real name all the same; nothing said or recorded gives the token away.
    expect(await fs.readFile(path.join(newMemory, named), 'utf8')).toContain('by hand');
    const history = (await listHistory(newMemory, { dataDir: path.join(root, 'data') })).map((e) => e.summary);
    expect(history).toContainEqual(expect.stringMatching(/^Resolve reference_ghp_\*+\.md of merge /));
    for (const said of [...shown.flatMap((r) => [r.out, r.err]), ...history]) expect(said).not.toContain(token.slice(4));
  });

  it('refuses a merged text that adds a secret, naming it masked, until --allow gives its fingerprint', async () => {
    const { oldPath, newPath, newMemory } = await movedWithOneConflict(home, root);
    const record = JSON.parse((await memdir('relink', sanitizeDirName(oldPath), newPath, '--yes', '--json')).out).record;
    const token = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`;
    await fs.writeFile(path.join(root, 'merged.md'), `${topic('SQL', 'feedback', 'by hand')}deploy token ${token}\n`);
    const before = await fs.readFile(path.join(newMemory, 'feedback_sql.md'), 'utf8');

    const refused = await memdir('merge', 'resolve', record.id, '0', '--keep', 'merged', '--file', 'merged.md');
    expect(refused.code).toBe(2);
    const fingerprint = /\[fingerprint ([0-9a-f]{16})\]/.exec(refused.err)?.[1];
    expect(refused.err).toMatch(
      /Nothing was saved: feedback_sql\.md would hold a GitHub token \(ghp_\*+\) at line \d+ of its body \(line \d+ of the file\) \[fingerprint [0-9a-f]{16}\]/,
    );
    expect(refused.err).toContain(`run again with --allow ${fingerprint} to write it anyway`);
    expect(refused.err).not.toContain(token);
    expect(await fs.readFile(path.join(newMemory, 'feedback_sql.md'), 'utf8')).toBe(before);
    expect((await memdir('merge', 'resolve', '--help')).out).toContain('--allow FINGERPRINT');

    const allowed = await memdir('merge', 'resolve', record.id, '0', '--keep', 'merged', '--file', 'merged.md', '--allow', fingerprint!);
    expect(allowed.code).toBe(0);
    expect(await fs.readFile(path.join(newMemory, 'feedback_sql.md'), 'utf8')).toContain(token);
  });

  it('refuses a merged text with a conflict marker, binary or not UTF-8, or over 1 MB, naming why; the memory stays as it was (review x4 F1)', async () => {
    const { oldPath, newPath, newMemory } = await movedWithOneConflict(home, root);
    const record = JSON.parse((await memdir('relink', sanitizeDirName(oldPath), newPath, '--yes', '--json')).out).record;
    const before = await fs.readFile(path.join(newMemory, 'feedback_sql.md'), 'utf8');
    const resolve = (file: string) => memdir('merge', 'resolve', record.id, '0', '--keep', 'merged', '--file', file);

    await fs.writeFile(path.join(root, 'markers.md'), `${topic('SQL', 'feedback', 'x')}<<<<<<< here\nby hand\n=======\nan ORM\n>>>>>>> moved\n`);
    const markers = await resolve('markers.md');
    expect(markers.code).toBe(2);
    expect(markers.err).toMatch(/The merged text of feedback_sql\.md still holds a conflict marker on line \d+ \("<<<<<<< here"\); nothing was written/);
    await fs.writeFile(path.join(root, 'bin.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    const binary = await resolve('bin.md');
    expect(binary).toMatchObject({
      code: 2,
      err: expect.stringContaining(`cannot use ${path.join(root, 'bin.md')} as the merged text: it is a binary file, not text`),
    });
    await fs.writeFile(path.join(root, 'latin1.md'), Buffer.from('caf\xe9 au lait\n', 'latin1'));
    const latin1 = await resolve('latin1.md');
    expect(latin1).toMatchObject({ code: 2, err: expect.stringContaining('it is not valid UTF-8 text') });
    await fs.writeFile(path.join(root, 'huge.md'), 'a line of a memory\n'.repeat(110_000));
    const huge = await resolve('huge.md');
    expect(huge).toMatchObject({ code: 2, err: expect.stringContaining('it is 2.1 MB, too large for a memory (the limit is 1 MB)') });
    for (const refused of [markers, binary, latin1, huge]) expect(refused.err).toContain('nothing was written');
    expect(await fs.readFile(path.join(newMemory, 'feedback_sql.md'), 'utf8')).toBe(before);
    expect(JSON.parse((await memdir('merge', 'conflicts', record.id, '--json')).out).conflicts[0].conflict.status).toBe('open');
  });

  it('says in a sentence why a relink is refused: not an orphan, an unknown folder name, a missing path', async () => {
    const live = path.join(root, 'live');
    await makeRepo(live);
    await addSession(home, live);
    await addMemories(home, live, { 'a.md': topic('A', 'user', 'a') });
    const notOrphan = await memdir('relink', sanitizeDirName(live), root, '--yes');
    expect(notOrphan).toMatchObject({ code: 2, err: expect.stringContaining('is not an orphan: its project is still at') });
    expect((await memdir('relink', '-no-such', root)).err).toContain('There is no project "-no-such"');
    await fs.rm(live, { recursive: true });
    expect((await memdir('relink', sanitizeDirName(live), path.join(root, 'nowhere'))).err).toMatch(
      /There is no directory ".*nowhere": give the directory where the project is now\./,
    );
  });

  it('lists the history an import brought in `memdir history`, and restores a memory from it', async () => {
    const { project, memoryDir } = await projectWithHistory();
    await fs.writeFile(path.join(memoryDir, 'a.md'), topic('A', 'user', 'second words'));
    // A memory the other project had and deleted: only the imported history holds it.
    await fs.writeFile(path.join(memoryDir, 'b.md'), topic('B', 'user', 'gone since'));
    expect((await memdir('history', project)).code).toBe(0);
    await fs.rm(path.join(memoryDir, 'b.md'));
    const { target, targetMemory, merge } = await exportAndImport(project);

    const listed = JSON.parse((await memdir('history', target, '--json')).out) as {
      entries: { summary: string }[];
      imported: { id: string; rev: string; entries: { rev: string; summary: string; files: { path: string }[] }[] }[];
    };
    expect(listed.entries.map((e) => e.summary)).toContain('Imported from p.tar');
    expect(listed.imported).toHaveLength(1);
    expect(listed.imported[0]).toMatchObject({ id: merge!.id, rev: listed.imported[0]!.entries[0]!.rev });
    expect(listed.imported[0]!.entries.map((e) => e.summary)).toEqual([
      'Changes made outside Memdir',
      'Changes made outside Memdir',
      'Changes made outside Memdir',
    ]);
    const text = (await memdir('history', target)).out;
    expect(text).toContain(`Imported history (import ${merge!.id}, from p.tar (exported `);
    expect(text).toContain(listed.imported[0]!.entries[2]!.rev.slice(0, 10));
    // A file only the imported history touched: its changes are listed there, after the sentence that the project's own has none.
    const onlyImported = (await memdir('history', target, '--file', 'b.md')).out;
    expect(onlyImported).toContain('No recorded change touches b.md');
    expect(onlyImported).toContain(`Imported history (import ${merge!.id}`);

    // The oldest version, from the listing: a.md as the other project first had it.
    const first = listed.imported[0]!.entries[2]!;
    const restored = await memdir('restore', target, first.rev, 'a.md');
    expect(restored.code).toBe(0);
    expect(await fs.readFile(path.join(targetMemory, 'a.md'), 'utf8')).toBe(topic('A', 'user', 'first words'));
  });

  it('lists an import undone with `memdir merge undo` as undone, and refuses to restore from its history in a sentence', async () => {
    const { project } = await projectWithHistory();
    const { target, targetMemory, merge } = await exportAndImport(project);
    const before = JSON.parse((await memdir('history', target, '--json')).out) as { imported: { undone: boolean; entries: { rev: string }[] }[] };
    expect(before.imported).toMatchObject([{ id: merge!.id, undone: false }]);
    expect((await memdir('merge', 'undo', merge!.id)).code).toBe(0);
    expect(await fs.readdir(targetMemory).catch(() => [])).toEqual([]);

    // Still listed, to read what the import held, but marked undone: nothing restores from it.
    const listed = JSON.parse((await memdir('history', target, '--json')).out) as typeof before;
    expect(listed.imported).toMatchObject([{ id: merge!.id, undone: true }]);
    const text = (await memdir('history', target)).out;
    expect(text).toContain(`Imported history (import ${merge!.id}, from p.tar (exported `);
    expect(text).toContain(`undone with memdir merge undo: listed to read, nothing is restored from it`);
    expect(text).not.toContain('restore from it with');
    const rev = listed.imported[0]!.entries[0]!.rev;
    for (const args of [[rev, 'a.md'], [rev]]) {
      const restored = await memdir('restore', target, ...args);
      expect(restored).toMatchObject({
        code: 2,
        err: expect.stringContaining(
          `${rev.slice(0, 10)} is in the history import ${merge!.id} brought in, and that import was undone (memdir merge undo): nothing was restored.`,
        ),
      });
    }
    expect(await fs.readdir(targetMemory).catch(() => [])).toEqual([]);
  });

  it('undoing the undo of an import brings the import back: listed and restored from again', async () => {
    const { project } = await projectWithHistory();
    await addMemories(home, project, { 'a.md': topic('A', 'user', 'second words') });
    expect((await memdir('history', project)).code).toBe(0);
    const file = path.join(root, 'p.tar');
    expect((await memdir('export', project, file)).code).toBe(0);
    // The target holds a memory of its own, so the merge undo leaves its memory folder.
    const target = path.join(root, 'q');
    await makeRepo(target);
    await addSession(home, target);
    const targetMemory = await addMemories(home, target, { 'mine.md': topic('Mine', 'user', 'mine') });
    expect((await memdir('history', target)).code).toBe(0);
    expect((await memdir('import', file, target, '--yes')).code).toBe(0);
    const [merge] = JSON.parse((await memdir('merge', 'list', '--json')).out).merges as { id: string }[];
    expect((await memdir('merge', 'undo', merge!.id)).code).toBe(0);
    expect((await fs.readdir(targetMemory)).sort()).not.toContain('a.md');

    const own = JSON.parse((await memdir('history', target, '--json')).out) as { entries: { rev: string; summary: string }[] };
    expect(own.entries[0]!.summary).toBe(`Undo import ${merge!.id}`);
    const undo = await memdir('undo', target, own.entries[0]!.rev);
    expect(undo).toMatchObject({ code: 0, out: expect.stringContaining(`Undo: Undo import ${merge!.id}`) });
    expect(await fs.readFile(path.join(targetMemory, 'a.md'), 'utf8')).toBe(topic('A', 'user', 'second words'));

    // The import stands again: not listed as undone, its history restores.
    const listed = JSON.parse((await memdir('history', target, '--json')).out) as { imported: { id: string; undone: boolean; entries: { rev: string }[] }[] };
    expect(listed.imported).toMatchObject([{ id: merge!.id, undone: false }]);
    expect((await memdir('history', target)).out).not.toContain('undone with memdir merge undo');
    expect(JSON.parse((await memdir('merge', 'list', '--json')).out).merges).toMatchObject([{ id: merge!.id, undone: null }]);
    const oldest = listed.imported[0]!.entries.at(-1)!.rev;
    expect((await memdir('restore', target, oldest, 'a.md')).code).toBe(0);
    expect(await fs.readFile(path.join(targetMemory, 'a.md'), 'utf8')).toBe(topic('A', 'user', 'first words'));
    // And it can be undone again, whole.
    expect((await memdir('restore', target, listed.imported[0]!.entries[0]!.rev, 'a.md')).code).toBe(0);
    expect((await memdir('merge', 'undo', merge!.id)).code).toBe(0);
    expect((await fs.readdir(targetMemory)).sort()).not.toContain('a.md');
  });

  it('undoing the redo of an import takes it back again, as undone as a merge undo left it; undoing that brings it back, at any depth', async () => {
    const { project } = await projectWithHistory();
    const { target, targetMemory, merge } = await exportAndImport(project);
    const id = merge!.id;
    const newest = async () => (JSON.parse((await memdir('history', target, '--json')).out) as { entries: { rev: string; summary: string }[] }).entries[0]!;
    const state = async () => ({
      listed: (JSON.parse((await memdir('history', target, '--json')).out) as { imported: { undone: boolean }[] }).imported.map((i) => i.undone),
      merge: (JSON.parse((await memdir('merge', 'list', '--json')).out).merges as { undone: unknown }[])[0]!.undone !== null,
      a: await fs.readFile(path.join(targetMemory, 'a.md'), 'utf8').catch(() => null),
    });
    expect((await memdir('merge', 'undo', id)).code).toBe(0);
    expect((await newest()).summary).toBe(`Undo import ${id}`);
    expect((await memdir('undo', target, (await newest()).rev)).code).toBe(0);
    expect(await state()).toEqual({ listed: [false], merge: false, a: topic('A', 'user', 'first words') });

    // The redo undone: the memories go again, and the import says so everywhere.
    for (let depth = 0; depth < 2; depth++) {
      expect((await newest()).summary).toMatch(/^Undo: /);
      expect((await memdir('undo', target, (await newest()).rev)).code).toBe(0);
      expect(await state()).toEqual({ listed: [true], merge: true, a: null });
      expect((await memdir('merge', 'list')).out).toMatch(new RegExp(`${id}\\s+import.*undone`));
      expect(await memdir('merge', 'undo', id)).toMatchObject({ code: 2, err: expect.stringContaining('already undone') });
      const imported = (JSON.parse((await memdir('history', target, '--json')).out) as { imported: { entries: { rev: string }[] }[] }).imported[0]!;
      expect(await memdir('restore', target, imported.entries[0]!.rev, 'a.md')).toMatchObject({
        code: 2,
        err: expect.stringContaining(`that import was undone (memdir merge undo): nothing was restored.`),
      });
      // And undone once more: it stands again, whole.
      expect((await memdir('undo', target, (await newest()).rev)).code).toBe(0);
      expect(await state()).toEqual({ listed: [false], merge: false, a: topic('A', 'user', 'first words') });
    }
    // Standing after all that, `merge undo` takes it away as at first.
    expect((await memdir('merge', 'undo', id)).code).toBe(0);
    expect(await state()).toEqual({ listed: [true], merge: true, a: null });
    // Back, then its own entry undone with `memdir undo`: undone whole, as `merge undo` does — and undoing that brings it back.
    expect((await memdir('undo', target, (await newest()).rev)).code).toBe(0);
    const own = (JSON.parse((await memdir('history', target, '--json')).out) as { entries: { rev: string; summary: string }[] }).entries.find(
      (e) => e.summary === 'Imported from p.tar',
    )!;
    expect((await memdir('undo', target, own.rev)).code).toBe(0);
    expect(await state()).toEqual({ listed: [true], merge: true, a: null });
    expect((await newest()).summary).toBe(`Undo import ${id}`);
    expect((await memdir('undo', target, (await newest()).rev)).code).toBe(0);
    expect(await state()).toEqual({ listed: [false], merge: false, a: topic('A', 'user', 'first words') });
  });

  it.each(['relink', 'merge'] as const)(
    'undoing the undo of a %s in one directory brings it back in every directory it changed; undoing that takes it all back again, at any depth',
    async (kind) => {
      const { from, into, fromMemory, id, merged, apart, state, newest, mergeEntry } = await movedAndMerged(kind);
      expect(await state()).toEqual(merged);
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      expect(await state()).toEqual(apart);
      // The other directory changed since: nothing is undone anywhere, and the sentence names the file.
      await fs.writeFile(path.join(fromMemory, 'sql.md'), topic('SQL', 'feedback', 'an ORM after all'));
      const refused = await memdir('undo', into, (await newest(into)).rev);
      expect(refused).toMatchObject({
        code: 2,
        err: expect.stringContaining(`Nothing was undone: this would bring ${kind} ${id} back in every directory it changed`),
      });
      expect(refused.err).toContain(path.join(fromMemory, 'sql.md'));
      expect(await state()).toEqual(apart);
      // Undone anyway, it overwrites there too; undoing that puts the later text back.
      expect((await memdir('undo', into, (await newest(into)).rev, '--overwrite-changed')).code).toBe(0);
      expect(await state()).toEqual(merged);
      expect((await memdir('undo', into, (await newest(into)).rev)).code).toBe(0);
      expect(await state()).toEqual(apart);
      expect(await fs.readFile(path.join(fromMemory, 'sql.md'), 'utf8')).toBe(topic('SQL', 'feedback', 'an ORM after all'));

      // Undone in one directory (the one, then the other), the merge comes back — or goes — in all of them, and its record says so.
      for (const [n, project] of [into, sanitizeDirName(from), into, sanitizeDirName(from)].entries()) {
        const entry = await newest(project);
        expect(entry.summary).toMatch(/^Undo: /);
        expect((await memdir('undo', project, entry.rev)).code).toBe(0);
        expect(await state()).toEqual(n % 2 === 0 ? merged : apart);
        if (n % 2 === 1) expect(await memdir('merge', 'undo', id)).toMatchObject({ code: 2, err: expect.stringContaining('already undone') });
      }
      // Back once more, it is undone as at first.
      expect((await memdir('undo', into, (await newest(into)).rev)).code).toBe(0);
      expect((await memdir('merge', 'list')).out).toMatch(new RegExp(`${id}\\s+${kind}.*\\sdone`));
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      expect(await state()).toEqual(apart);
      // Back again, then its own entry undone in one directory: the merge is undone whole, as merge undo does.
      expect((await memdir('undo', into, (await newest(into)).rev)).code).toBe(0);
      expect(await state()).toEqual(merged);
      const own = await mergeEntry(into);
      const whole = await memdir('undo', into, own.rev);
      expect(whole).toMatchObject({
        code: 0,
        out: expect.stringContaining(`This entry is ${kind} ${id}: it was undone whole, as \`memdir merge undo ${id}\` does`),
      });
      expect(await state()).toEqual(apart);
    },
    // Some twenty CLI runs, each turning two directories (every one checked before any is written): slow on a shared machine.
    90_000,
  );

  it.each(['relink', 'merge'] as const)(
    'undoing the undo of a %s, anyway or not, refuses in one sentence before writing anywhere when the other memory folder is a file',
    async (kind) => {
      const { into, fromMemory, id, apart, state, newest } = await movedAndMerged(kind);
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      const undo = await newest(into);
      const notAFolder = 'not a folder, kept as it is';
      await fs.rm(fromMemory, { recursive: true, force: true });
      await fs.writeFile(fromMemory, notAFolder);
      for (const anyway of [[], ['--overwrite-changed']]) {
        const refused = await memdir('undo', into, undo.rev, ...anyway);
        expect(refused).toMatchObject({ code: 2, out: '' });
        expect(refused.err).toContain(`The memory folder ${fromMemory} is a file, not a folder`);
        expect(refused.err).not.toContain('changed there since');
        // Nothing written here either: no entry, the memories still apart, the record still true.
        expect(await newest(into)).toEqual(undo);
        expect(await state()).toEqual({ ...apart, from: [] });
        expect(await fs.readFile(fromMemory, 'utf8')).toBe(notAFolder);
      }
    },
  );

  it.each(['relink', 'merge'] as const)(
    'undoing a %s, or undoing its undo, refuses whole when the other directory holds its memory under the same name in another Unicode form',
    async (kind) => {
      const nfc = 'caf\u00e9.md';
      const nfd = 'cafe\u0301.md';
      const twin = topic('Cafe', 'user', 'another memory, written since');
      const { from, into, fromMemory, intoMemory, id, merged, apart, state, newest } = await movedAndMerged(kind, nfc);
      // merge undo puts the memory back where it came from, where another one now has its name.
      await fs.mkdir(fromMemory, { recursive: true });
      await fs.writeFile(path.join(fromMemory, nfd), twin);
      const undo = await memdir('merge', 'undo', id);
      expect(undo).toMatchObject({ code: 2, out: '' });
      expect(undo.err).toContain(
        `Nothing was undone: this would take ${kind} ${id} away in every directory it changed, and in ${fromMemory}, ${nfc} already exists`,
      );
      expect(await state()).toEqual({ ...merged, from: [nfd] });
      await fs.rm(path.join(fromMemory, nfd));
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      expect(await state()).toEqual(apart);

      // Undoing that undo in the folder it came from brings it back into the other one, where another now has its name.
      await fs.writeFile(path.join(intoMemory, nfd), twin);
      const before = { into: await newest(into), from: await newest(sanitizeDirName(from)) };
      const redo = await memdir('undo', sanitizeDirName(from), before.from.rev);
      expect(redo).toMatchObject({ code: 2, out: '' });
      expect(redo.err).toContain(
        `Nothing was undone: this would bring ${kind} ${id} back in every directory it changed, and in ${intoMemory}, ${nfc} already exists`,
      );
      expect(await state()).toEqual({ ...apart, into: [nfd, 'mine.md'].sort() });
      expect({ into: await newest(into), from: await newest(sanitizeDirName(from)) }).toEqual(before);
    },
  );

  it.each(['relink', 'merge'] as const)(
    'undoing the undo of a %s anyway refuses whole when the other directory holds a file that is not UTF-8 at a name it writes',
    async (kind) => {
      const { from, into, intoMemory, id, apart, state, newest } = await movedAndMerged(kind);
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      const latin1 = Buffer.from('caf\xe9 cr\xe8me\n', 'latin1');
      await fs.writeFile(path.join(intoMemory, 'sql.md'), latin1);
      const before = { into: await newest(into), from: await newest(sanitizeDirName(from)) };
      const refused = await memdir('undo', sanitizeDirName(from), before.from.rev, '--overwrite-changed');
      expect(refused).toMatchObject({ code: 2, out: '' });
      expect(refused.err).toContain(
        `Nothing was undone: this would bring ${kind} ${id} back in every directory it changed, and in ${intoMemory}, sql.md is not valid UTF-8 text (saved in another encoding?), so the undo would not know what to put back; fix or delete it, then undo again.`,
      );
      expect(await state()).toEqual({ ...apart, into: ['mine.md', 'sql.md'] });
      expect(await fs.readFile(path.join(intoMemory, 'sql.md'))).toEqual(latin1);
      expect((await newest(sanitizeDirName(from))).rev).toBe(before.from.rev);
    },
  );

  it.each(['relink', 'merge'] as const)(
    'a %s undone, or its undo undone, that cannot be written in its second directory is put back in the first: whole or nothing, and said',
    async (kind) => {
      const { from, into, fromMemory, intoMemory, id, merged, apart, state, newest } = await movedAndMerged(kind);
      // The second directory merge undo writes (the folder the memories went to: it writes them back where they came from first) takes out no file.
      const locked = await unwritable(intoMemory);
      if (!locked) return; // Neither chmod nor the immutable flag bites here: no real write failure to make.
      try {
        const undo = await memdir('merge', 'undo', id);
        expect(undo).toMatchObject({ code: 2, out: '' });
        expect(undo.err).toContain(`Nothing was undone: undoing ${kind} ${id} stopped in ${intoMemory} (Cannot delete `);
        expect(undo.err).toContain(`What it had already changed in ${fromMemory} was put back`);
        expect(await state()).toEqual(merged);
      } finally {
        await locked();
      }
      // The attempt and its putting back are in history there; undoing either would turn the merge in that folder alone.
      const [putBack, attempt] = (JSON.parse((await memdir('history', sanitizeDirName(from), '--json')).out) as { entries: { rev: string }[] }).entries;
      for (const entry of [putBack!, attempt!]) {
        const alone = await memdir('undo', sanitizeDirName(from), entry.rev);
        expect(alone).toMatchObject({ code: 2, out: '' });
        expect(alone.err).toContain(`Nothing was undone: this entry turned ${kind} ${id} before its latest turn`);
        expect(alone.err).toContain(`memdir merge undo ${id}`);
        expect(await state()).toEqual(merged);
      }
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      expect(await state()).toEqual(apart);

      // Undoing that undo here takes the memories out of the other folder again, which cannot be written now.
      const unlock = (await unwritable(fromMemory))!;
      const before = await newest(into);
      try {
        const redo = await memdir('undo', into, before.rev);
        expect(redo).toMatchObject({ code: 2, out: '' });
        expect(redo.err).toContain(`Nothing was undone: bringing ${kind} ${id} back stopped in ${fromMemory} (Cannot delete `);
        expect(redo.err).toContain(`What it had already changed in ${intoMemory} was put back`);
        expect(await state()).toEqual(apart);
      } finally {
        await unlock();
      }
      const [putBackToo] = (JSON.parse((await memdir('history', into, '--json')).out) as { entries: { rev: string }[] }).entries;
      const aloneToo = await memdir('undo', into, putBackToo!.rev);
      expect(aloneToo).toMatchObject({ code: 2, out: '' });
      expect(aloneToo.err).toContain(`Nothing was undone: this entry turned ${kind} ${id} before its latest turn`);
      expect(aloneToo.err).toContain(`("Undo ${kind} ${id}")`);
      expect(await state()).toEqual(apart);
      // Written again, it turns whole.
      expect((await memdir('undo', into, before.rev)).code).toBe(0);
      expect(await state()).toEqual(merged);
    },
  );

  it.each(['relink', 'merge'] as const)(
    'a %s undone, its memory then deleted by hand in one folder: undoing that undo there is refused whole, not done in the other folder alone',
    async (kind) => {
      const { from, fromMemory, intoMemory, id, apart, state, newest } = await movedAndMerged(kind);
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      expect(await state()).toEqual(apart);
      const undoEntry = await newest(sanitizeDirName(from));
      // Deleted outside Memdir (Claude Code may): this folder is already as bringing the merge back would leave its memories.
      await fs.rm(path.join(fromMemory, 'sql.md'));
      const intoBefore = await newest(sanitizeDirName(path.join(root, 'work', 'shop')));
      const redo = await memdir('undo', sanitizeDirName(from), undoEntry.rev);
      expect(redo).toMatchObject({ code: 2, out: '' });
      expect(redo.err).toContain(`Nothing was undone: this would bring ${kind === 'merge' ? 'merge' : 'relink'} ${id} back in every directory it changed`);
      expect(redo.err).toContain(`in ${fromMemory}, sql.md is already as that would leave it`);
      // Not a change to overwrite: undo anyway is refused the same way, never offered in vain.
      expect(redo.err).not.toContain('--overwrite-changed');
      expect((await memdir('undo', sanitizeDirName(from), undoEntry.rev, '--overwrite-changed')).code).toBe(2);
      // Nothing written in the other folder, and the record still says undone.
      expect(await fs.readdir(intoMemory)).toEqual(['mine.md']);
      expect((await newest(sanitizeDirName(path.join(root, 'work', 'shop')))).rev).toBe(intoBefore.rev);
      expect((await state()).undone).toBe(true);
    },
  );

  it.each(['relink', 'merge'] as const)(
    'a %s undone anyway, its memory deleted by hand in one folder since: refused whole, as the undo of its undo is, not done in the other folder alone',
    async (kind) => {
      const { into, fromMemory, intoMemory, id, state, mergeEntry } = await movedAndMerged(kind);
      const own = await mergeEntry(into);
      // Deleted outside Memdir: this folder is already as undoing the merge would leave its memory.
      await fs.rm(path.join(intoMemory, 'sql.md'));
      for (const undo of [
        ['undo', into, own.rev, '--overwrite-changed'],
        ['merge', 'undo', id],
      ]) {
        const refused = await memdir(...undo);
        expect(refused).toMatchObject({ code: 2, out: '' });
        expect(refused.err).toContain(`Nothing was undone: this would take ${kind} ${id} away in every directory it changed`);
        expect(refused.err).toContain(`in ${intoMemory}, sql.md is already as that would leave it`);
        // Not a change to overwrite: undo anyway is never offered in vain.
        expect(refused.err).not.toContain('--overwrite-changed');
        expect(await state()).toEqual({ from: [], into: ['MEMORY.md', 'mine.md'], undone: false });
        expect(await fs.readdir(fromMemory).catch(() => [])).toEqual([]);
      }
    },
  );

  it.each(['relink', 'merge'] as const)(
    'a %s undone anyway refuses whole, before writing anywhere, when a file it would take away is not UTF-8 now, as the undo of its undo does',
    async (kind) => {
      const { into, intoMemory, id, state, mergeEntry } = await movedAndMerged(kind);
      const own = await mergeEntry(into);
      const latin1 = Buffer.from('caf\xe9 cr\xe8me\n', 'latin1');
      await fs.writeFile(path.join(intoMemory, 'sql.md'), latin1);
      const refused = await memdir('undo', into, own.rev, '--overwrite-changed');
      expect(refused).toMatchObject({ code: 2, out: '' });
      expect(refused.err).toContain(
        `Nothing was undone: this would take ${kind} ${id} away in every directory it changed, and in ${intoMemory}, sql.md is not valid UTF-8 text (saved in another encoding?), so the undo would not know what to put back; fix or delete it, then undo again.`,
      );
      expect(await fs.readFile(path.join(intoMemory, 'sql.md'))).toEqual(latin1);
      expect(await state()).toEqual({ from: [], into: ['MEMORY.md', 'mine.md', 'sql.md'], undone: false });
    },
  );

  it('a change made while the undo waits for a directory another writer holds stops it before anything is written, naming the file', async () => {
    const { into, fromMemory, intoMemory, id, merged, state, newest } = await movedAndMerged('relink');
    const meanwhile = topic('SQL', 'feedback', 'written by Claude Code while the undo waited');
    // Another writer holds the folder the memories go back to; while the undo waits for it, sql.md is written in the other.
    // Every directory is checked before any is written (refuseTurn), and the check of this one waits too: nothing is turned yet.
    await fs.mkdir(fromMemory, { recursive: true });
    const undo = memdir('merge', 'undo', id);
    await withMemoryLock(
      fromMemory,
      async () => {
        await new Promise((r) => setTimeout(r, 500));
        // Written as a Memdir writer would, holding that folder too: before its check, or after it.
        await withMemoryLock(intoMemory, () => fs.writeFile(path.join(intoMemory, 'sql.md'), meanwhile), { dataDir: path.join(root, 'data') });
      },
      { dataDir: path.join(root, 'data') },
    );
    const done = await undo;
    expect(done).toMatchObject({ code: 2, out: '' });
    expect(done.err).toContain(
      `Nothing was undone: this would take relink ${id} away in every directory it changed, and this file was changed there since — ${path.join(intoMemory, 'sql.md')}.`,
    );
    // The change made meanwhile stays, and nothing was turned: no undo entry there.
    expect(await fs.readFile(path.join(intoMemory, 'sql.md'), 'utf8')).toBe(meanwhile);
    expect(await state()).toEqual(merged);
    expect((await newest(into)).summary).not.toBe(`Undo relink ${id}`);
  });

  it.each(['relink', 'merge'] as const)(
    'a memory Claude Code adds after a %s (its file and its MEMORY.md line) does not stop merge undo, and keeps its line; the redo keeps it too',
    async (kind) => {
      const { into, fromMemory, intoMemory, id, apart, state, newest } = await movedAndMerged(kind);
      const other = '- [Other](other.md) — other\n';
      await fs.writeFile(path.join(intoMemory, 'other.md'), topic('Other', 'user', 'other'));
      await fs.appendFile(path.join(intoMemory, 'MEMORY.md'), other);
      const undo = await memdir('merge', 'undo', id);
      expect(undo).toMatchObject({ code: 0, err: '' });
      // The merge's own pointer goes with its memory; the later one stays, so Claude Code still loads other.md.
      expect(await state()).toEqual({ ...apart, into: ['MEMORY.md', 'mine.md', 'other.md'] });
      expect(await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8')).toBe(other);
      expect(await fs.readFile(path.join(fromMemory, 'MEMORY.md'), 'utf8')).toBe('- [SQL](sql.md) — by hand\n');
      // Brought back, the merge's pointer returns beside the later one.
      expect((await memdir('undo', into, (await newest(into)).rev)).code).toBe(0);
      const index = await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8');
      expect(index).toContain(other);
      expect(index).toContain('(sql.md)');
      expect((await state()).into).toEqual(['MEMORY.md', 'mine.md', 'other.md', 'sql.md']);
    },
    60_000,
  );

  it.each(['relink', 'merge'] as const)(
    'a memory added since in either directory of a %s is kept, with its MEMORY.md line, whichever directory the turn is undone from, both ways',
    async (kind) => {
      const { from, into, fromMemory, intoMemory, id, merged, state, newest } = await movedAndMerged(kind);
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      const add = async (memoryDir: string, name: string) => {
        await fs.writeFile(path.join(memoryDir, `${name}.md`), topic(name, 'user', name));
        await fs.appendFile(path.join(memoryDir, 'MEMORY.md'), `- [${name}](${name}.md) — ${name}\n`);
      };
      // Redo from this directory, a memory added in the other one (where the memories are) since.
      await add(fromMemory, 'other');
      expect((await memdir('undo', into, (await newest(into)).rev)).code).toBe(0);
      expect(await state()).toEqual({ ...merged, from: ['MEMORY.md', 'other.md'] });
      expect(await fs.readFile(path.join(fromMemory, 'MEMORY.md'), 'utf8')).toBe('- [other](other.md) — other\n');
      // Taken away again from that other directory, a memory added here since: kept with its line too.
      await add(intoMemory, 'other2');
      expect((await memdir('undo', sanitizeDirName(from), (await newest(sanitizeDirName(from))).rev)).code).toBe(0);
      expect(await state()).toEqual({ from: ['MEMORY.md', 'other.md', 'sql.md'], into: ['MEMORY.md', 'mine.md', 'other2.md'], undone: true });
      expect(await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8')).toBe('- [other2](other2.md) — other2\n');
      const fromIndex = await fs.readFile(path.join(fromMemory, 'MEMORY.md'), 'utf8');
      expect(fromIndex).toContain('- [other](other.md) — other\n');
      expect(fromIndex).toContain('(sql.md)');
    },
    60_000,
  );

  it.each(['relink', 'merge'] as const)(
    'a %s whose memory was edited since: merge undo says the exact command that undoes it anyway, and that works',
    async (kind) => {
      const { intoMemory, id, apart, state } = await movedAndMerged(kind);
      await fs.writeFile(path.join(intoMemory, 'sql.md'), topic('SQL', 'feedback', 'an ORM after all'));
      const refused = await memdir('merge', 'undo', id);
      expect(refused).toMatchObject({ code: 2, out: '' });
      expect(refused.err).toContain(`\`memdir merge undo ${id} --overwrite-changed\``);
      expect(await memdir('merge', 'undo', id, '--overwrite-changed')).toMatchObject({ code: 0 });
      expect(await state()).toEqual(apart);
    },
  );

  it.each(['relink', 'merge'] as const)(
    'a %s whose MEMORY.md line was edited since: merge undo refuses, naming MEMORY.md and the memory, and says the command that undoes it anyway; that takes the line away, says so, and leaves no empty MEMORY.md',
    async (kind) => {
      const { into, intoMemory, id, apart, state, mergeEntry } = await movedAndMerged(kind);
      const index = path.join(intoMemory, 'MEMORY.md');
      await fs.writeFile(index, (await fs.readFile(index, 'utf8')).replace('by hand', 'by hand, edited by me'));
      const edited = await fs.readFile(index, 'utf8');
      const merged = await state();
      for (const refused of [await memdir('merge', 'undo', id), await memdir('undo', into, (await mergeEntry(into)).rev)]) {
        expect(refused).toMatchObject({ code: 2, out: '' });
        expect(refused.err).toContain(`this file was changed there since — ${index} (the line for sql.md).`);
        expect(await state()).toEqual(merged);
        expect(await fs.readFile(index, 'utf8')).toBe(edited);
      }
      expect((await memdir('merge', 'undo', id)).err).toContain(`\`memdir merge undo ${id} --overwrite-changed\``);
      // As a person reads it (a relink), and as a script does (a merge, JSON).
      const anyway = await memdir('merge', 'undo', id, '--overwrite-changed', ...(kind === 'merge' ? ['--json'] : []));
      expect(anyway).toMatchObject({ code: 0, err: '' });
      const note = `In ${intoMemory}: MEMORY.md's line for sql.md was edited since "${(await mergeEntry(into)).summary}": undone anyway, it went too (as edited, it stays in history).`;
      if (kind === 'merge') expect((JSON.parse(anyway.out) as { notes: string[] }).notes).toEqual([note]);
      else expect(anyway.out.split('\n')).toEqual([expect.stringMatching(/^Undone: /), note, '']);
      // No MEMORY.md where there was none before the merge (apart: mine.md alone).
      expect(await state()).toEqual(apart);
    },
  );

  it.each(['older', 'newer'] as const)(
    'two merges of one clone, Claude Code writing in it between: undoing both, the %s first, leaves no MEMORY.md where there was none',
    async (first) => {
      const { from, into, fromMemory, intoMemory, id, state } = await movedAndMerged('merge');
      // Claude Code, started again in the old clone, writes a memory there.
      await fs.mkdir(fromMemory, { recursive: true });
      await fs.writeFile(path.join(fromMemory, 'cc.md'), topic('CC', 'user', 'from claude code'));
      await fs.writeFile(path.join(fromMemory, 'MEMORY.md'), '- [CC](cc.md) — claude code wrote\n');
      expect((await memdir('history', from)).code).toBe(0);
      const again = await memdir('merge', sanitizeDirName(from), sanitizeDirName(into), '--yes', '--json');
      expect(again.code).toBe(0);
      const second = (JSON.parse(again.out) as { record: { id: string } }).record.id;
      for (const undo of first === 'older' ? [id, second] : [second, id]) expect((await memdir('merge', 'undo', undo)).code).toBe(0);
      expect(await fs.readdir(intoMemory)).toEqual(['mine.md']);
      expect((await fs.readdir(fromMemory)).sort()).toEqual(['MEMORY.md', 'cc.md', 'sql.md']);
      expect((await state()).into).toEqual(['mine.md']);
    },
  );

  // s37 defect 4: a memory in a sub-folder (db/sql.md) moved, then the move undone — whole, redone, undone again.
  it.each(['relink', 'merge'] as const)(
    'a %s of a memory in a sub-folder undone leaves both trees exactly as before it: no empty db/ anywhere',
    async (kind) => {
      const from = path.join(root, 'src', 'shop');
      const into = path.join(root, 'work', 'shop');
      const fromMemory = path.join(home, 'projects', sanitizeDirName(from), 'memory');
      const intoMemory = path.join(home, 'projects', sanitizeDirName(into), 'memory');
      const walk = async (dir: string): Promise<string[]> => {
        const out: string[] = [];
        for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
          out.push(e.isDirectory() ? `${e.name}/` : e.name);
          if (e.isDirectory()) out.push(...(await walk(path.join(dir, e.name))).map((n) => `${e.name}/${n}`));
        }
        return out.sort();
      };
      // The trees before the move, as movedAndMerged builds them.
      const before = { from: ['MEMORY.md', 'db/', 'db/sql.md'], into: ['mine.md'] };
      const { id } = await movedAndMerged(kind, 'db/sql.md');
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      expect({ from: await walk(fromMemory), into: await walk(intoMemory) }).toEqual(before);
    },
  );

  it('a relink killed inside the folder it writes a sub-folder memory into is put back with that folder as before: no empty db/ left', async () => {
    const from = path.join(root, 'src', 'shop');
    await makeRepo(from);
    await addSession(home, from);
    const sql = topic('SQL', 'feedback', 'by hand');
    const fromMemory = await addMemories(home, from, { 'MEMORY.md': '- [SQL](db/sql.md) — by hand\n', 'db/sql.md': sql });
    expect((await memdir('history', from)).code).toBe(0);
    const into = path.join(root, 'work', 'shop');
    await fs.mkdir(path.dirname(into), { recursive: true });
    await fs.rename(from, into);
    await addSession(home, into);
    const intoMemory = await addMemories(home, into, { 'mine.md': topic('Mine', 'user', 'mine') });
    expect((await memdir('history', into)).code).toBe(0);
    const dataDir = path.join(root, 'data');
    const before = (await fs.readdir(intoMemory)).sort();
    // Killed inside work/shop: its writes planned in the journal and made (db/ made for db/sql.md), its entry not recorded.
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    await leaveIntent(dataDir, {
      op: 'apply',
      id: '20261206-080000-abcd',
      kind: 'relink',
      what: `relinking ${from} into projects/${sanitizeDirName(into)} (relink 20261206-080000-abcd)`,
      turn: randomUUID(),
      folders: [intoMemory, fromMemory],
      steps: [
        {
          memoryDir: intoMemory,
          head: await headRevision(intoMemory, { dataDir }),
          writes: [
            { file: 'db/sql.md', before: null, after: b64(sql) },
            { file: 'MEMORY.md', before: null, after: b64('- [SQL](db/sql.md) — by hand\n') },
          ],
          // As the journal plans it: db/ was not there, the step's write makes it.
          made: ['db'],
        },
      ],
      recordState: null,
      startedAt: new Date().toISOString(),
      pid: 2 ** 22 + 1,
    });
    await fs.mkdir(path.join(intoMemory, 'db'));
    await fs.writeFile(path.join(intoMemory, 'db', 'sql.md'), sql);
    await fs.writeFile(path.join(intoMemory, 'MEMORY.md'), '- [SQL](db/sql.md) — by hand\n');
    const list = await memdir('merge', 'list', '--json');
    expect(list.err).toContain('Memdir was stopped while relinking');
    expect((await fs.readdir(intoMemory)).sort()).toEqual(before);
    expect(await fs.readFile(path.join(fromMemory, 'db', 'sql.md'), 'utf8')).toBe(sql);
  });

  it('a relink undone that stops halfway through writing its second directory puts back what it wrote there too', async () => {
    const { fromMemory, intoMemory, id, merged, state } = await movedAndMerged('relink', 'db/sql.md', { 'a.md': topic('A', 'user', 'a') });
    // A folder the moved memory is taken out of that lets none go: a.md is taken out of work/shop first, then db/sql.md cannot be.
    await fs.mkdir(path.join(fromMemory, 'db'), { recursive: true });
    const locked = await unwritable(path.join(intoMemory, 'db'));
    if (!locked) return; // Neither chmod nor the immutable flag bites here: no real write failure to make.
    try {
      const undo = await memdir('merge', 'undo', id);
      expect(undo).toMatchObject({ code: 2, out: '' });
      expect(undo.err).toContain(`Nothing was undone: undoing relink ${id} stopped in ${intoMemory}`);
      // The step the disk refused in work/shop was taken back by its own change (history's transact puts back a write the disk
      // refuses); the step already done in src/shop is put back by the turn.
      expect(undo.err).toContain(`What it had already changed in ${fromMemory} was put back; both steps stay in history.`);
      expect(await state()).toEqual({ ...merged, from: ['db'], into: ['MEMORY.md', 'a.md', 'db', 'mine.md'] });
    } finally {
      await locked();
    }
  });

  it.each(['relink', 'merge'] as const)(
    'a %s undone, or undone anyway, where a folder now sits at a name it writes back, refuses before writing anywhere, naming it',
    async (kind) => {
      const { into, fromMemory, id, merged, state, newest, mergeEntry } = await movedAndMerged(kind);
      await fs.mkdir(path.join(fromMemory, 'sql.md'), { recursive: true });
      const before = await newest(into);
      const own = await mergeEntry(into);
      for (const undo of [
        ['merge', 'undo', id],
        ['undo', into, own.rev, '--overwrite-changed'],
      ]) {
        const refused = await memdir(...undo);
        expect(refused).toMatchObject({ code: 2, out: '' });
        expect(refused.err).toContain(
          `Nothing was undone: this would take ${kind} ${id} away in every directory it changed, and in ${fromMemory}, sql.md is a folder, not a memory file`,
        );
        // Nothing written: no entry here, the folder kept as it is.
        expect(await newest(into)).toEqual(before);
        expect(await state()).toEqual({ ...merged, from: ['sql.md'] });
      }
    },
  );

  it.each(['relink', 'merge'] as const)(
    "undoing an older turn's entry of a %s refuses in one sentence naming the current turn's entry, writing nothing anywhere",
    async (kind) => {
      const { from, into, id, merged, apart, state, newest } = await movedAndMerged(kind);
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      const older = { [into]: await newest(into), [sanitizeDirName(from)]: await newest(sanitizeDirName(from)) };
      expect((await memdir('undo', into, older[into]!.rev)).code).toBe(0);
      expect(await state()).toEqual(merged);
      const redo = { [into]: await newest(into), [sanitizeDirName(from)]: await newest(sanitizeDirName(from)) };
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      expect(await state()).toEqual(apart);
      const current = { [into]: await newest(into), [sanitizeDirName(from)]: await newest(sanitizeDirName(from)) };
      // The first undo, and the redo, in either directory: both are older than the merge undo that now stands.
      for (const project of [into, sanitizeDirName(from)]) {
        for (const entry of [older[project]!, redo[project]!]) {
          const refused = await memdir('undo', project, entry.rev);
          expect(refused).toMatchObject({ code: 2, out: '' });
          expect(refused.err).toContain(`Nothing was undone: this entry turned ${kind} ${id} before its latest turn`);
          expect(refused.err).toContain(`${current[project]!.rev.slice(0, 10)} ("${current[project]!.summary}")`);
          expect(await state()).toEqual(apart);
          expect(await newest(project)).toEqual(current[project]);
        }
      }
      // The current turn's entry turns it, as one.
      expect((await memdir('undo', sanitizeDirName(from), current[sanitizeDirName(from)]!.rev)).code).toBe(0);
      expect(await state()).toEqual(merged);
    },
  );

  it("undoing an import's own entry anyway after an edit undoes the import whole, the edit kept in history", async () => {
    const { project } = await projectWithHistory();
    const { target, targetMemory, merge } = await exportAndImport(project);
    await fs.writeFile(path.join(targetMemory, 'a.md'), topic('A', 'user', 'my edit'));
    const entries = async () => (JSON.parse((await memdir('history', target, '--json')).out) as { entries: { rev: string; summary: string }[] }).entries;
    const own = (await entries()).at(-1)!;
    const refused = await memdir('undo', target, own.rev);
    expect(refused).toMatchObject({ code: 2, err: expect.stringContaining('--overwrite-changed') });
    expect(await fs.readFile(path.join(targetMemory, 'a.md'), 'utf8')).toBe(topic('A', 'user', 'my edit'));

    const anyway = await memdir('undo', target, own.rev, '--overwrite-changed');
    expect(anyway).toMatchObject({ code: 0, out: expect.stringContaining(`it was undone whole, as \`memdir merge undo ${merge!.id}\` does`) });
    expect(await fs.stat(path.join(targetMemory, 'a.md')).catch(() => null)).toBeNull();
    expect(JSON.parse((await memdir('merge', 'list', '--json')).out).merges).toMatchObject([{ id: merge!.id, undone: { revs: [(await entries())[0]!.rev] } }]);
    // The edit stays in history: undoing the undo brings the import back with it.
    expect((await memdir('undo', target, (await entries())[0]!.rev)).code).toBe(0);
    expect(await fs.readFile(path.join(targetMemory, 'a.md'), 'utf8')).toBe(topic('A', 'user', 'my edit'));
  });

  it('undoing the undo of an import that took the whole memory folder away makes the folder again', async () => {
    const { project } = await projectWithHistory();
    const { target, targetMemory, merge } = await exportAndImport(project);
    expect((await memdir('merge', 'undo', merge!.id)).code).toBe(0);
    expect(await fs.stat(targetMemory).catch(() => null)).toBeNull();

    const own = JSON.parse((await memdir('history', target, '--json')).out) as { entries: { rev: string; summary: string }[] };
    expect(own.entries[0]!.summary).toBe(`Undo import ${merge!.id}`);
    const undo = await memdir('undo', target, own.entries[0]!.rev);
    expect(undo).toMatchObject({ code: 0, err: '' });
    expect(await fs.readFile(path.join(targetMemory, 'a.md'), 'utf8')).toBe(topic('A', 'user', 'first words'));
    expect(JSON.parse((await memdir('history', target, '--json')).out).imported).toMatchObject([{ id: merge!.id, undone: false }]);
  });

  it('every undo refuses in one sentence, writing nothing, when a file is where the memory folder should be', async () => {
    const { project, memoryDir } = await projectWithHistory();
    await fs.writeFile(path.join(memoryDir, 'a.md'), topic('A', 'user', 'second words'));
    const [edit, first] = (JSON.parse((await memdir('history', project, '--json')).out) as { entries: { rev: string }[] }).entries;
    const { target, targetMemory, merge } = await exportAndImport(project);
    expect((await memdir('merge', 'undo', merge!.id)).code).toBe(0);
    const undoImport = (JSON.parse((await memdir('history', target, '--json')).out) as { entries: { rev: string }[] }).entries[0]!;
    const notAFolder = 'not a folder, kept as it is';
    for (const dir of [memoryDir, targetMemory]) {
      await fs.rm(dir, { recursive: true, force: true });
      await fs.mkdir(path.dirname(dir), { recursive: true });
      await fs.writeFile(dir, notAFolder);
    }
    const refusals = [
      await memdir('undo', project, edit!.rev),
      await memdir('undo', project, edit!.rev, '--overwrite-changed'),
      await memdir('restore', project, first!.rev, 'a.md'),
      await memdir('restore', project, first!.rev),
      await memdir('undo', target, undoImport.rev),
    ];
    for (const r of refusals) {
      expect(r).toMatchObject({ code: 2, out: '' });
      expect(r.err).toMatch(/The memory folder .* is a file, not a folder, so a\.md cannot be read or written there\. Move that file away/);
      expect(r.err).not.toMatch(/E[A-Z]{3,}:/);
    }
    for (const dir of [memoryDir, targetMemory]) expect(await fs.readFile(dir, 'utf8')).toBe(notAFolder);
    expect(JSON.parse((await memdir('merge', 'list', '--json')).out).merges).toMatchObject([{ id: merge!.id, undone: { revs: [undoImport.rev] } }]);
  });

  it('exports and imports', async () => {
    const project = path.join(root, 'p');
    await makeRepo(project);
    await addSession(home, project);
    await addMemories(home, project, { 'a.md': topic('A', 'user', 'a') });
    const file = path.join(root, 'p.tar');
    const exported = await memdir('export', project, file);
    expect(exported.out).toContain(`Exported 1 file of ${project} with its history to ${file}.`);
    // Into a folder that does not exist: made and said when its parent exists; refused, nothing made, when not.
    const fresh = await memdir('export', project, path.join(root, 'backups', 'p.tar'));
    expect(fresh.code).toBe(0);
    expect(fresh.out).toContain(`The folder ${path.join(root, 'backups')} did not exist: it was made for the archive.`);
    expect(JSON.parse((await memdir('export', project, path.join(root, 'backups', 'p2.tar'), '--json')).out)).toMatchObject({ createdFolder: null });
    const typo = await memdir('export', project, path.join(root, 'Bakups', '2026', 'p.tar'));
    expect(typo).toMatchObject({
      code: 2,
      err: expect.stringContaining(`Neither ${path.join(root, 'Bakups', '2026')} nor ${path.join(root, 'Bakups')} exists`),
    });
    expect(await fs.stat(path.join(root, 'Bakups')).catch(() => null)).toBeNull();
    const target = path.join(root, 'q');
    await fs.mkdir(target);
    expect((await memdir('import', file, target)).out).toMatch(/a\.md\s+added/);
    const imported = await memdir('import', file, target, '--yes');
    expect(imported.code).toBe(0);
    expect(await fs.readFile(path.join(home, 'projects', sanitizeDirName(target), 'memory', 'a.md'), 'utf8')).toContain('name: A');
    await fs.writeFile(path.join(root, 'junk.tar'), 'junk');
    expect(await memdir('import', path.join(root, 'junk.tar'), target, '--yes')).toMatchObject({
      code: 2,
      err: expect.stringContaining('cannot be imported: it is not a tar archive'),
    });
  });

  it("exports the agent memory of app/, where the sessions start, into app/ of the target, and names a worktree's it cannot carry", async () => {
    const project = path.join(root, 'p');
    await makeRepo(project);
    await fs.mkdir(path.join(project, 'app'));
    await addSession(home, path.join(project, 'app'));
    const wt = path.join(root, 'p-wt');
    git(project, 'worktree', 'add', '-q', wt);
    await addSession(home, wt, '0b0e3f5c-4444-4111-8111-111111111111');
    await addMemories(home, project, { 'a.md': topic('A', 'user', 'a') });
    for (const dir of [path.join(project, 'app'), wt]) {
      await fs.mkdir(path.join(dir, '.claude', 'agent-memory-local', 'reviewer'), { recursive: true });
      await fs.writeFile(path.join(dir, '.claude', 'agent-memory-local', 'reviewer', 'MEMORY.md'), '- terse\n');
    }
    const left = `The agent memory in ${path.join(wt, '.claude')} (sessions started there, outside ${project}) is not in the archive: it carries only what is under the project's root.`;
    const file = path.join(root, 'p.tar');
    const exported = await memdir('export', project, file);
    expect(exported.out).toBe(`Exported 2 files of ${project} with its history to ${file}.\n${left}\n`);
    expect(JSON.parse((await memdir('export', project, path.join(root, 'p2.tar'), '--json')).out)).toMatchObject({ files: 2, warnings: [left] });
    const target = path.join(root, 'q');
    await fs.mkdir(path.join(target, 'app'), { recursive: true });
    const plan = JSON.parse((await memdir('import', file, target, '--json')).out).plan;
    expect(plan.files).toContainEqual({ area: 'agent:local:reviewer@app', file: 'MEMORY.md', action: 'add' });
    expect((await memdir('import', file, target, '--yes')).code).toBe(0);
    expect(await fs.readFile(path.join(target, 'app', '.claude', 'agent-memory-local', 'reviewer', 'MEMORY.md'), 'utf8')).toBe('- terse\n');
  });

  it.each(['relink', 'merge'] as const)(
    'an undo of a %s killed between its two folders is put back by the next merge command, said on stderr and in its JSON, once',
    async (kind) => {
      const { id, merged, state } = await movedAndMerged(kind);
      const dataDir = path.join(root, 'data');
      await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, id))!);
      const list = await memdir('merge', 'list', '--json');
      expect(list.code).toBe(0);
      const sentence = `Memdir was stopped while undoing ${kind} ${id}`;
      expect(list.err).toContain(sentence);
      const json = JSON.parse(list.out) as { merges: { id: string; undone: unknown }[]; recovered?: string };
      expect(json.recovered).toContain(sentence);
      expect(json.recovered).toContain(`so ${kind} ${id} stands as it was before`);
      expect(json.merges[0]).toMatchObject({ id, undone: null });
      expect(await state()).toEqual(merged);
      // Told once: the next command has nothing to finish.
      const again = await memdir('merge', 'list', '--json');
      expect(again.err).toBe('');
      expect(JSON.parse(again.out)).not.toHaveProperty('recovered');
      // And the merge still undoes whole.
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
    },
  );

  // Review C's reproductions (F1-F4): what the person or Claude Code wrote between the kill and the
  // recovery survives it, and a put-back that failed is never wiped.
  it('F2: a memory the person writes in Memdir between a killed merge undo and the recovery is kept, with its pointer', async () => {
    const { id, fromMemory, merged, state } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    // Killed once it had written sql.md back into src/shop, before taking it out of work/shop.
    await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, id))!);
    await createMemory(
      { memoryDir: fromMemory, scope: 'private', dataDir },
      { fields: { name: 'New one', description: 'kept', type: 'user' }, body: 'I wrote this after' },
    );
    const list = await memdir('merge', 'list', '--json');
    expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(await state()).toEqual({ ...merged, from: ['MEMORY.md', 'user_new_one.md'] });
    const index = await fs.readFile(path.join(fromMemory, 'MEMORY.md'), 'utf8');
    expect(index).toContain('(user_new_one.md)');
    expect(index).not.toContain('sql.md');
  });

  it('F3: a memory Claude Code writes between a killed merge undo and the recovery keeps its MEMORY.md line, and nothing is said to be overwritten', async () => {
    const { id, fromMemory, merged, state } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    // Killed once it had written sql.md back into src/shop, before taking it out of work/shop.
    await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, id))!);
    await fs.writeFile(path.join(fromMemory, 'cc_new.md'), topic('CC', 'user', 'from claude code'));
    const index = path.join(fromMemory, 'MEMORY.md');
    await fs.writeFile(index, (await fs.readFile(index, 'utf8').catch(() => '')) + '- [CC](cc_new.md) — claude code wrote\n');
    const list = await memdir('merge', 'list', '--json');
    expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(list.err).not.toContain('overwritten');
    expect(list.err).not.toContain('cc_new.md');
    expect(await state()).toEqual({ ...merged, from: ['MEMORY.md', 'cc_new.md'] });
    expect(await fs.readFile(index, 'utf8')).toBe('- [CC](cc_new.md) — claude code wrote\n');
  });

  it('F4: a merge undo killed inside its first folder is put back even when `memdir history` recorded its writes as outside changes first', async () => {
    const { into, id, merged, state } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    await undoKilledInsideLastFolder(dataDir, (await readMergeRecord(dataDir, id))!);
    expect((await memdir('history', into)).code).toBe(0);
    const list = await memdir('merge', 'list', '--json');
    expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(list.err).not.toContain('it had changed nothing yet');
    expect(await state()).toEqual(merged);
  });

  it('F1: a put-back that failed is kept: a new import refuses in a sentence until it is put back, then it is', async () => {
    const { into, id, fromMemory, merged, state } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, id))!);
    // The folder the killed undo wrote sql.md back into, which the put-back takes it out of again.
    const unlock = await unwritable(fromMemory);
    if (!unlock) return; // Neither chmod nor the immutable flag bites here: no real write failure to make.
    try {
      const list = await memdir('merge', 'list', '--json');
      expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
      expect(list.err).toContain('failed in');
      expect(JSON.parse(list.out).recovered).toContain('failed in');
      const file = path.join(root, 'p.tar');
      expect((await memdir('export', into, file)).code).toBe(0);
      await fs.mkdir(path.join(root, 'q'));
      const imported = await memdir('import', file, path.join(root, 'q'), '--yes');
      expect(imported.code).not.toBe(0);
      expect(imported.err).toContain(`could not be put back`);
      await fs.access(path.join(dataDir, 'merges', 'turning.json'));
    } finally {
      await unlock();
    }
    const again = await memdir('merge', 'list', '--json');
    expect(again.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(again.err).not.toContain('failed in');
    expect(await state()).toEqual(merged);
    await expect(fs.access(path.join(dataDir, 'merges', 'turning.json'))).rejects.toThrow();
  });

  it('a put-back killed half-way (the memory written back, its pointer not yet) is finished by the next merge command, pointer and all', async () => {
    const { id, intoMemory, merged, state } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    const record = (await readMergeRecord(dataDir, id))!;
    const sql = await fs.readFile(path.join(intoMemory, 'sql.md'), 'utf8');
    const index = await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8');
    // Killed after its last folder: sql.md taken out of work/shop (with its pointer), back in src/shop.
    await undoKilledBetweenFolders(dataDir, record, 2);
    // The recovery, killed after writing sql.md back into work/shop and before MEMORY.md: nothing of it recorded.
    await fs.writeFile(path.join(intoMemory, 'sql.md'), sql);
    const list = await memdir('merge', 'list', '--json');
    expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(await state()).toEqual(merged);
    expect(await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8')).toBe(index);
  });

  it('a file the killed turn wrote that was changed since is kept as it is and named; the rest is put back', async () => {
    const { id, intoMemory, fromMemory, merged, state } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, id))!, 2);
    // The killed undo took sql.md out of work/shop; someone writes another sql.md there since.
    const mine = topic('SQL', 'feedback', 'written again, by me');
    await fs.writeFile(path.join(intoMemory, 'sql.md'), mine);
    const list = await memdir('merge', 'list', '--json');
    expect(list.err).toContain(`${path.join(intoMemory, 'sql.md')} was changed since, so it was left as it is now (history has both versions).`);
    // The sql.md the merge moved could not go back into work/shop: the copy the killed undo wrote in src/shop stays, its only one.
    expect(list.err).toContain(`${path.join(fromMemory, 'sql.md')} stays, its only copy`);
    // Something of the killed undo was there, and was left: never "nothing of it was left to put back" (s37 defect 5).
    expect(list.err).not.toContain('nothing of it was left to put back');
    expect(list.err).toContain(`${fromMemory} was left there, as said below`);
    expect(await state()).toEqual({ ...merged, from: ['MEMORY.md', 'sql.md'] });
    expect(await fs.readFile(path.join(intoMemory, 'sql.md'), 'utf8')).toBe(mine);
    expect(await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8')).toBe(`${BUILT_MINE}- [SQL](sql.md) — by hand\n`);
  });
  // Review of the journal (F1-F4): a put-back never takes the last copy of a memory, never undoes
  // what the person did in Memdir since, says only what is true, and leaves no empty MEMORY.md.
  it('a put-back that cannot write one folder never takes the memory out of the only other folder it is in (F1)', async () => {
    const { id, intoMemory, fromMemory, merged, state } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    // Killed after its last folder, its record not saved: sql.md is in src/shop again, and only there.
    await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, id))!, 2);
    expect(await fs.readdir(fromMemory)).toContain('sql.md');
    expect(await fs.readdir(intoMemory)).not.toContain('sql.md');
    const unlock = await unwritable(intoMemory);
    if (!unlock) return; // Neither chmod nor the immutable flag bites here: no real write failure to make.
    try {
      const list = await memdir('merge', 'list', '--json');
      expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
      expect(list.err).toContain(`failed in ${intoMemory}`);
      // Still where it was: the put-back that could not bring it back to work/shop took nothing from src/shop.
      expect((await fs.readdir(fromMemory)).sort()).toEqual(['MEMORY.md', 'sql.md']);
      expect(await fs.readFile(path.join(fromMemory, 'MEMORY.md'), 'utf8')).toBe('- [SQL](sql.md) — by hand\n');
    } finally {
      await unlock();
    }
    const again = await memdir('merge', 'list', '--json');
    expect(again.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(again.err).not.toContain('failed in');
    expect(await state()).toEqual(merged);
  });

  it('a memory the person deletes in Memdir after a merge undo was killed before its first write stays deleted, and is named (F2)', async () => {
    const { id, intoMemory } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    await undoKilledInsideLastFolder(dataDir, (await readMergeRecord(dataDir, id))!, []);
    await deleteMemory({ memoryDir: intoMemory, scope: 'private', dataDir }, 'sql.md');
    const list = await memdir('merge', 'list', '--json');
    expect(await fs.readdir(intoMemory)).not.toContain('sql.md');
    expect(await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8').catch(() => '')).not.toContain('sql.md');
    expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(list.err).toContain(`${path.join(intoMemory, 'sql.md')} (by "Delete sql.md") was changed since, so it was left as it is now`);
  });

  it('a memory the person renames in Memdir after a merge undo was killed before its first write keeps its new name only, with one pointer (F2)', async () => {
    const { id, intoMemory } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    await undoKilledInsideLastFolder(dataDir, (await readMergeRecord(dataDir, id))!, []);
    await renameMemory({ memoryDir: intoMemory, scope: 'private', dataDir }, 'sql.md', 'feedback_sql.md');
    const list = await memdir('merge', 'list', '--json');
    expect((await fs.readdir(intoMemory)).sort()).toEqual(['MEMORY.md', 'feedback_sql.md', 'mine.md']);
    expect(await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8')).toBe(`${BUILT_MINE}- [SQL](feedback_sql.md) — by hand\n`);
    expect(list.err).toContain(`${path.join(intoMemory, 'sql.md')} (by "Rename sql.md to feedback_sql.md") was changed since`);
  });

  it('a killed step is put back file by file: what it wrote goes back, a memory the person renamed since keeps its new name (F2)', async () => {
    const { id, intoMemory, fromMemory } = await movedAndMerged('merge', 'sql.md', { 'ci.md': topic('CI', 'project', 'CI dropped 3.8') });
    const dataDir = path.join(root, 'data');
    // Killed inside work/shop after taking sql.md out, before ci.md.
    await undoKilledInsideLastFolder(dataDir, (await readMergeRecord(dataDir, id))!, ['sql.md']);
    await renameMemory({ memoryDir: intoMemory, scope: 'private', dataDir }, 'ci.md', 'project_ci.md');
    const list = await memdir('merge', 'list', '--json');
    expect((await fs.readdir(intoMemory)).sort()).toEqual(['MEMORY.md', 'mine.md', 'project_ci.md', 'sql.md']);
    expect(await fs.readFile(path.join(intoMemory, 'MEMORY.md'), 'utf8')).toBe(`${BUILT_MINE}- [SQL](sql.md) — by hand\n`);
    expect(list.err).toContain(`what it had changed in ${intoMemory}, ${fromMemory} was put back`);
    expect(list.err).toContain(`${path.join(intoMemory, 'ci.md')} (by "Rename ci.md to project_ci.md") was changed since`);
  });

  it('the recovery never says the killed turn had changed nothing when the person put its change back by hand (F3)', async () => {
    const { id, into, intoMemory, merged, state } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    const record = (await readMergeRecord(dataDir, id))!;
    // Killed after its last folder: sql.md taken out of work/shop, which the person then restores.
    await undoKilledBetweenFolders(dataDir, record, 2);
    expect((await memdir('restore', into, record.touched[0]!.rev, 'sql.md')).code).toBe(0);
    const list = await memdir('merge', 'list', '--json');
    expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(list.err).not.toContain('changed nothing');
    expect(list.err).toContain(`nothing of it was left to put back in ${intoMemory}`);
    expect(await state()).toEqual(merged);
  });

  it('a merge killed between its folders is put back with no empty MEMORY.md, and a line Claude Code edited since is said to go (F4)', async () => {
    const from = path.join(root, 'src', 'shop');
    await makeRepo(from);
    await addSession(home, from);
    const fromMemory = await addMemories(home, from, { 'MEMORY.md': '- [SQL](sql.md) — by hand\n', 'sql.md': topic('SQL', 'feedback', 'by hand') });
    expect((await memdir('history', from)).code).toBe(0);
    const into = path.join(root, 'work', 'shop');
    await fs.mkdir(path.dirname(into), { recursive: true });
    git(root, 'clone', '-q', from, into);
    git(into, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop.git');
    await addSession(home, into);
    const intoMemory = await addMemories(home, into, { 'mine.md': topic('Mine', 'user', 'mine') });
    expect((await memdir('history', into)).code).toBe(0);
    const dataDir = path.join(root, 'data');
    // A real merge, SIGKILLed once work/shop is written and recorded: src/shop's step waits for its lock, held here.
    const worker = await bundleWorker('src/main/relink/test-support/merge-worker.ts');
    const journal = path.join(dataDir, 'merges', 'turning.json');
    await withMemoryLock(
      fromMemory,
      async () => {
        const w = await startWorker(worker, ['merge', home, dataDir, sanitizeDirName(from), sanitizeDirName(into)]);
        w.child.stdin!.end('go\n');
        for (let i = 0; i < 600; i++) {
          const steps = (JSON.parse((await fs.readFile(journal, 'utf8').catch(() => '')) || '{"steps":[]}') as { steps: { head: string }[] }).steps;
          if (steps.length === 1 && (await headRevision(intoMemory, { dataDir })) !== steps[0]!.head) break;
          await sleep(50);
        }
        w.child.kill('SIGKILL');
        await w.exit;
      },
      { dataDir, timeoutMs: 60_000 },
    );
    const index = path.join(intoMemory, 'MEMORY.md');
    expect(await fs.readFile(index, 'utf8')).toBe(`${BUILT_MINE}- [SQL](sql.md) — by hand\n`);
    await fs.writeFile(index, '- [SQL](sql.md) — by hand, edited after the kill\n');
    const list = await memdir('merge', 'list', '--json');
    // work/shop as before the merge: no MEMORY.md at all (it had none), src/shop whole.
    expect((await fs.readdir(intoMemory)).sort()).toEqual(['mine.md']);
    expect((await fs.readdir(fromMemory)).sort()).toEqual(['MEMORY.md', 'sql.md']);
    expect(list.err).toContain('Memdir was stopped while merging');
    expect(list.err).toContain(`${index}'s line for sql.md was edited since merging`);
    expect(list.err).toContain('put back anyway, it went too (as edited, it stays in history)');
    const outside = (await listHistory(intoMemory, { dataDir })).find((e) => e.source === 'external')!;
    expect(await readAtRevision(intoMemory, outside.rev, 'MEMORY.md', { dataDir })).toBe('- [SQL](sql.md) — by hand, edited after the kill\n');
    expect(JSON.parse((await memdir('merge', 'list', '--json')).out).merges).toEqual([]);
  }, 60_000);

  // Review of s35-journal2, finding 1: the folder a put-back writes back into keeps a file of that name written since.
  it('a put-back that keeps a file written since where the memory goes back never takes the only copy out of the other folder (review 1)', async () => {
    const { id, fromMemory, intoMemory } = await movedAndMerged('merge', 'feedback_sql.md');
    const dataDir = path.join(root, 'data');
    // Killed after its last folder: feedback_sql.md ("by hand") taken out of work/shop, back in src/shop only.
    await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, id))!, 2);
    // The person writes it again in the app, in work/shop: another feedback_sql.md.
    await createMemory(
      { memoryDir: intoMemory, scope: 'private', dataDir },
      { fields: { name: 'SQL', description: 'shorter', type: 'feedback' }, body: 'the person wrote it again, shorter' },
    );
    const list = await memdir('merge', 'list', '--json');
    expect(list.code).toBe(0);
    expect(await fs.readFile(path.join(intoMemory, 'feedback_sql.md'), 'utf8')).toContain('the person wrote it again, shorter');
    // The memory the merge moved, "by hand", is still in src/shop, with its pointer: its only copy.
    expect(await fs.readFile(path.join(fromMemory, 'feedback_sql.md'), 'utf8')).toContain('by hand');
    expect(await fs.readFile(path.join(fromMemory, 'MEMORY.md'), 'utf8')).toContain('(feedback_sql.md)');
    // The create also wrote MEMORY.md there with what Claude Code would have built (no index was left): its summary says so.
    expect(list.err).toContain(
      `${path.join(intoMemory, 'feedback_sql.md')} (by "Create feedback_sql.md; MEMORY.md written with the pointer Claude Code would have built") was changed since`,
    );
    expect(list.err).toContain(`${path.join(fromMemory, 'feedback_sql.md')} stays`);
  });

  // Review of s35-journal2, finding 3: a merge whose second folder refuses a write is put back at once, and said.
  it('a merge that cannot take the memories out of the folder they came from puts back what it wrote into the other, and says so (review 3)', async () => {
    const from = path.join(root, 'src', 'shop');
    await makeRepo(from);
    await addSession(home, from);
    const fromMemory = await addMemories(home, from, { 'MEMORY.md': '- [SQL](sql.md) — by hand\n', 'sql.md': topic('SQL', 'feedback', 'by hand') });
    const into = path.join(root, 'work', 'shop');
    await fs.mkdir(path.dirname(into), { recursive: true });
    git(root, 'clone', '-q', from, into);
    git(into, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop.git');
    await addSession(home, into);
    const intoMemory = await addMemories(home, into, { 'mine.md': topic('Mine', 'user', 'mine') });
    const locked = await unwritable(fromMemory);
    if (!locked) return; // Neither chmod nor the immutable flag bites here: no real write failure to make.
    try {
      const merge = await memdir('merge', sanitizeDirName(from), sanitizeDirName(into), '--yes');
      expect(merge.code).toBe(2);
      expect(merge.err).toContain(`Nothing was done: merging`);
      expect(merge.err).toContain(`stopped in ${fromMemory} (Cannot delete `);
      expect(merge.err).toContain(`What it had already changed in ${intoMemory} was put back`);
    } finally {
      await locked();
    }
    expect((await fs.readdir(intoMemory)).sort()).toEqual(['mine.md']);
    expect((await fs.readdir(fromMemory)).sort()).toEqual(['MEMORY.md', 'sql.md']);
    expect(JSON.parse((await memdir('merge', 'list', '--json')).out).merges).toEqual([]);
    await expect(fs.access(path.join(root, 'data', 'merges', 'turning.json'))).rejects.toThrow();
  });

  // Review of s35-journal2, finding 4: the memory the killed undo wrote back, renamed since, is named.
  it('a memory the killed undo wrote back that the person renamed since is named as kept (review 4)', async () => {
    const { id, fromMemory } = await movedAndMerged('merge');
    const dataDir = path.join(root, 'data');
    await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, id))!, 2);
    await renameMemory({ memoryDir: fromMemory, scope: 'private', dataDir }, 'sql.md', 'feedback_sql.md');
    const list = await memdir('merge', 'list', '--json');
    expect(list.err).toContain(`Memdir was stopped while undoing merge ${id}`);
    expect(list.err).toContain(`${path.join(fromMemory, 'sql.md')} (by "Rename sql.md to feedback_sql.md") was changed since`);
    expect((await fs.readdir(fromMemory)).sort()).toEqual(['MEMORY.md', 'feedback_sql.md']);
  });

  // A real `memdir merge undo` SIGKILLed between its folders: one folder's lock, taken once the undo
  // has journalled its intent (its checks are done), holds it there — after its step in the other
  // folder when that one goes first. The moved memory is in one folder at least at the kill.
  it.each(['src/shop', 'work/shop'] as const)(
    'a merge undo SIGKILLed between its folders (%s held) leaves the moved memory in one of them at least, and is put back',
    async (held) => {
      const { id, fromMemory, intoMemory, merged, apart, state } = await movedAndMerged('merge');
      const dataDir = path.join(root, 'data');
      const worker = await bundleWorker('src/main/relink/test-support/merge-worker.ts');
      const journal = path.join(dataDir, 'merges', 'turning.json');
      const w = await startWorker(worker, ['undo', dataDir, id]);
      w.child.stdin!.end('go\n');
      for (let i = 0; i < 6_000 && !(await fs.stat(journal).catch(() => null)); i++) await sleep(2);
      await withMemoryLock(
        held === 'src/shop' ? fromMemory : intoMemory,
        async () => {
          // Until the other folder's step is recorded (it went first), or the undo waits here from the start.
          for (let i = 0; i < 60; i++) {
            const steps = (
              JSON.parse((await fs.readFile(journal, 'utf8').catch(() => '')) || '{"steps":[]}') as { steps: { memoryDir: string; head: string }[] }
            ).steps;
            if (steps.length === 1 && (await headRevision(steps[0]!.memoryDir, { dataDir })) !== steps[0]!.head) break;
            await sleep(50);
          }
          w.child.kill('SIGKILL');
          await w.exit;
        },
        { dataDir, timeoutMs: 60_000 },
      );
      const sql = await Promise.all([fromMemory, intoMemory].map(async (dir) => (await fs.readdir(dir).catch((): string[] => [])).includes('sql.md')));
      expect(sql, 'sql.md in src/shop, in work/shop at the kill').not.toEqual([false, false]);
      expect((await memdir('merge', 'list', '--json')).code).toBe(0);
      // Whole: put back (the undo was killed), or undone (it got past the lock before this test took it).
      expect([merged, apart]).toContainEqual(await state());
    },
    60_000,
  );
});
