import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { removeFileConfined, renameConfined, writeFileAtomic } from '../core/safe-fs.js';
import { UnsafePathError } from '../core/confined-path.js';
import { deletedFiles, diffRevisions, HistoryError, listHistory, readAtRevision, recordSnapshot, restoreFromHistory, transact } from './history.js';
import { broughtBackSince } from './later-changes.js';

let tmp: string;
let mem: string;
let dataDir: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-history-')));
  mem = path.join(tmp, 'memory');
  dataDir = path.join(tmp, 'data');
  await fs.mkdir(mem);
});

afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const write = (file: string, text: string) =>
  fs.mkdir(path.dirname(path.join(mem, file)), { recursive: true }).then(() => fs.writeFile(path.join(mem, file), text));
const read = (file: string) => fs.readFile(path.join(mem, file), 'utf8');
const edit = (summary: string, fn: () => Promise<void>, source = 'manual') => transact(mem, { source, summary, dataDir }, fn);

async function historyError(promise: Promise<unknown>): Promise<HistoryError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HistoryError);
  expect((err as Error).message).not.toMatch(/fatal|usage:/i);
  return err as HistoryError;
}

function shadowGitDir(): string {
  return path.join(
    dataDir,
    'history',
    execFileSync('ls', [path.join(dataDir, 'history')])
      .toString()
      .trim(),
    'repo.git',
  );
}

