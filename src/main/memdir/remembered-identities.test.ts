import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProjectIdentity } from '../../shared/project-identity.js';
import { RememberedIdentities } from './project-identity.js';
import { scanHome } from './scan-home.js';
import { runWorkersTogether } from './test-support/spawn-worker.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const worker = path.join(here, 'test-support', 'identity-worker.ts');

let tmp: string;
let dataDir: string;
let file: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-remembered-')));
  dataDir = path.join(tmp, 'data');
  file = path.join(dataDir, 'identity', 'projects.json');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

function repository(remote: string, readAt: string, paths: string[] = []): ProjectIdentity {
  return { source: 'repository', remotes: [remote], rootCommits: [], paths, gitDir: null, readAt, note: null };
}

async function onDisk(): Promise<{ projects: Record<string, ProjectIdentity>; roots: Record<string, unknown> }> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as { projects: Record<string, ProjectIdentity>; roots: Record<string, unknown> };
}

describe('remembered identities saved by more than one store', () => {
  it('keeps what each of two stores opened on the same data dir remembered (projects and root walks)', async () => {
    const a = await RememberedIdentities.open(dataDir);
    const b = await RememberedIdentities.open(dataDir);
    a.remember('/h/projects/-shop', repository('github.com/acme/shop', '2026-01-01T00:00:00.000Z'));
    a.rememberRoots('common-a\0head-a', { roots: ['r1'], problem: null });
    b.remember('/h/projects/-cafe', repository('github.com/acme/cafe', '2026-01-01T00:00:00.000Z'));
    b.rememberRoots('common-b\0head-b', { roots: ['r2'], problem: null });
    await a.save();
    await b.save();
    const saved = await onDisk();
    expect(Object.keys(saved.projects).sort()).toEqual(['/h/projects/-cafe', '/h/projects/-shop']);
    expect(Object.keys(saved.roots).sort()).toEqual(['common-a\0head-a', 'common-b\0head-b']);
    // A store opened afterwards knows both.
    const c = await RememberedIdentities.open(dataDir);
    expect(c.get('/h/projects/-shop')?.remotes).toEqual(['github.com/acme/shop']);
    expect(c.get('/h/projects/-cafe')?.remotes).toEqual(['github.com/acme/cafe']);
  });

  it('keeps the newer read of the same project, whichever store saves last', async () => {
    const a = await RememberedIdentities.open(dataDir);
    const b = await RememberedIdentities.open(dataDir);
    a.remember('/h/projects/-shop', repository('github.com/acme/new-shop', '2026-02-01T00:00:00.000Z'));
    b.remember('/h/projects/-shop', repository('github.com/acme/old-shop', '2026-01-01T00:00:00.000Z'));
    await a.save();
    await b.save();
    expect((await onDisk()).projects['/h/projects/-shop']?.remotes).toEqual(['github.com/acme/new-shop']);
    // The store that lost learns what is on disk.
    expect(b.get('/h/projects/-shop')?.remotes).toEqual(['github.com/acme/new-shop']);
  });

  it('keeps a path a relink remembered when a scan saved a newer read of the same project', async () => {
    const relink = await RememberedIdentities.open(dataDir);
    const scan = await RememberedIdentities.open(dataDir);
    relink.remember('/h/projects/-shop', { source: 'paths', remotes: [], rootCommits: [], paths: ['/new/shop'], gitDir: null, readAt: null, note: null });
    scan.remember('/h/projects/-shop', repository('github.com/acme/shop', '2026-02-01T00:00:00.000Z', ['/old/shop']));
    await scan.save();
    await relink.save();
    expect((await onDisk()).projects['/h/projects/-shop']).toMatchObject({ remotes: ['github.com/acme/shop'], paths: ['/old/shop', '/new/shop'] });
  });

  it('keeps what two processes remembered at the same time', async () => {
    const codes = await runWorkersTogether(
      worker,
      ['shop', 'cafe'].map((name) => [dataDir, `/h/projects/-${name}`, `github.com/acme/${name}`]),
    );
    expect(codes).toEqual([0, 0]);
    expect(Object.keys((await onDisk()).projects).sort()).toEqual(['/h/projects/-cafe', '/h/projects/-shop']);
  });

  it('keeps a damaged file aside, under a dated name, and starts a fresh one', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, '{"version": 1, "projects": {"/h/projects/-shop": {"sour');
    const store = await RememberedIdentities.open(dataDir);
    expect(store.get('/h/projects/-shop')).toBeNull();
    store.remember('/h/projects/-cafe', repository('github.com/acme/cafe', '2026-01-01T00:00:00.000Z'));
    await store.save();
    expect(Object.keys((await onDisk()).projects)).toEqual(['/h/projects/-cafe']);
    const aside = (await fs.readdir(path.dirname(file))).filter((n) => n.startsWith('projects.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^projects\.json\.damaged-\d{8}T\d{6}Z$/);
    expect(await fs.readFile(path.join(path.dirname(file), aside[0]!), 'utf8')).toBe('{"version": 1, "projects": {"/h/projects/-shop": {"sour');
  });

  it('never renames a damaged file over one kept aside before in the same second', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    const now = new Date('2026-03-01T10:00:00.000Z');
    for (const text of ['first damage', 'second damage']) {
      await fs.writeFile(file, text);
      const store = await RememberedIdentities.open(dataDir);
      store.remember('/h/projects/-cafe', repository('github.com/acme/cafe', '2026-01-01T00:00:00.000Z'));
      await store.save(now);
    }
    const dir = path.dirname(file);
    expect(await fs.readFile(path.join(dir, 'projects.json.damaged-20260301T100000Z'), 'utf8')).toBe('first damage');
    expect(await fs.readFile(path.join(dir, 'projects.json.damaged-20260301T100000Z-2'), 'utf8')).toBe('second damage');
    expect(Object.keys((await onDisk()).projects)).toEqual(['/h/projects/-cafe']);
  });

  it('keeps an entry it cannot read (a later version of Memdir wrote it) when saving its own', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify({ version: 1, projects: { '/h/projects/-future': { source: 'something-new', x: 1 } }, roots: {} }));
    const store = await RememberedIdentities.open(dataDir);
    expect(store.get('/h/projects/-future')).toBeNull();
    store.remember('/h/projects/-cafe', repository('github.com/acme/cafe', '2026-01-01T00:00:00.000Z'));
    await store.save();
    expect((await onDisk()).projects['/h/projects/-future']).toEqual({ source: 'something-new', x: 1 });
  });
});

