import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { isolatedGitEnv } from './run-git.js';
import { CWD_SCAN_MAX_BYTES, listProjectDirs, locateProject, ProjectNotFoundError, readLaunchDir } from './projects.js';

const memoryDirOf = (home: string, dir: string): string => path.join(home, 'projects', dir, 'memory');

// The claude-code-log samples (MIT, vendored with their licence). Read-only: tests copy them
// into a tmp project.
const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/transcripts/claude-code-log');
const FIXTURE_FILES = ['edge_cases.jsonl', 'representative_messages.jsonl', 'session_b.jsonl', 'todowrite_examples.jsonl'];

const gitEnv = { ...isolatedGitEnv(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: gitEnv,
    stdio: 'pipe',
  });
}
async function repoWithCommit(dir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'init');
  return dir;
}

let tmp: string;
let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-projects-')));
  home = path.join(tmp, 'claude-home');
  env = { HOME: path.join(tmp, 'me') };
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
async function transcript(projectDir: string, name: string, text: string, mtime?: Date): Promise<string> {
  await fs.mkdir(projectDir, { recursive: true });
  const file = path.join(projectDir, name);
  await fs.writeFile(file, text);
  if (mtime) await fs.utimes(file, mtime, mtime);
  return file;
}

describe('listProjectDirs', () => {
  it('is empty for a missing home and for a home without projects/', async () => {
    expect(await listProjectDirs(path.join(tmp, 'nope'))).toEqual([]);
    await fs.mkdir(home);
    expect(await listProjectDirs(home)).toEqual([]);
  });

  it('is empty when projects/ is a file', async () => {
    await fs.mkdir(home);
    await fs.writeFile(path.join(home, 'projects'), 'x');
    expect(await listProjectDirs(home)).toEqual([]);
  });

  it('lists directories sorted, skipping files, dot-entries and symlinks', async () => {
    const root = path.join(home, 'projects');
    for (const name of ['-b', '-a-x', '-A', '.hidden']) await fs.mkdir(path.join(root, name), { recursive: true });
    await fs.writeFile(path.join(root, 'notes.txt'), 'x');
    await fs.mkdir(path.join(tmp, 'outside'));
    await fs.symlink(path.join(tmp, 'outside'), path.join(root, '-link'));
    expect(await listProjectDirs(home)).toEqual(['-A', '-a-x', '-b']);
  });
});

