import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { groupProjects, type GroupCache } from './project-groups.js';
import { locateProject, locateTranscriptProject } from './projects.js';
import { isolatedGitEnv } from './run-git.js';
import { scanHome, scanProject } from './scan-home.js';

const gitEnv = { ...isolatedGitEnv(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, env: gitEnv, stdio: 'pipe' });
}

let tmp: string;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const SESSION = '0b6f1c1e-8a0e-4d2b-9b7e-2f4a5c6d7e80';

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-groups-')));
  home = path.join(tmp, 'claude-home');
  repo = path.join(tmp, 'repo');
  await fs.mkdir(path.join(repo, 'sub'), { recursive: true });
  git(repo, 'init', '-q');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'init');
  env = { HOME: path.join(tmp, 'me') };
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const folderOf = (p: string): string => path.join(home, 'projects', sanitizeDirName(p));
/** A session transcript as Claude Code writes it: in the folder of its launch directory. */
async function session(cwd: string, id = SESSION): Promise<string> {
  const folder = folderOf(cwd);
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, `${id}.jsonl`);
  await fs.writeFile(
    file,
    `${JSON.stringify({ type: 'user', uuid: 'u1', sessionId: id, cwd, version: '2.1.332', message: { role: 'user', content: 'hi' } })}\n`,
  );
  return file;
}
async function memory(
  key: string,
  files: Record<string, string> = { 'MEMORY.md': '- [A](a.md) — a\n', 'a.md': '---\nname: A\ndescription: a\ntype: user\n---\nA\n' },
): Promise<string> {
  const dir = path.join(folderOf(key), 'memory');
  await fs.mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(dir, name), text);
  return dir;
}