describe('recording', () => {
  it('records a snapshot with its source, and nothing when nothing changed', async () => {
    await write('MEMORY.md', '- [A](a.md) — a\n');
    await write('a.md', 'alpha\n');
    const entry = await recordSnapshot(mem, { source: 'import', summary: 'Imported', dataDir });
    expect(entry).toMatchObject({ source: 'import', summary: 'Imported' });
    expect(entry?.rev).toMatch(/^[0-9a-f]{40}$/);
    expect(Number.isNaN(Date.parse(entry?.time ?? ''))).toBe(false);
    expect(entry?.files).toEqual([
      { path: 'MEMORY.md', status: 'added' },
      { path: 'a.md', status: 'added' },
    ]);
    expect(await recordSnapshot(mem, { source: 'import', summary: 'Again', dataDir })).toBeNull();
  });

  it('keeps non-ASCII file names exactly', async () => {
    const { entry } = await edit('中文', () => writeFileAtomic(mem, 'team/项目 说明.md', '内容\n'));
    expect(entry).toMatchObject({ summary: '中文', files: [{ path: 'team/项目 说明.md', status: 'added' }] });
    expect(await readAtRevision(mem, entry?.rev ?? '', 'team/项目 说明.md', { dataDir })).toBe('内容\n');
    expect(await diffRevisions(mem, null, entry?.rev ?? '', { dataDir })).toContain('+++ b/team/项目 说明.md');
  });

  it('keeps the repository in the data dir, never in the memory dir', async () => {
    await write('a.md', 'a');
    await recordSnapshot(mem, { source: 'manual', summary: 's', dataDir });
    expect(await fs.readdir(mem)).toEqual(['a.md']);
    const gitDir = shadowGitDir();
    expect(gitDir.startsWith(path.join(dataDir, 'history') + path.sep)).toBe(true);
    const meta = JSON.parse(await fs.readFile(path.join(path.dirname(gitDir), 'meta.json'), 'utf8')) as { memoryDir: string };
    expect(meta.memoryDir).toBe(mem);
  });

  it('does not record dotfiles, temp files or *.tmp', async () => {
    await write('a.md', 'a');
    await write('.consolidate-lock', '');
    await write('.memdir-tmp-123', 'partial');
    await write('team/draft.tmp', 'x');
    const entry = await recordSnapshot(mem, { source: 'manual', summary: 's', dataDir });
    expect(entry?.files.map((f) => f.path)).toEqual(['a.md']);
  });

  it('attributes changes made outside Memdir to `external` before its own', async () => {
    await edit('Created a', () => writeFileAtomic(mem, 'a.md', 'one\n'));
    await write('b.md', 'typed by hand\n');
    const { entry } = await edit('Updated a', () => writeFileAtomic(mem, 'a.md', 'two\n'));
    expect(entry?.files).toEqual([{ path: 'a.md', status: 'modified' }]);
    const history = await listHistory(mem, { dataDir });
    expect(history.map((e) => [e.source, e.summary])).toEqual([
      ['manual', 'Updated a'],
      ['external', 'Changes made outside Memdir'],
      ['manual', 'Created a'],
    ]);
    expect(history[1]?.files).toEqual([{ path: 'b.md', status: 'added' }]);
  });

  it('records what another program wrote while a change ran as its own `external` entry, before the change’s, which holds only what the change wrote', async () => {
    await edit('Created a and b', async () => {
      await writeFileAtomic(mem, 'a.md', 'one\n');
      await writeFileAtomic(mem, 'b.md', 'bee\n');
    });
    const { entry } = await edit('Renamed b, removed a, wrote c', async () => {
      await renameConfined(mem, 'b.md', 'sub/b2.md');
      // Claude Code saves a memory and edits another while the change runs.
      await write('claude.md', 'theirs\n');
      await write('a.md', 'edited by Claude Code\n');
      await writeFileAtomic(mem, 'c.md', 'see\n');
      await removeFileConfined(mem, 'a.md');
    });
    // Was: one entry holding claude.md too (its undo would take Claude Code's memory away).
    expect(entry?.files).toEqual([
      { path: 'a.md', status: 'deleted' },
      { path: 'c.md', status: 'added' },
      { path: 'sub/b2.md', status: 'renamed', from: 'b.md' },
    ]);
    const history = await listHistory(mem, { dataDir });
    expect(history.map((e) => [e.source, e.summary])).toEqual([
      ['manual', 'Renamed b, removed a, wrote c'],
      ['external', 'Changes made outside Memdir'],
      ['manual', 'Created a and b'],
    ]);
    expect(history[1]?.files).toEqual([{ path: 'claude.md', status: 'added' }]);

    // A failed change too: its "(incomplete)" entry holds only its own write.
    const failing = edit('Two files', async () => {
      await writeFileAtomic(mem, 'd.md', 'd');
      await write('claude2.md', 'theirs too\n');
      throw new Error('model timed out');
    });
    await expect(failing).rejects.toThrow('model timed out');
    const [last, before] = await listHistory(mem, { dataDir });
    expect(last).toMatchObject({ summary: 'Two files (incomplete)', files: [{ path: 'd.md', status: 'added' }] });
    expect(before).toMatchObject({ source: 'external', files: [{ path: 'claude2.md', status: 'added' }] });
  });

  it('records what a failed change had already written, marked incomplete, and rethrows', async () => {
    const failing = edit('Two files', async () => {
      await writeFileAtomic(mem, 'a.md', 'a');
      throw new Error('model timed out');
    });
    await expect(failing).rejects.toThrow('model timed out');
    const [last] = await listHistory(mem, { dataDir });
    expect(last).toMatchObject({ source: 'manual', summary: 'Two files (incomplete)', files: [{ path: 'a.md', status: 'added' }] });
  });

  it('folds a nested transact into the outer entry', async () => {
    const { entry } = await edit('Outer', async () => {
      await writeFileAtomic(mem, 'a.md', 'a');
      const inner = await edit('Inner', () => writeFileAtomic(mem, 'b.md', 'b'), 'fix');
      expect(inner.entry).toBeNull();
    });
    expect(entry?.files.map((f) => f.path)).toEqual(['a.md', 'b.md']);
    expect((await listHistory(mem, { dataDir })).map((e) => e.summary)).toEqual(['Outer']);
  });

  it('keeps what an undo anyway brought back as its own trailer, which a body cannot spoof', async () => {
    await edit('Add a', () => writeFileAtomic(mem, 'a.md', 'a\n'));
    const { entry: deleted } = await edit('Delete a', () => removeFileConfined(mem, 'a.md'));
    const spoof = `Memdir-Brought-Back: ${JSON.stringify({ rev: deleted!.rev, path: 'a.md', as: 'z.md' })}`;
    // A body written by a job (a dream's words) holding the trailer's line is not taken for it.
    await transact(mem, { source: 'dream', summary: 'Dream', body: `Consolidated.\n${spoof}`, dataDir }, () => writeFileAtomic(mem, 'z.md', 'z\n'));
    expect(await broughtBackSince(mem, deleted!.rev, { dataDir })).toEqual([]);
    const back = { rev: deleted!.rev, path: 'a.md', as: 'b.md' };
    const { entry } = await transact(mem, { source: 'restore', summary: 'Undo: Rename', dataDir, broughtBack: () => [back] }, () =>
      writeFileAtomic(mem, 'b.md', 'a\n'),
    );
    expect(await broughtBackSince(mem, deleted!.rev, { dataDir })).toEqual([{ entry, path: 'a.md', as: 'b.md' }]);
  });

  it('brings a memory back with the mode it had when it was last taken away, which a body cannot spoof', async () => {
    const mode = async (file: string) => ((await fs.stat(path.join(mem, file))).mode & 0o777).toString(8);
    const { entry: added } = await edit('Add a, b', async () => {
      await writeFileAtomic(mem, 'a.md', 'a\n', { mode: 0o600 });
      await writeFileAtomic(mem, 'b.md', 'b\n', { mode: 0o640 });
    });
    await edit('Delete a, b', async () => {
      await removeFileConfined(mem, 'a.md');
      await removeFileConfined(mem, 'b.md');
    });
    // A job's words holding the trailer's line are not taken for it.
    const spoof = `Memdir-Mode: ${JSON.stringify({ path: 'c.md', mode: '777' })}`;
    await transact(mem, { source: 'dream', summary: 'Dream', body: `Consolidated.\n${spoof}`, dataDir }, () => writeFileAtomic(mem, 'c.md', 'c\n'));
    await edit('Delete c', () => removeFileConfined(mem, 'c.md'));
    await restoreFromHistory(mem, added!.rev, { dataDir });
    expect([await mode('a.md'), await mode('b.md')]).toEqual(['600', '640']);
    expect(await fs.stat(path.join(mem, 'c.md')).catch(() => null)).toBeNull();
    await edit('Add c', () => writeFileAtomic(mem, 'c.md', 'c\n'));
    await edit('Delete c', () => removeFileConfined(mem, 'c.md'));
    const [addC] = (await listHistory(mem, { dataDir, file: 'c.md' })).filter((e) => e.summary === 'Add c');
    await restoreFromHistory(mem, addC!.rev, { dataDir, file: 'c.md' });
    expect(await mode('c.md')).toBe((0o666 & ~process.umask()).toString(8));
    // Taken away as 0600 once, then written again and taken away as a new file's: it comes back as the newest.
    await fs.chmod(path.join(mem, 'a.md'), 0o644);
    await edit('Delete a', () => removeFileConfined(mem, 'a.md'));
    const [lastA] = await listHistory(mem, { dataDir, file: 'a.md', limit: 2 });
    expect(lastA!.summary).toBe('Delete a');
    const before = (await listHistory(mem, { dataDir, file: 'a.md' }))[1]!;
    await restoreFromHistory(mem, before.rev, { dataDir, file: 'a.md' });
    expect(await mode('a.md')).toBe('644');
  });

  it('records renames as renames', async () => {
    await edit('Create', () => writeFileAtomic(mem, 'a.md', 'some memory text\n'));
    const { entry } = await edit('Rename', () => renameConfined(mem, 'a.md', 'team/a.md'));
    expect(entry?.files).toEqual([{ path: 'team/a.md', status: 'renamed', from: 'a.md' }]);
    // A file's history follows it across the rename, and a rename is not a deletion.
    expect((await listHistory(mem, { dataDir, file: 'team/a.md' })).map((e) => e.summary)).toEqual(['Rename', 'Create']);
    expect(await deletedFiles(mem, { dataDir })).toEqual([]);
  });

  it('is not redirected by GIT_* variables in the environment', async () => {
    const decoy = path.join(tmp, 'decoy');
    const saved = { ...process.env };
    Object.assign(process.env, { GIT_DIR: decoy, GIT_WORK_TREE: decoy, GIT_INDEX_FILE: path.join(decoy, 'index'), GIT_AUTHOR_NAME: 'Mallory' });
    try {
      await write('a.md', 'a');
      expect(await recordSnapshot(mem, { source: 'manual', summary: 's', dataDir })).not.toBeNull();
    } finally {
      process.env = saved;
    }
    await expect(fs.access(decoy)).rejects.toThrow();
    const author = execFileSync('git', [`--git-dir=${shadowGitDir()}`, 'log', '-1', '--format=%an <%ae>'], { env: { PATH: process.env.PATH } });
    expect(author.toString().trim()).toBe('Memdir <memdir@localhost>');
  });

  it('ignores the userʼs global git config, editor and pager, and runs no hook', async () => {
    // A global config that would hide every memory, sign commits with a missing key and run a
    // hook after each commit; an editor and a pager that must never start.
    const home = path.join(tmp, 'home');
    const marker = path.join(tmp, 'hook-ran');
    const hooks = path.join(tmp, 'hooks');
    await fs.mkdir(hooks, { recursive: true });
    await fs.writeFile(path.join(hooks, 'post-commit'), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    await fs.writeFile(path.join(tmp, 'ignore-all'), '*\n');
    await fs.mkdir(path.join(home, '.config', 'git'), { recursive: true });
    const gitconfig = `[core]\n\texcludesFile = ${path.join(tmp, 'ignore-all')}\n\thooksPath = ${hooks}\n[commit]\n\tgpgSign = true\n[user]\n\tsigningKey = missing\n`;
    await fs.writeFile(path.join(home, '.gitconfig'), gitconfig);
    await fs.writeFile(path.join(home, '.config', 'git', 'config'), gitconfig);
    const saved = { ...process.env };
    Object.assign(process.env, {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      EDITOR: 'false',
      VISUAL: 'false',
      PAGER: 'false',
      GIT_PAGER: 'false',
    });
    try {
      await write('a.md', 'a');
      const entry = await recordSnapshot(mem, { source: 'manual', summary: 's', dataDir });
      expect(entry?.files).toEqual([{ path: 'a.md', status: 'added' }]);
      expect(await diffRevisions(mem, null, entry!.rev, { dataDir })).toContain('+a');
    } finally {
      process.env = saved;
    }
    await expect(fs.access(marker)).rejects.toThrow();
  });

  it('says git is missing, in words, when it cannot be found', async () => {
    const saved = { ...process.env };
    process.env.PATH = path.join(tmp, 'no-git-here');
    try {
      await write('a.md', 'a');
      const err = await historyError(recordSnapshot(mem, { source: 'manual', summary: 's', dataDir }));
      expect(err.reason).toBe('git-missing');
      expect(err.message).toBe('Memdir keeps history with git, and git was not found; install git and try again');
    } finally {
      process.env = saved;
    }
  });

  it('recovers from lock files left by a killed git', async () => {
    await write('a.md', 'a');
    await recordSnapshot(mem, { source: 'manual', summary: 'first', dataDir });
    const gitDir = shadowGitDir();
    await fs.writeFile(path.join(gitDir, 'index.lock'), '');
    await fs.writeFile(path.join(gitDir, 'refs', 'heads', 'main.lock'), '');
    await write('a.md', 'b');
    expect(await recordSnapshot(mem, { source: 'manual', summary: 'second', dataDir })).toMatchObject({ summary: 'second' });
    await expect(fs.access(path.join(gitDir, 'index.lock'))).rejects.toThrow();
    expect((await listHistory(mem, { dataDir })).map((e) => e.summary)).toEqual(['second', 'first']);
  });

  it('leaves a lock that a live git still holds (one a killed Memdir left running) until that git is done', async () => {
    await write('a.md', 'a');
    await recordSnapshot(mem, { source: 'manual', summary: 'first', dataDir });
    const gitDir = shadowGitDir();
    // The orphan is writing the index: its index.lock is fresh, and it renames it into place in a moment.
    await fs.copyFile(path.join(gitDir, 'index'), path.join(gitDir, 'index.lock'));
    const orphan = new Promise<void>((resolve, reject) =>
      setTimeout(() => fs.rename(path.join(gitDir, 'index.lock'), path.join(gitDir, 'index')).then(resolve, reject), 400),
    );
    await write('a.md', 'b');
    expect(await recordSnapshot(mem, { source: 'manual', summary: 'second', dataDir })).toMatchObject({ summary: 'second' });
    // Its lock was never taken from under it.
    await expect(orphan).resolves.toBeUndefined();
    expect(await readAtRevision(mem, 'HEAD', 'a.md', { dataDir })).toBe('b');
  });
});

describe('reading history', () => {
  let first: string;
  let second: string;

  beforeEach(async () => {
    first = (await edit('First', () => writeFileAtomic(mem, 'a.md', 'line one\n')))?.entry?.rev ?? '';
    second =
      (
        await edit('Second', async () => {
          await writeFileAtomic(mem, 'a.md', 'line two\n');
          await writeFileAtomic(mem, 'team/b.md', 'bee\n');
        })
      )?.entry?.rev ?? '';
  });

  it('is empty before anything was recorded', async () => {
    expect(await listHistory(path.join(tmp, 'other'), { dataDir })).toEqual([]);
    expect(await deletedFiles(path.join(tmp, 'other'), { dataDir })).toEqual([]);
  });

  it('lists newest first, by file, with a limit', async () => {
    expect((await listHistory(mem, { dataDir })).map((e) => e.rev)).toEqual([second, first]);
    expect((await listHistory(mem, { dataDir, limit: 1 })).map((e) => e.rev)).toEqual([second]);
    expect((await listHistory(mem, { dataDir, file: 'team/b.md' })).map((e) => e.files)).toEqual([[{ path: 'team/b.md', status: 'added' }]]);
  });

  it('diffs two points, or a point against its parent', async () => {
    const diff = await diffRevisions(mem, first, second, { dataDir });
    expect(diff).toContain('-line one');
    expect(diff).toContain('+line two');
    expect(diff).toContain('+++ b/team/b.md');
    expect(await diffRevisions(mem, first, second, { dataDir, file: 'team/b.md' })).not.toContain('a.md');
    expect(await diffRevisions(mem, null, first, { dataDir })).toContain('+line one');
    expect(await diffRevisions(mem, null, second, { dataDir, file: 'a.md' })).toContain('+line two');
  });

  it('reads a file as it was', async () => {
    expect(await readAtRevision(mem, first, 'a.md', { dataDir })).toBe('line one\n');
    expect(await readAtRevision(mem, second.slice(0, 8), 'team/b.md', { dataDir })).toBe('bee\n');
    expect(await readAtRevision(mem, first, 'team/b.md', { dataDir })).toBeNull();
    expect(await readAtRevision(mem, first, 'team', { dataDir })).toBeNull();
  });

  it.each([['-rf'], ['--output=/tmp/pwned'], ['HEAD:a.md'], ['HEAD..HEAD~1'], ['a b'], [''], ['0123456789abcdef0123456789abcdef01234567']])(
    'refuses the revision %j with a clear message',
    async (rev) => {
      const err = await historyError(readAtRevision(mem, rev, 'a.md', { dataDir }));
      expect(err.reason).toBe('bad-revision');
      expect(err.message).toMatch(/is not a point in (the )?history/);
      await historyError(restoreFromHistory(mem, rev, { dataDir }));
      await historyError(diffRevisions(mem, rev, second, { dataDir }));
    },
  );

  it.each([['../secret.md'], ['/etc/passwd'], ['a\0.md'], ['team\\b.md']])('refuses the file %j with a clear message', async (file) => {
    const err = await historyError(readAtRevision(mem, first, file, { dataDir }));
    expect(err.reason).toBe('bad-path');
    expect(err.message).toMatch(/^Refused to use /);
    await historyError(restoreFromHistory(mem, first, { dataDir, file }));
    await historyError(listHistory(mem, { dataDir, file }));
  });
});

describe('restoring', () => {
  it('restores one file as a new `restore` entry', async () => {
    const v1 = (await edit('v1', () => writeFileAtomic(mem, 'a.md', 'v1\n'))).entry?.rev ?? '';
    await edit('v2', async () => {
      await writeFileAtomic(mem, 'a.md', 'v2\n');
      await writeFileAtomic(mem, 'b.md', 'b\n');
    });
    const entry = await restoreFromHistory(mem, v1, { dataDir, file: 'a.md' });
    expect(entry).toMatchObject({ source: 'restore', files: [{ path: 'a.md', status: 'modified' }] });
    // In words a person reads in History and in an undo's refusal: the change it goes back to and when, not a commit id and an ISO time.
    expect(entry?.summary).toMatch(/^Restored a\.md as it was after “v1” \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
    expect(await read('a.md')).toBe('v1\n');
    expect(await read('b.md')).toBe('b\n');
    expect(await restoreFromHistory(mem, v1, { dataDir, file: 'a.md' })).toBeNull();
    const err = await historyError(restoreFromHistory(mem, v1, { dataDir, file: 'b.md' }));
    expect(err.message).toMatch(/^b\.md did not exist after “v1” \(/);
  });

  it('restores a whole snapshot: adds back, reverts and removes', async () => {
    const snapshot =
      (
        await edit('Base', async () => {
          await writeFileAtomic(mem, 'MEMORY.md', '- [A](a.md)\n- [B](team/b.md)\n');
          await writeFileAtomic(mem, 'a.md', 'a1\n');
          await writeFileAtomic(mem, 'team/b.md', 'b1\n');
        })
      ).entry?.rev ?? '';
    await edit('Changes', async () => {
      await writeFileAtomic(mem, 'a.md', 'a2\n');
      await removeFileConfined(mem, 'team/b.md');
      await writeFileAtomic(mem, 'c.md', 'c\n');
    });
    await write('d.md', 'by hand\n');
    const entry = await restoreFromHistory(mem, snapshot, { dataDir });
    expect(entry?.source).toBe('restore');
    expect(await read('a.md')).toBe('a1\n');
    expect(await read('team/b.md')).toBe('b1\n');
    await expect(read('c.md')).rejects.toThrow();
    await expect(read('d.md')).rejects.toThrow();
    // The hand-made file was recorded before the restore removed it, so it is recoverable too.
    expect((await deletedFiles(mem, { dataDir })).map((d) => d.path).sort()).toEqual(['c.md', 'd.md']);
    expect((await listHistory(mem, { dataDir })).map((e) => e.source)).toEqual(['restore', 'external', 'manual', 'manual']);
  });

  it('lists a deleted memory with where to restore it from, until it is back', async () => {
    await edit('Create', () => writeFileAtomic(mem, 'team/gone.md', 'precious\n'));
    const { entry: deletion } = await edit('Delete', () => removeFileConfined(mem, 'team/gone.md'));
    const [gone] = await deletedFiles(mem, { dataDir });
    expect(gone).toMatchObject({ path: 'team/gone.md', deletedIn: deletion?.rev, time: deletion?.time });
    expect(await readAtRevision(mem, gone?.rev ?? '', 'team/gone.md', { dataDir })).toBe('precious\n');
    await restoreFromHistory(mem, gone?.rev ?? '', { dataDir, file: 'team/gone.md' });
    expect(await read('team/gone.md')).toBe('precious\n');
    expect(await deletedFiles(mem, { dataDir })).toEqual([]);
  });

  it('refuses to restore through a symlink', async () => {
    const outside = path.join(tmp, 'outside.md');
    await fs.writeFile(outside, 'not a memory');
    const v1 = (await edit('v1', () => writeFileAtomic(mem, 'a.md', 'v1\n'))).entry?.rev ?? '';
    await fs.rm(path.join(mem, 'a.md'));
    await fs.symlink(outside, path.join(mem, 'a.md'));
    const err = await restoreFromHistory(mem, v1, { dataDir, file: 'a.md' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafePathError);
    expect(await fs.readFile(outside, 'utf8')).toBe('not a memory');
  });
});

describe('a change inside a change', () => {
  it('joins the change already running in the same folder without resolving the folder again (each memory of a bulk change did: ~7 readlinks each)', async () => {
    const resolved: string[] = [];
    const entries = await edit('Bulk', async () => {
      const seen = vi.spyOn(fs, 'realpath');
      try {
        for (const name of ['a.md', 'b.md', 'c.md']) {
          const inner = await transact(mem, { source: 'manual', summary: `Write ${name}`, dataDir }, async () => undefined);
          expect(inner.entry).toBeNull();
        }
        resolved.push(...seen.mock.calls.map((c) => String(c[0])));
      } finally {
        seen.mockRestore();
      }
      await writeFileAtomic(mem, 'a.md', 'a\n');
    });
    expect(resolved).toEqual([]);
    expect(entries).toMatchObject({ entry: { summary: 'Bulk' } });
  });
});

describe('merge entries (team sync)', () => {
  it('records a merge with both parents: mine first, the other version second; one restore undoes it', async () => {
    await write('team/a.md', 'base\nmine\n');
    await edit('Start', async () => undefined);
    const { entry } = await transact(
      mem,
      { source: 'sync', summary: 'Pull: merged team/a.md', dataDir, theirs: () => [{ path: 'team/a.md', content: 'base\ntheirs\n', from: 'Server version' }] },
      () => writeFileAtomic(mem, 'team/a.md', 'base\nmine\ntheirs\n'),
    );
    expect(await readAtRevision(mem, `${entry!.rev}^1`, 'team/a.md', { dataDir })).toBe('base\nmine\n');
    expect(await readAtRevision(mem, `${entry!.rev}^2`, 'team/a.md', { dataDir })).toBe('base\ntheirs\n');
    expect(await readAtRevision(mem, entry!.rev, 'team/a.md', { dataDir })).toBe('base\nmine\ntheirs\n');
    expect((await listHistory(mem, { dataDir, limit: 1 }))[0]).toMatchObject({ rev: entry!.rev, source: 'sync', summary: 'Pull: merged team/a.md' });
    // The side commit is not a step of the timeline's first-parent line.
    await restoreFromHistory(mem, `${entry!.rev}^1`, { file: 'team/a.md', dataDir });
    expect(await read('team/a.md')).toBe('base\nmine\n');
  });
});