describe('readLaunchDir', () => {
  it('is null for a missing directory and for one without transcripts', async () => {
    expect(await readLaunchDir(path.join(tmp, 'missing'))).toBeNull();
    const dir = path.join(home, 'projects', '-x');
    await fs.mkdir(path.join(dir, 'memory'), { recursive: true });
    await fs.writeFile(path.join(dir, 'memory', 'MEMORY.md'), '# x\n');
    await fs.writeFile(path.join(dir, 'notes.json'), line({ cwd: '/x' }));
    await fs.mkdir(path.join(dir, 'dir.jsonl'));
    expect(await readLaunchDir(dir)).toBeNull();
  });

  it('reads the cwd of the claude-code-log fixtures', async () => {
    const dir = path.join(home, 'projects', '-tmp');
    await fs.mkdir(dir, { recursive: true });
    for (const name of FIXTURE_FILES) await fs.copyFile(path.join(FIXTURES, name), path.join(dir, name));
    expect(await readLaunchDir(dir)).toBe('/tmp');
  });

  it('returns the cwd as found, whatever the folder is called', async () => {
    const dir = path.join(home, 'projects', '-somewhere-else');
    await fs.mkdir(dir, { recursive: true });
    await fs.copyFile(path.join(FIXTURES, 'session_b.jsonl'), path.join(dir, 'session_b.jsonl'));
    expect(await readLaunchDir(dir)).toBe('/tmp');
  });

  it('skips garbage and lines without a cwd before the first one', async () => {
    const dir = path.join(home, 'projects', '-home-me-app');
    await transcript(
      dir,
      's.jsonl',
      [
        'not json at all\n',
        '{"type":"summary","summary":"x", "cwd"\n',
        line({ type: 'summary', summary: 'mentions "cwd" in text' }),
        line({ type: 'file-history-snapshot', cwd: 42 }),
        line(['cwd', '/array']),
        '\n',
        line({ type: 'user', cwd: '/home/me/app', message: { role: 'user', content: 'hi' } }),
      ].join(''),
    );
    expect(await readLaunchDir(dir)).toBe('/home/me/app');
  });

  it('tolerates a half-written last line', async () => {
    const dir = path.join(home, 'projects', '-home-me-app');
    await transcript(dir, 'a.jsonl', line({ type: 'user', cwd: '/home/me/app' }) + '{"type":"assistant","cwd":"/home/me/ap');
    expect(await readLaunchDir(dir)).toBe('/home/me/app');

    const only = path.join(home, 'projects', '-only-half');
    await transcript(only, 'b.jsonl', '{"type":"user","cwd":"/only/ha');
    expect(await readLaunchDir(only)).toBeNull();
  });

  it('reads a complete last line without a trailing newline', async () => {
    const dir = path.join(home, 'projects', '-p');
    await transcript(dir, 'a.jsonl', JSON.stringify({ type: 'user', cwd: '/p' }));
    expect(await readLaunchDir(dir)).toBe('/p');
  });

  it('looks at the newest transcript first', async () => {
    const dir = path.join(home, 'projects', '-x');
    await transcript(dir, 'old.jsonl', line({ cwd: '/old' }), new Date('2024-01-01'));
    await transcript(dir, 'new.jsonl', line({ cwd: '/new' }), new Date('2025-01-01'));
    expect(await readLaunchDir(dir)).toBe('/new');
  });

  it('falls back to an older transcript when the newest has no cwd', async () => {
    const dir = path.join(home, 'projects', '-x');
    await transcript(dir, 'old.jsonl', line({ cwd: '/old' }), new Date('2024-01-01'));
    await transcript(dir, 'new.jsonl', line({ type: 'summary' }) + 'garbage\n', new Date('2025-01-01'));
    expect(await readLaunchDir(dir)).toBe('/old');
  });

  it('never reads past the byte cap of a file', async () => {
    const dir = path.join(home, 'projects', '-big');
    const filler = line({ type: 'summary', summary: 'x'.repeat(1000) });
    const count = Math.ceil((CWD_SCAN_MAX_BYTES * 2) / filler.length);
    await transcript(dir, 'huge.jsonl', filler.repeat(count) + line({ cwd: '/big' }), new Date('2025-01-01'));
    expect(await readLaunchDir(dir)).toBeNull();
    // One huge line with no newline is cut off too.
    await fs.writeFile(path.join(dir, 'huge.jsonl'), `{"cwd":"/big","pad":"${'y'.repeat(CWD_SCAN_MAX_BYTES)}"}\n`);
    expect(await readLaunchDir(dir)).toBeNull();
    await transcript(dir, 'older.jsonl', line({ cwd: '/big' }), new Date('2024-01-01'));
    expect(await readLaunchDir(dir)).toBe('/big');
  });
});