describe('groupProjects (R-LAYOUT: transcript folders under the key of their cwd)', () => {
  it('groups a subdirectory session under the repository it reads, and never lists its folder as a project', async () => {
    await memory(repo);
    await session(path.join(repo, 'sub'));
    const groups = await groupProjects(home);
    expect(groups.map((g) => g.dir)).toEqual([sanitizeDirName(repo)]);
    expect(groups[0]).toMatchObject({ key: repo, folderExists: true, readInstead: null });
    expect(groups[0]!.launchFolders).toMatchObject([
      {
        folder: sanitizeDirName(path.join(repo, 'sub')),
        folderPath: folderOf(path.join(repo, 'sub')),
        cwd: path.join(repo, 'sub'),
        transcripts: 1,
        explanation: { key: repo, via: 'repository' },
      },
    ]);
  });

  it('groups a linked worktree session under the main repository, even before its memory folder exists', async () => {
    const worktree = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', worktree);
    await session(worktree);
    await session(repo, 'a6f1c1e0-8a0e-4d2b-9b7e-2f4a5c6d7e81');
    const groups = await groupProjects(home);
    expect(groups.map((g) => g.dir)).toEqual([sanitizeDirName(repo)]);
    expect(groups[0]!.launchFolders.map((l) => l.cwd).sort()).toEqual([repo, worktree].sort());
    expect(groups[0]!.explanation?.via).toBe('repository');
  });

  it('lists a transcript folder that holds a memory of its own, and says which memory its sessions read', async () => {
    await memory(path.join(repo, 'sub'));
    await session(path.join(repo, 'sub'));
    const groups = await groupProjects(home);
    expect(groups.map((g) => [g.dir, g.readInstead, g.launchFolders.length])).toEqual(
      [
        [sanitizeDirName(repo), null, 1],
        [sanitizeDirName(path.join(repo, 'sub')), sanitizeDirName(repo), 0],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });

  it('keeps a memory folder without transcripts (key unknown) and a session whose launch directory was deleted', async () => {
    await fs.mkdir(path.join(home, 'projects', '-gone', 'memory'), { recursive: true });
    await session(path.join(repo, 'deleted-since'));
    const groups = await groupProjects(home);
    expect(groups.map((g) => [g.dir, g.key])).toEqual([
      ['-gone', null],
      [sanitizeDirName(repo), repo],
    ]);
  });

  it("keeps a folder whose transcripts record another folder's cwd (moved, copied) with its own folder, where Claude Code counts them", async () => {
    // Copied from the repository's folder on another machine: the cwd names repo, the folder is another one.
    const copied = path.join(home, 'projects', '-Users-alex-code-app');
    await fs.mkdir(copied, { recursive: true });
    await fs.copyFile(await session(repo), path.join(copied, `${SESSION}.jsonl`));
    const groups = await groupProjects(home);
    expect(groups.map((g) => [g.dir, g.launchFolders.map((l) => [l.folder, l.cwd])])).toEqual([
      ['-Users-alex-code-app', [['-Users-alex-code-app', null]]],
      [sanitizeDirName(repo), [[sanitizeDirName(repo), repo]]],
    ]);
  });

  it('sees a new launch folder on a rescan with a cache', async () => {
    const cache: GroupCache = new Map();
    await session(repo);
    expect((await groupProjects(home, cache))[0]!.launchFolders).toHaveLength(1);
    await session(path.join(repo, 'sub'));
    expect((await groupProjects(home, cache))[0]!.launchFolders).toHaveLength(2);
  });
});

describe('locating the project of a transcript folder', () => {
  it('gives extraction the canonical memory directory and the settings of the session launch directory', async () => {
    await fs.mkdir(path.join(repo, 'sub', '.claude'), { recursive: true });
    await fs.writeFile(path.join(repo, 'sub', '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryEnabled: false }));
    await session(repo, 'a6f1c1e0-8a0e-4d2b-9b7e-2f4a5c6d7e81');
    await session(path.join(repo, 'sub'));
    const sub = sanitizeDirName(path.join(repo, 'sub'));
    const fromSub = await locateTranscriptProject(home, sub, env);
    expect(fromSub).toMatchObject({ key: repo, dir: sanitizeDirName(repo), memoryDir: path.join(folderOf(repo), 'memory') });
    expect(fromSub.settings).toMatchObject({ autoMemoryEnabled: false, launchDir: path.join(repo, 'sub') });
    expect(fromSub.transcriptDirs.sort()).toEqual([folderOf(repo), folderOf(path.join(repo, 'sub'))].sort());
    const fromRoot = await locateTranscriptProject(home, sanitizeDirName(repo), env);
    expect(fromRoot.settings).toMatchObject({ autoMemoryEnabled: true, launchDir: repo });
    // A transcript folder's name given as a project is that project.
    expect((await locateProject(home, sub, env)).dir).toBe(sanitizeDirName(repo));
  });
});

describe('scan (R-LAYOUT, R-SETTINGS)', () => {
  it('lists one project per memory with every launch directory, its sessions counted, and the setting in force in each', async () => {
    await memory(repo);
    await fs.mkdir(path.join(repo, 'sub', '.claude'), { recursive: true });
    await fs.writeFile(path.join(repo, 'sub', '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryEnabled: false }));
    await session(repo, 'a6f1c1e0-8a0e-4d2b-9b7e-2f4a5c6d7e81');
    await session(repo, 'b6f1c1e0-8a0e-4d2b-9b7e-2f4a5c6d7e82');
    await session(path.join(repo, 'sub'));
    const scan = await scanHome(home, { env });
    expect(scan.projects.map((p) => p.dir)).toEqual([sanitizeDirName(repo)]);
    const [project] = scan.projects;
    expect(project).toMatchObject({ path: repo, transcripts: 3, readInstead: null, memories: [{ file: 'a.md' }] });
    expect(project!.settings).toMatchObject({ autoMemoryEnabled: true, launchDir: repo });
    expect(project!.launchDirs).toEqual([
      { cwd: repo, folder: sanitizeDirName(repo), transcripts: 2, autoMemoryEnabled: true, autoMemoryEnabledSource: 'default', autoMemoryEnabledFrom: null },
      {
        cwd: path.join(repo, 'sub'),
        folder: sanitizeDirName(path.join(repo, 'sub')),
        transcripts: 1,
        autoMemoryEnabled: false,
        autoMemoryEnabledSource: 'local',
        autoMemoryEnabledFrom: path.join(repo, 'sub', '.claude', 'settings.local.json'),
      },
    ]);
    // Asking for the transcript folder scans the project whose memory its sessions read.
    expect((await scanProject(home, sanitizeDirName(path.join(repo, 'sub')), { env })).dir).toBe(sanitizeDirName(repo));
  });
});
