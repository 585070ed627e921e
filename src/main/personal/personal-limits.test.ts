/**
 * A personal sync reads the server's answers with the same ceilings as a team sync: the most
 * bytes one answer may hold and the most entries one pull may carry, as given to the sync. A
 * hostile or broken server must not make the app buffer an unbounded answer, whichever space it
 * serves; an answer over a limit is refused whole and nothing is written.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../server/sqlite-store.js';
import { openPersonalSync, personalConnections } from './personal-account.js';
import { makeMachine, startPersonalServer } from './test-support/personal-fixture.js';

const PASSPHRASE = 'limits hold in every space';
let root: string;
beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-personal-limits-')));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

it("a personal pull over the sync's response-size or entry-count limit is refused whole, nothing written", { timeout: 60_000 }, async () => {
  const store = openSqliteStore(path.join(root, 'sync.sqlite'));
  const server = await startPersonalServer(store, ['laptop', 'desktop']);
  try {
    const laptop = await makeMachine(root, 'laptop', server, 'src/app', 'git@github.com:alice/app.git');
    await laptop.connect(PASSPHRASE);
    await laptop.write('user_role.md', '# Role\nBackend engineer.\n');
    await laptop.write('project_deploys.md', '# Deploys\n- freeze on Fridays\n');
    await laptop.write('reference_runbook.md', `# Runbook\n${'- step, then check the dashboard\n'.repeat(600)}`);
    expect((await (await laptop.enable()).sync()).error).toBeNull();

    const desktop = await makeMachine(root, 'desktop', server, 'code/app', 'https://github.com/alice/app');
    await desktop.connect(PASSPHRASE);
    await desktop.enable();
    const connection = (await personalConnections(desktop.dataDir).forMemoryDir(desktop.memoryDir))!;
    const open = (limits: { maxPullEntries?: number; maxResponseBytes?: number }) =>
      openPersonalSync(connection, { dataDir: desktop.dataDir, credentials: desktop.credentials, alerts: desktop.alerts, ...limits });

    const tooMany = await (await open({ maxPullEntries: 2 })).sync();
    expect(tooMany.error).toMatchObject({ code: 'too-large', message: expect.stringContaining('sent 3 entries, more than the 2') });
    expect(await desktop.files()).toEqual({});

    const tooBig = await (await open({ maxResponseBytes: 16 * 1024 })).sync();
    expect(tooBig.error).toMatchObject({ code: 'too-large', message: expect.stringContaining('Memdir reads') });
    expect(await desktop.files()).toEqual({});

    // Within the limits, the same answer is taken.
    const fine = await (await open({})).sync();
    expect(fine.error).toBeNull();
    expect(Object.keys(await desktop.files()).sort()).toEqual(['project_deploys.md', 'reference_runbook.md', 'user_role.md']);
  } finally {
    await server.server.close();
    await store.close();
  }
});
