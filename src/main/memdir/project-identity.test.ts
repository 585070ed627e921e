import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { explainCanonicalKey } from './canonical-key.js';
import { GitObjectReader } from './git-objects.js';
import { findRootCommits, gitDirsOf, parseGitConfig, readRepoConfig, resolveHead } from './git-repo-files.js';
import { groupProjects } from './project-groups.js';
import { type IdentityMemos, identifyProject, readRepositoryFacts } from './project-identity.js';
import { scanHome } from './scan-home.js';
import { git } from './test-support/test-git.js';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-identity-')));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function repo(name: string, commits = 3): Promise<string> {
  const dir = path.join(tmp, name);
  await fs.mkdir(dir, { recursive: true });
  git(dir, 'init', '-q');
  for (let i = 0; i < commits; i++) {
    await fs.writeFile(path.join(dir, 'f.txt'), `line ${i}\n`);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `commit ${i}`);
  }
  return dir;
}

async function facts(dir: string) {
  return readRepositoryFacts(await explainCanonicalKey(dir));
}

describe('repository facts from files only', () => {
  it('finds the root commit git finds, from loose objects', async () => {
    const dir = await repo('app');
    git(dir, 'remote', 'add', 'origin', 'git@github.com:Acme/App.git');
    const found = await facts(dir);
    expect(found?.rootCommits).toEqual([git(dir, 'rev-list', '--max-parents=0', 'HEAD')]);
    expect(found?.remotes).toEqual(['github.com/acme/app']);
    expect(found?.note).toBeNull();
  });

  it('reads packed objects, deltified commits and packed refs after an aggressive gc, and every root of merged histories', async () => {
    const dir = await repo('big', 1);
    // A second, unrelated history merged in: two roots.
    git(dir, 'checkout', '-q', '--orphan', 'other');
    await fs.writeFile(path.join(dir, 'g.txt'), 'other\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'other root');
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--allow-unrelated-histories', '-m', 'merge other', 'other');
    // Commits with long, nearly equal messages so the packer stores some as deltas of others.
    const body = 'A long commit message that repeats itself so that git deltifies it. '.repeat(40);
    for (let i = 0; i < 40; i++) {
      await fs.writeFile(path.join(dir, 'f.txt'), `v${i}\n`);
      git(dir, 'commit', '-q', '-am', `${body}${i}`);
    }
    git(dir, 'gc', '-q', '--aggressive', '--prune=now');
    const verify = git(
      dir,
      'verify-pack',
      '-v',
      ...(await fs.readdir(path.join(dir, '.git/objects/pack'))).filter((n) => n.endsWith('.idx')).map((n) => path.join(dir, '.git/objects/pack', n)),
    );
    expect(verify.split('\n').some((l) => / commit .* \d+ [0-9a-f]{40}$/.test(l))).toBe(true);
    await expect(fs.access(path.join(dir, '.git/refs/heads/main'))).rejects.toThrow();
    const expected = git(dir, 'rev-list', '--max-parents=0', 'HEAD').split('\n').sort();
    expect(expected).toHaveLength(2);
    expect((await facts(dir))?.rootCommits).toEqual(expected);
  });

  it('walks through the commit-graph (a single file, or split layers) and the commits newer than it', async () => {
    const dir = await repo('graphed', 5);
    git(dir, 'checkout', '-q', '--orphan', 'side');
    await fs.writeFile(path.join(dir, 's.txt'), 'side\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'side root');
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--allow-unrelated-histories', '-m', 'merge side', 'side');
    // An octopus merge: extra parents live in the graph's EDGE chunk.
    for (const b of ['o1', 'o2']) {
      git(dir, 'checkout', '-q', '-b', b, 'main~1');
      git(dir, 'commit', '-q', '--allow-empty', '-m', b);
    }
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '-m', 'octopus', 'o1', 'o2');
    git(dir, 'commit-graph', 'write', '--reachable');
    const expected = git(dir, 'rev-list', '--max-parents=0', 'HEAD').split('\n').sort();
    const reads = vi.spyOn(GitObjectReader.prototype, 'read');
    expect((await facts(dir))?.rootCommits).toEqual(expected);
    // Every commit was in the graph: not one object read.
    expect(reads).not.toHaveBeenCalled();
    await fs.writeFile(path.join(dir, 'f.txt'), 'after the graph\n');
    git(dir, 'commit', '-q', '-am', 'newer than the graph');
    git(dir, 'commit-graph', 'write', '--reachable', '--split');
    await fs.writeFile(path.join(dir, 'f.txt'), 'after the split\n');
    git(dir, 'commit', '-q', '-am', 'newer still');
    await expect(fs.access(path.join(dir, '.git/objects/info/commit-graphs/commit-graph-chain'))).resolves.toBeUndefined();
    reads.mockClear();
    expect((await facts(dir))?.rootCommits).toEqual(expected);
    // Only the one commit newer than the split layers was read as an object.
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockRestore();
    // A damaged graph is not trusted: the objects are read instead.
    await fs.rm(path.join(dir, '.git/objects/info/commit-graphs'), { recursive: true });
    git(dir, 'commit-graph', 'write', '--reachable');
    const graph = path.join(dir, '.git/objects/info/commit-graph');
    const bytes = await fs.readFile(graph);
    await fs.chmod(graph, 0o644);
    await fs.writeFile(graph, bytes.subarray(0, 40));
    expect((await facts(dir))?.rootCommits).toEqual(expected);
  });

  it('reads a linked worktree through its common directory, and a bare repository', async () => {
    const dir = await repo('main-repo');
    git(dir, 'remote', 'add', 'upstream', 'https://example.com/x/y.git');
    const wt = path.join(tmp, 'wt');
    git(dir, 'worktree', 'add', '-q', '-b', 'feature', wt);
    await fs.writeFile(path.join(wt, 'f.txt'), 'feature\n');
    git(wt, 'commit', '-q', '-am', 'on the worktree');
    const explanation = await explainCanonicalKey(wt);
    const dirs = gitDirsOf(explanation)!;
    expect(dirs.commonDir).toBe(path.join(dir, '.git'));
    // HEAD is the worktree's own (its branch), objects the common dir's.
    expect(resolveHead(dirs, 20)).toBe(git(wt, 'rev-parse', 'HEAD'));
    expect((await facts(wt))?.remotes).toEqual(['example.com/x/y']);
    const bare = path.join(tmp, 'bare.git');
    git(tmp, 'clone', '-q', '--bare', dir, bare);
    expect((await facts(bare))?.rootCommits).toEqual([git(dir, 'rev-list', '--max-parents=0', 'HEAD')]);
  });

  it('says what it cannot know: no remote, no commit, a shallow clone, a history over the bound', async () => {
    const empty = path.join(tmp, 'empty');
    await fs.mkdir(empty);
    git(empty, 'init', '-q');
    expect((await facts(empty))?.note).toBe('No remote; no commit yet.');
    const source = await repo('source', 4);
    git(tmp, 'clone', '-q', '--depth', '1', `file://${source}`, 'shallow');
    const shallow = await facts(path.join(tmp, 'shallow'));
    expect(shallow?.rootCommits).toEqual([]);
    expect(shallow?.note).toMatch(/shallow clone/);
    const dirs = gitDirsOf(await explainCanonicalKey(source))!;
    expect(findRootCommits(dirs, resolveHead(dirs, 20)!, 20, 2).problem).toMatch(/longer than 2 commits/);
    expect(await facts(path.join(tmp))).toBeNull();
  });

  it('reads a SHA-256 repository', async () => {
    const dir = path.join(tmp, 'sha256');
    await fs.mkdir(dir);
    git(dir, 'init', '-q', '--object-format=sha256');
    await fs.writeFile(path.join(dir, 'a'), 'a\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
    git(dir, 'gc', '-q');
    expect(readRepoConfig(gitDirsOf(await explainCanonicalKey(dir))!).hashBytes).toBe(32);
    expect((await facts(dir))?.rootCommits).toEqual([git(dir, 'rev-list', '--max-parents=0', 'HEAD')]);
  });
});

describe('parseGitConfig', () => {
  it('reads quoted, commented, continued and old-style entries, and insteadOf rewrites', async () => {
    const entries = parseGitConfig(
      '[core]\n\tbare = false\n[remote "origin"] # note\n\turl = "git@host:a/b.git" ; comment\n[Remote.Fork]\n  URL = https://host/c/\\\nd\n[url "https://mirror.example/"]\n\tinsteadOf = gh:\n',
    );
    expect(entries.filter((e) => e.section === 'remote').map((e) => [e.subsection, e.key, e.value])).toEqual([
      ['origin', 'url', 'git@host:a/b.git'],
      ['fork', 'url', 'https://host/c/d'],
    ]);
    const dir = await repo('rewrite', 1);
    git(dir, 'config', 'url.https://mirror.example/.insteadOf', 'gh:');
    git(dir, 'remote', 'add', 'origin', 'gh:acme/app');
    git(dir, 'remote', 'add', 'local', '../elsewhere.git');
    expect((await facts(dir))?.remotes).toEqual([`file://${path.join(tmp, 'elsewhere')}`, 'mirror.example/acme/app']);
  });
});

describe('identity in a scan', () => {
  it('is read from the repository, remembered in the data dir, and still known after the repository moved away', async () => {
    const project = await repo('shop');
    git(project, 'remote', 'add', 'origin', 'https://github.com/acme/shop.git');
    const root = git(project, 'rev-list', '--max-parents=0', 'HEAD');
    const home = path.join(tmp, 'home');
    const dataDir = path.join(tmp, 'data');
    const folder = path.join(home, 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
    await fs.mkdir(path.join(folder, 'memory'), { recursive: true });
    await fs.writeFile(path.join(folder, 'memory', 'MEMORY.md'), '- [A](a.md) — a\n');
    await fs.writeFile(
      path.join(folder, '0b0e3f5c-1111-4111-8111-111111111111.jsonl'),
      `${JSON.stringify({ type: 'user', cwd: project, sessionId: 's', message: { role: 'user', content: 'hi' } })}\n`,
    );
    const first = (await scanHome(home, { dataDir })).projects[0]!;
    expect(first.identity).toMatchObject({ source: 'repository', remotes: ['github.com/acme/shop'], rootCommits: [root], paths: [project] });
    // The walk to the root is kept by HEAD: the next scan (another process) does not walk again.
    const reads = vi.spyOn(GitObjectReader.prototype, 'read');
    expect((await scanHome(home, { dataDir })).projects[0]!.identity.rootCommits).toEqual([root]);
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    await fs.rename(project, path.join(tmp, 'moved'));
    const after = (await scanHome(home, { dataDir })).projects[0]!;
    expect(after.identity).toMatchObject({ source: 'remembered', remotes: ['github.com/acme/shop'], rootCommits: [root], paths: [project] });
    // Without the data dir, only the path is left.
    expect((await scanHome(home)).projects[0]!.identity).toMatchObject({ source: 'paths', remotes: [], paths: [project] });
  });

  it('is read again only when a repository file it was read from changed: a remote, a checkout, packed refs; never from files changed moments ago', async () => {
    const project = await repo('cafe', 2);
    git(project, 'remote', 'add', 'origin', 'https://github.com/acme/cafe.git');
    const home = path.join(tmp, 'home');
    const folder = path.join(home, 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
    await fs.mkdir(path.join(folder, 'memory'), { recursive: true });
    await fs.writeFile(
      path.join(folder, '0b0e3f5c-1111-4111-8111-111111111111.jsonl'),
      `${JSON.stringify({ type: 'user', cwd: project, sessionId: 's', message: { role: 'user', content: 'hi' } })}\n`,
    );
    const memos: IdentityMemos = new Map();
    // The repository was written moments ago: nothing is kept, every scan reads it.
    const identify = async (now = new Date()) => identifyProject(home, (await groupProjects(home))[0]!, { memos, now });
    const fresh = await identify();
    expect(await identify()).not.toBe(fresh);
    expect(await identify()).toEqual({ ...fresh, readAt: expect.any(String) });
    // Seen from later on (past the racy window), an unchanged repository is not read again: the same identity comes back.
    const later = () => new Date(Date.now() + 60_000);
    const kept = await identify(later());
    expect(await identify(later())).toBe(kept);
    expect(kept).toMatchObject({ source: 'repository', remotes: ['github.com/acme/cafe'], rootCommits: [git(project, 'rev-list', '--max-parents=0', 'HEAD')] });

    git(project, 'remote', 'add', 'upstream', 'https://example.com/up/cafe.git');
    expect((await identify(later())).remotes).toEqual(['example.com/up/cafe', 'github.com/acme/cafe']);
    git(project, 'checkout', '-q', '--orphan', 'other');
    git(project, 'commit', '-q', '--allow-empty', '-m', 'a new root');
    expect((await identify(later())).rootCommits).toEqual([git(project, 'rev-parse', 'HEAD')]);
    git(project, 'pack-refs', '--all');
    expect((await identify(later())).rootCommits).toEqual([git(project, 'rev-parse', 'HEAD')]);
    git(project, 'checkout', '-q', 'main');
    expect((await identify(later())).rootCommits).toEqual([git(project, 'rev-list', '--max-parents=0', 'HEAD')]);
  });
});