describe('locateProject', () => {
  it('locates a repository subdirectory by its canonical key, before Claude Code has run there', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'work', 'my_app'));
    await fs.mkdir(path.join(repo, 'src'));
    const loc = await locateProject(home, path.join(repo, 'src'), env);
    const dir = sanitizeDirName(repo);
    expect(loc).toMatchObject({
      key: repo,
      keySource: 'path',
      dir,
      projectDir: path.join(home, 'projects', dir),
      memoryDir: memoryDirOf(home, dir),
      existing: false,
    });
    expect(loc.memoryDir).toBe(path.join(home, 'projects', dir, 'memory'));
    expect(loc.settings.autoMemoryDirectorySource).toBe('default');

    await fs.mkdir(path.join(home, 'projects', dir), { recursive: true });
    expect((await locateProject(home, path.join(repo, 'src'), env)).existing).toBe(true);
  });

  it('accepts a relative path and a ~/ path', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'me', 'code'));
    expect((await locateProject(home, path.relative(process.cwd(), repo), env)).key).toBe(repo);
    expect((await locateProject(home, '~/code', env)).key).toBe(repo);
  });

  it('locates a linked worktree at the main repository', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'main'));
    const wt = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', wt);
    expect((await locateProject(home, wt, env)).dir).toBe(sanitizeDirName(repo));
  });

  it('prefers an existing long-name directory written by another runtime', async () => {
    const deep = path.join(tmp, ...Array.from({ length: 30 }, (_, i) => `segment-${i}`));
    await fs.mkdir(deep, { recursive: true });
    const computed = sanitizeDirName(deep);
    expect(computed.length).toBeGreaterThan(200);
    const existing = `${computed.slice(0, 200)}-bunhash`;
    await fs.mkdir(path.join(home, 'projects', existing), { recursive: true });
    const loc = await locateProject(home, deep, env);
    expect([loc.dir, loc.existing]).toEqual([existing, true]);
  });

  it('falls back to the computed long name when none exists', async () => {
    const deep = path.join(tmp, ...Array.from({ length: 30 }, (_, i) => `segment-${i}`));
    await fs.mkdir(deep, { recursive: true });
    const loc = await locateProject(home, deep, env);
    expect([loc.dir, loc.existing]).toEqual([sanitizeDirName(deep), false]);
  });

  it('locates an existing project directory name, with its real path from transcripts', async () => {
    const dir = path.join(home, 'projects', '-tmp');
    await fs.mkdir(dir, { recursive: true });
    for (const name of FIXTURE_FILES) await fs.copyFile(path.join(FIXTURES, name), path.join(dir, name));
    const loc = await locateProject(home, '-tmp', env);
    expect(loc).toMatchObject({ key: '/tmp', keySource: 'transcripts', dir: '-tmp', existing: true, memoryDir: memoryDirOf(home, '-tmp') });
  });

  it('locates a project directory name without transcripts', async () => {
    await fs.mkdir(path.join(home, 'projects', '-gone-project', 'memory'), { recursive: true });
    const loc = await locateProject(home, '-gone-project', env);
    expect(loc).toMatchObject({ key: '-gone-project', keySource: 'dir-name', dir: '-gone-project', existing: true });
  });

  it('keys a directory name whose transcripts ran in a worktree to the main repository', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'main'));
    const wt = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', wt);
    const dir = sanitizeDirName(repo);
    await transcript(path.join(home, 'projects', dir), 's.jsonl', line({ cwd: path.join(wt) }));
    const loc = await locateProject(home, dir, env);
    expect([loc.key, loc.keySource]).toEqual([repo, 'transcripts']);
  });

  it('applies local settings of the project found from transcripts', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'app'));
    const moved = path.join(tmp, 'moved-memory');
    await fs.mkdir(path.join(repo, '.claude'));
    await fs.writeFile(path.join(repo, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryDirectory: moved }));
    const dir = sanitizeDirName(repo);
    await transcript(path.join(home, 'projects', dir), 's.jsonl', line({ cwd: path.join(repo, 'src') }));
    const loc = await locateProject(home, dir, env);
    expect(loc.key).toBe(repo);
    expect([loc.memoryDir, loc.settings.autoMemoryDirectorySource]).toEqual([moved, 'local']);
  });

  it("moves the memory directory by the repository's shared settings over your own, as Claude Code 2.1.332 does", async () => {
    const repo = await repoWithCommit(path.join(tmp, 'app'));
    await fs.mkdir(path.join(repo, '.claude'));
    await fs.writeFile(path.join(repo, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: '~/shared' }));
    let loc = await locateProject(home, repo, env);
    expect([loc.memoryDir, loc.settings.autoMemoryDirectorySource]).toEqual([path.join(tmp, 'me', 'shared'), 'project']);
    expect(loc.settings.ignored).toEqual([]);

    await fs.mkdir(home, { recursive: true });
    await fs.writeFile(path.join(home, 'settings.json'), JSON.stringify({ autoMemoryDirectory: '~/memories' }));
    loc = await locateProject(home, repo, env);
    expect(loc.memoryDir).toBe(path.join(tmp, 'me', 'shared'));
    await fs.rm(path.join(repo, '.claude', 'settings.json'));
    loc = await locateProject(home, repo, env);
    expect(loc.memoryDir).toBe(path.join(tmp, 'me', 'memories'));
  });

  it('throws a ProjectNotFoundError for a target that is neither', async () => {
    const error = await locateProject(home, 'no-such-project', env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProjectNotFoundError);
    expect((error as Error).message).toBe(
      `There is no project "no-such-project" under ${path.join(home, 'projects')}, and no directory of that name: give a project directory, or one of the names \`memdir scan\` lists.`,
    );
    await expect(locateProject(home, path.join(tmp, 'missing', 'dir'), env)).rejects.toBeInstanceOf(ProjectNotFoundError);
  });

  it('says so when the target is a file', async () => {
    const file = path.join(tmp, 'file.txt');
    await fs.writeFile(file, 'x');
    await expect(locateProject(home, file, env)).rejects.toThrow(/is not a directory/);
  });

  it('does not take "." or ".." for project names', async () => {
    await fs.mkdir(path.join(home, 'projects'), { recursive: true });
    const loc = await locateProject(home, '.', env);
    expect(loc.keySource).toBe('path');
  });
});