describe('remembered identities read once per change of the file', () => {
  async function writeExternally(projects: Record<string, ProjectIdentity>): Promise<void> {
    // Another process's save: a new file renamed into place.
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(`${file}.new`, JSON.stringify({ version: 1, projects, roots: {} }));
    await fs.rename(`${file}.new`, file);
  }
  // Seen from past the racy window: the file's facts can be trusted.
  const later = () => ({ now: new Date(Date.now() + 60_000) });

  it('does not read an unchanged file again, and hands out the same identities', async () => {
    await writeExternally({ '/h/projects/-shop': repository('github.com/acme/shop', '2026-01-01T00:00:00.000Z', ['/src/shop']) });
    const first = await RememberedIdentities.open(dataDir, later());
    const opens = vi.spyOn(fs, 'open');
    try {
      const again = await RememberedIdentities.open(dataDir, later());
      expect(opens).not.toHaveBeenCalled();
      expect(again.get('/h/projects/-shop')).toEqual(first.get('/h/projects/-shop'));
      expect(again.get('/h/projects/-shop')?.remotes).toEqual(['github.com/acme/shop']);
      // A store's own changes stay its own until saved: the next store still gets the file's.
      again.remember('/h/projects/-cafe', repository('github.com/acme/cafe', '2026-01-01T00:00:00.000Z'));
      expect((await RememberedIdentities.open(dataDir, later())).get('/h/projects/-cafe')).toBeNull();
      expect(opens).not.toHaveBeenCalled();
    } finally {
      opens.mockRestore();
    }
  });

  it('reads a file changed moments ago every time (its facts could repeat)', async () => {
    await writeExternally({ '/h/projects/-shop': repository('github.com/acme/shop', '2026-01-01T00:00:00.000Z') });
    await RememberedIdentities.open(dataDir);
    const opens = vi.spyOn(fs, 'open');
    try {
      await RememberedIdentities.open(dataDir);
      expect(opens).toHaveBeenCalledTimes(1);
    } finally {
      opens.mockRestore();
    }
  });

  it('sees a change another process made, at the next scan', async () => {
    // A project whose repository is gone: its identity is what was remembered.
    const home = path.join(tmp, 'home');
    const folder = path.join(home, 'projects', '-gone-shop');
    await fs.mkdir(path.join(folder, 'memory'), { recursive: true });
    await fs.writeFile(
      path.join(folder, '0b0e3f5c-1111-4111-8111-111111111111.jsonl'),
      `${JSON.stringify({ type: 'user', cwd: '/gone/shop', sessionId: 's', message: { role: 'user', content: 'hi' } })}\n`,
    );
    await writeExternally({ [folder]: repository('github.com/acme/shop', '2026-01-01T00:00:00.000Z', ['/gone/shop']) });
    await RememberedIdentities.open(dataDir, later());
    expect((await scanHome(home, { dataDir })).projects[0]!.identity).toMatchObject({ source: 'remembered', remotes: ['github.com/acme/shop'] });
    // Same size, another remote: a new file (another inode) is read.
    await writeExternally({ [folder]: repository('github.com/acme/shoq', '2026-01-01T00:00:00.000Z', ['/gone/shop']) });
    expect((await scanHome(home, { dataDir })).projects[0]!.identity).toMatchObject({ source: 'remembered', remotes: ['github.com/acme/shoq'] });
    // Edited in place, same size: its mtime and ctime moved.
    await RememberedIdentities.open(dataDir, later());
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, text.replace('acme/shoq', 'acme/shor'));
    expect((await scanHome(home, { dataDir })).projects[0]!.identity).toMatchObject({ source: 'remembered', remotes: ['github.com/acme/shor'] });
  });
});
