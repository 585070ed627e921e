/**
 * Issue 15 findings 2 and 9 on the team client: a file never leaves or enters the team folder
 * through a race or a hard link.
 *   - Check-then-use: `memory/team` is swapped for a link to another folder at the very moment
 *     the client opens a file in it (the test wraps the real `fs.promises.open` and swaps just
 *     before the call goes through, so the race is won every time). A pulled file must not land
 *     outside; a file read for upload must not be read from outside.
 *   - Hard links: a file in the team folder with more than one link (a link to ~/.ssh/id_ed25519
 *     made with `ln`) is never read or uploaded, and raises an alert.
 */
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTeam, issueToken } from '../../server/admin.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import type { TeamStore } from '../../server/store.js';
import { type TestClient, type TestServer, makeClient, serverEntries, startTestServer } from './test-support/team-fixture.js';

let root: string;
let store: TeamStore;
let server: TestServer;
let n = 0;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-confine-')));
  store = await openSqliteStore(path.join(root, 'team.sqlite'));
  server = await startTestServer(store, 1);
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await server.server.close();
  await store.close();
  await fs.rm(root, { recursive: true, force: true });
});

/** Two machines on a team of their own. */
async function ownPair(): Promise<{ a: TestClient; b: TestClient; token: string }> {
  n++;
  const team = `confine-${n}`;
  await createTeam(store, team);
  const at = { url: server.url, team };
  const t1 = (await issueToken(store, team, 'ann')).token;
  const t2 = (await issueToken(store, team, 'bob')).token;
  return { a: await makeClient(root, `a${n}`, at, t1), b: await makeClient(root, `b${n}`, at, t2), token: t1 };
}

/** Every file under `dir` with its content (nothing in it is expected to be binary). */
async function contents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await fs.readdir(dir)) out[name] = await fs.readFile(path.join(dir, name), 'utf8');
  return out;
}

/**
 * The first time the client opens something inside `teamDir` that `when` picks, move the real
 * team folder aside and put a link to `outside` in its place — between every check the client
 * made and the open itself.
 */
function swapTeamDirOnOpen(teamDir: string, outside: string, when: (flags: number) => boolean): { swapped: () => boolean } {
  const realOpen = fs.open.bind(fs);
  let done = false;
  vi.spyOn(fs, 'open').mockImplementation(async (file, flags, mode) => {
    const numeric = typeof flags === 'number' ? flags : fsConstants.O_RDONLY;
    if (!done && String(file).startsWith(teamDir + path.sep) && when(numeric)) {
      done = true;
      await fs.rename(teamDir, `${teamDir}-moved-away`);
      await fs.symlink(outside, teamDir);
    }
    return realOpen(file, flags, mode);
  });
  return { swapped: () => done };
}

describe('the team folder swapped for a link while a file in it is being opened', () => {
  it('a pulled file never lands outside the memory directory', async () => {
    const { a, b } = await ownPair();
    await a.write('deploys.md', 'Freeze on Fridays.\n');
    expect((await a.sync.sync()).push.uploaded).toEqual(['deploys.md']);

    const outside = path.join(root, `ssh-${n}`);
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'authorized_keys'), 'ssh-ed25519 AAAA me\n');
    const race = swapTeamDirOnOpen(b.teamDir, outside, (flags) => (flags & fsConstants.O_CREAT) !== 0);
    const report = await b.sync.sync();
    expect(race.swapped()).toBe(true);

    expect(await contents(outside)).toEqual({ authorized_keys: 'ssh-ed25519 AAAA me\n' });
    expect(report.pull.written).toEqual([]);
    expect(report.pull.refused).toEqual([expect.objectContaining({ key: 'deploys.md', reason: expect.stringMatching(/link|moved/) })]);
    const security = (await b.alerts.list()).alerts.filter((x) => x.kind === 'security' && x.status === 'open');
    expect(security.length).toBeGreaterThan(0);
  });

  it('a file read for upload is never read from outside the team folder', async () => {
    const { a, token } = await ownPair();
    await a.write('notes.md', 'our notes\n');
    const outside = path.join(root, `elsewhere-${n}`);
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'notes.md'), 'STOLEN from outside the memory directory\n');
    const race = swapTeamDirOnOpen(a.teamDir, outside, (flags) => (flags & (fsConstants.O_WRONLY | fsConstants.O_RDWR)) === 0);
    const report = await a.sync.sync();
    expect(race.swapped()).toBe(true);

    const entries = await serverEntries(server.url, `confine-${n}`, token);
    expect(Object.values(entries).join('')).not.toContain('STOLEN');
    expect(report.push.uploaded).toEqual([]);
  });
});

describe('hard links in the team folder', () => {
  it('a hard link to a file outside is never read or uploaded, and raises an alert', async () => {
    const { a, token } = await ownPair();
    const ssh = path.join(root, `home-${n}`, '.ssh');
    await fs.mkdir(ssh, { recursive: true });
    await fs.writeFile(path.join(ssh, 'id_ed25519'), 'PRIVATE KEY MATERIAL\n');
    await fs.link(path.join(ssh, 'id_ed25519'), path.join(a.teamDir, 'keys.md'));
    await a.write('fine.md', 'fine\n');

    const report = await a.sync.sync();
    expect(report.error).toBeNull();
    expect(report.push.uploaded).toEqual(['fine.md']);
    expect(report.waiting).toEqual([expect.objectContaining({ key: 'keys.md', reason: 'hardlink', detail: expect.stringContaining('hard link') })]);
    const entries = await serverEntries(server.url, `confine-${n}`, token);
    expect(Object.keys(entries)).toEqual(['fine.md']);
    const alert = (await a.alerts.list()).alerts.find((x) => x.file === 'team/keys.md');
    expect(alert).toMatchObject({ kind: 'security', status: 'open' });

    // The pull does not read it either (no conflict copy of the outside file in the data dir).
    const { b } = { b: await makeClient(root, `b-hard-${n}`, { url: server.url, team: `confine-${n}` }, token) };
    await b.write('keys.md', 'the team version\n');
    await b.sync.sync();
    const pulled = await a.sync.sync();
    expect(pulled.pull.conflicts).toEqual([]);
    expect(await fs.readFile(path.join(ssh, 'id_ed25519'), 'utf8')).toBe('PRIVATE KEY MATERIAL\n');
    const kept = await fs.readdir(path.join(a.dataDir, 'team', a.sync.connection.id, 'conflicts')).catch(() => []);
    expect(kept).toEqual([]);

    // Gone: the alert resolves.
    await fs.rm(path.join(a.teamDir, 'keys.md'));
    await a.sync.sync();
    expect((await a.alerts.list()).alerts.find((x) => x.file === 'team/keys.md')!.status).toBe('resolved');
  });
});
