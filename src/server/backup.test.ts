// `memdir server backup --to <file>` (backup.ts): a backup taken while a real server takes pushes
// restores every push answered before it began; PostgreSQL is refused with the pg_dump sentence.
import fs from 'node:fs/promises';
import fsSync from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../cli/main.js';
import { openStore } from './open-store.js';
import { startServer } from './server.js';
import { type ServerProcess, startServerProcess } from './test-support/server-process.js';
import { describeStores } from './test-support/stores.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MEMDIR = ['--import', 'tsx', path.resolve(here, '../cli/memdir.ts')];

async function memdir(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => (out += t), err: (t) => (err += t), env: { ...process.env, MEMDIR_SERVER_DB: '' }, cwd });
  return { code, out, err };
}

let server: ServerProcess | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describeStores('memdir server backup', (h) => {
  if (h.kind === 'postgres') {
    it('refuses a PostgreSQL store with one sentence naming pg_dump, and writes nothing', async () => {
      const db = await h.freshDb();
      const dir = await fs.mkdtemp(path.join(await fs.realpath((await import('node:os')).tmpdir()), 'memdir-backup-pg-'));
      const result = await memdir(['server', 'backup', '--db', db, '--to', 'b.sqlite'], dir);
      expect(result.code).not.toBe(0);
      expect(result.err).toMatch(/PostgreSQL team store is backed up with PostgreSQL's own tool while the servers run: pg_dump/);
      expect(result.err).not.toMatch(/\bat \/|Error:|StoreError/);
      expect(await fs.readdir(dir)).toEqual([]);
    });
    return;
  }

  it('a backup taken while a real server takes pushes restores every push answered before it began', async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'memdir-backup-')));
    const db = path.join(dir, 'team-sync.sqlite');
    server = await startServerProcess(MEMDIR, db, { rate: 100_000 });
    expect((await memdir(['server', 'admin', 'create-team', 'platform', '--db', db], dir)).code).toBe(0);
    const { token } = JSON.parse((await memdir(['server', 'admin', 'issue-token', 'platform', '--member', 'ann', '--db', db, '--json'], dir)).out) as {
      token: string;
    };
    const url = server.url;
    const push = async (i: number): Promise<void> => {
      const response = await fetch(`${url}/v2/teams/platform/entries`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          pushId: `push-backup-${String(i).padStart(8, '0')}`,
          entries: { [`m${i}.md`]: { content: `memory ${i}\n`.repeat(20), base: null } },
        }),
      });
      expect(response.status).toBe(200);
    };
    // Pushes go on before, during and after the backup, from two clients at once.
    const answered = new Set<number>();
    let next = 0;
    let stop = false;
    const pusher = async (): Promise<void> => {
      while (!stop) {
        const i = next++;
        await push(i);
        answered.add(i);
      }
    };
    const pushers = [pusher(), pusher()];
    while (answered.size < 150) await new Promise((r) => setTimeout(r, 10));
    const before = new Set(answered);
    const noFolder = await memdir(['server', 'backup', '--db', db, '--to', 'backups/team-sync-1.sqlite', '--json'], dir);
    expect(noFolder.code).not.toBe(0);
    expect(noFolder.err).toContain(`There is no folder ${path.join(dir, 'backups')} to write the backup into.`);
    await fs.mkdir(path.join(dir, 'backups'));
    const done = await memdir(['server', 'backup', '--db', db, '--to', 'backups/team-sync-1.sqlite', '--json'], dir);
    const afterBackup = answered.size;
    while (answered.size < afterBackup + 50) await new Promise((r) => setTimeout(r, 10));
    stop = true;
    await Promise.all(pushers);
    expect(done.code, done.err).toBe(0);
    const file = path.join(dir, 'backups', 'team-sync-1.sqlite');
    expect(JSON.parse(done.out)).toEqual({ to: file, bytes: fsSync.statSync(file).size });
    expect(fsSync.statSync(file).mode & 0o777).toBe(0o600);
    expect(await fs.readdir(path.join(dir, 'backups'))).toEqual(['team-sync-1.sqlite']);

    // Restore: a server on the backup serves every push answered before the backup began, and a
    // consistent snapshot — the team's version is that of its newest entry.
    await server.stop();
    server = null;
    const restored = await openStore(file, dir, { create: false });
    const running = await startServer({ store: restored, host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(`${running.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { version: number; entries: Record<string, { content: string }> };
      for (const i of before) expect(body.entries[`m${i}.md`]?.content, `push ${i}`).toBe(`memory ${i}\n`.repeat(20));
      expect(Object.keys(body.entries).length).toBe(body.version);
      expect(body.version).toBeGreaterThanOrEqual(before.size);
    } finally {
      await running.close();
      await restored.close();
    }

    // Never over an existing file, nor onto the store itself.
    const again = await memdir(['server', 'backup', '--db', db, '--to', 'backups/team-sync-1.sqlite'], dir);
    expect(again.code).not.toBe(0);
    expect(again.err).toMatch(/already exists, and a backup never overwrites a file/);
    const self = await memdir(['server', 'backup', '--db', db, '--to', 'team-sync.sqlite'], dir);
    expect(self.err).toMatch(/is the team store itself/);
  }, 60_000);
});
