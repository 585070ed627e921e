/**
 * A personal push whose answer was lost (the server SIGKILLed after it committed, before it
 * answered) comes back as this machine's own write, as with a team: the encrypting client kept
 * what it sent under the push id, so the replayed answer names its keys and hashes — no conflict
 * with oneself, and the newer edit is pushed. Another machine then decrypts the latest version.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPersonal, issuePersonalToken } from '../../server/admin.js';
import { startServer } from '../../server/server.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import { makeMachine } from './test-support/personal-fixture.js';

const KILLER = fileURLToPath(new URL('../../server/test-support/kill-after-commit.ts', import.meta.url));
const PASSPHRASE = 'lost answers are found again';
let root: string;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-personal-lost-')));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function startDyingServer(db: string): Promise<{ url: string; child: ChildProcess; exited: Promise<NodeJS.Signals | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', KILLER, db, '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      err += d;
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) resolve({ url: match[1]!, child, exited });
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${err}`)));
  });
}

it(
  "a personal push saved by a server killed before it answered is this machine's own write: no conflict, the newer edit goes up",
  { timeout: 60_000 },
  async () => {
    const db = path.join(root, 'sync.sqlite');
    const setup = openSqliteStore(db);
    await createPersonal(setup, 'alice');
    const tokens = { laptop: (await issuePersonalToken(setup, 'alice', 'laptop')).token, desktop: (await issuePersonalToken(setup, 'alice', 'desktop')).token };
    await setup.close();

    const dying = await startDyingServer(db);
    const laptop = await makeMachine(root, 'laptop', { url: dying.url, tokens }, 'src/app', 'git@github.com:alice/app.git');
    await laptop.connect(PASSPHRASE);
    await laptop.write('project_deploys.md', '# Deploys\n- freeze on Fridays\n');
    const sync = await laptop.enable();
    const lost = await sync.sync();
    expect(await dying.exited).toBe('SIGKILL');
    expect(lost.error).toMatchObject({ code: 'network', message: expect.stringContaining('may have saved it') });
    expect(lost.push.uploaded).toEqual([]);

    await laptop.write('project_deploys.md', '# Deploys\n- freeze on Fridays\n- two approvals\n');
    const store = openSqliteStore(db);
    const back = await startServer({ store, port: Number(new URL(dying.url).port), closeStore: true, limits: { rateLimit: { burst: 1000, perSecond: 1000 } } });
    try {
      const next = await sync.sync();
      expect(next.error).toBeNull();
      expect(next.push.confirmed).toEqual(['project_deploys.md']);
      expect(next.pull.conflicts).toEqual([]);
      expect(next.push.uploaded).toEqual(['project_deploys.md']);
      expect((await sync.inspect()).conflicts).toEqual([]);

      const desktop = await makeMachine(root, 'desktop', { url: back.url, tokens }, 'code/app', 'https://github.com/alice/app');
      await desktop.connect(PASSPHRASE);
      await (await desktop.enable()).sync();
      expect(await desktop.read('project_deploys.md')).toBe('# Deploys\n- freeze on Fridays\n- two approvals\n');
    } finally {
      await back.close();
    }
  },
);
