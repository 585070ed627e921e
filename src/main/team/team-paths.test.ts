import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashCache, RACY_MS } from './hash-cache.js';
import { realpathDeepestExisting } from '../core/memory-lock.js';
import { type TeamPathError, checkTeamDir, listTeamFiles, resolveTeamKey } from './team-paths.js';

let root: string;
beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-paths-')));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('realpathDeepestExisting', () => {
  it('resolves the deepest existing ancestor and appends the rest', async () => {
    await fs.mkdir(path.join(root, 'real', 'a'), { recursive: true });
    await fs.symlink(path.join(root, 'real'), path.join(root, 'alias'));
    expect(await realpathDeepestExisting(path.join(root, 'alias', 'a', 'not', 'yet.md'))).toBe(path.join(root, 'real', 'a', 'not', 'yet.md'));
    // Through a file (ENOTDIR) it still answers, one layer up.
    await fs.writeFile(path.join(root, 'real', 'file'), '');
    expect(await realpathDeepestExisting(path.join(root, 'alias', 'file', 'x.md'))).toBe(path.join(root, 'real', 'file', 'x.md'));
  });
});

describe('team paths', () => {
  it('refuses links anywhere on the way, keys that fail sanitizePathKey, and names every reason', async () => {
    const memoryDir = path.join(root, 'p1', 'memory');
    const teamDir = path.join(memoryDir, 'team');
    const outside = path.join(root, 'p1', 'outside');
    await fs.mkdir(teamDir, { recursive: true });
    await fs.mkdir(outside, { recursive: true });
    await fs.symlink(outside, path.join(teamDir, 'infra'));
    await fs.symlink(path.join(outside, 'x.md'), path.join(teamDir, 'dangling.md'));
    await fs.mkdir(path.join(teamDir, 'dir.md'));
    const team = await checkTeamDir(memoryDir);
    const reasons = async (key: string): Promise<string> =>
      resolveTeamKey(team, key).then(
        () => 'ok',
        (e: TeamPathError) => e.reason,
      );
    expect(await reasons('infra/dns.md')).toBe('symlink');
    expect(await reasons('dangling.md')).toBe('symlink');
    expect(await reasons('dir.md')).toBe('not-a-file');
    expect(await reasons('../x.md')).toBe('invalid-key');
    expect(await reasons('a/b/c.md')).toBe('invalid-key');
    expect(await reasons('new/file.md')).toBe('ok');
    const listing = listTeamFiles(team);
    expect(listing.problems.map((p) => [p.key, p.reason]).sort()).toEqual([
      ['dangling.md', 'symlink'],
      ['infra', 'symlink'],
    ]);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('accepts a memory dir reached through a link (a symlinked home), but not a team dir that is one', async () => {
    await fs.mkdir(path.join(root, 'p2', 'memory', 'team'), { recursive: true });
    await fs.symlink(path.join(root, 'p2'), path.join(root, 'p2-alias'));
    const team = await checkTeamDir(path.join(root, 'p2-alias', 'memory'));
    expect(team.teamReal).toBe(path.join(root, 'p2', 'memory', 'team'));
    expect((await resolveTeamKey(team, 'a.md')).abs).toBe(path.join(root, 'p2-alias', 'memory', 'team', 'a.md'));
    await fs.mkdir(path.join(root, 'p3', 'memory'), { recursive: true });
    await fs.symlink(path.join(root, 'p2', 'memory', 'team'), path.join(root, 'p3', 'memory', 'team'));
    await expect(checkTeamDir(path.join(root, 'p3', 'memory'))).rejects.toThrow(/symbolic link/);
  });
});

describe('the hash cache', () => {
  it('trusts a hash only while the stat facts match and the file is not racily clean', () => {
    const cache = HashCache.inMemory();
    const now = 1_000_000_000;
    const facts = { size: 3, mtimeMs: now - 10 * RACY_MS, ctimeMs: now - 10 * RACY_MS, ino: 7 };
    const sha = cache.hash('a.md', facts, Buffer.from('abc'), now);
    expect(cache.bytesHashed).toBe(3);
    expect(cache.lookup('a.md', facts)).toBe(sha);
    expect(cache.lookup('a.md', { ...facts, size: 4 })).toBeNull();
    expect(cache.lookup('a.md', { ...facts, ino: 8 })).toBeNull();
    expect(cache.lookup('a.md', { ...facts, mtimeMs: facts.mtimeMs + 1 })).toBeNull();
    // Written in the same instant it was hashed: it could change again unnoticed, so it is not trusted.
    const racy = { ...facts, mtimeMs: now - 10, ctimeMs: now - 10 };
    cache.hash('b.md', racy, Buffer.from('abc'), now);
    expect(cache.lookup('b.md', racy)).toBeNull();
  });
});
