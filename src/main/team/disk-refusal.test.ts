/**
 * A team pull the disk refuses (the machine's disk fills while it writes what the server holds):
 * the memory folder is taken back as it was (history's transact), and the sync must not then
 * believe it holds the server's version — else the old text left on disk is taken for a local edit
 * and pushed over the team's newer one. Once there is room, the next sync brings the newer one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../server/sqlite-store.js';
import type { TeamStore } from '../../server/store.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../core/test-support/small-disk.js';
import { makeClient, serverEntries, startTestServer, type TestServer } from './test-support/team-fixture.js';

let root: string;
let disk: SmallDisk;
let store: TeamStore;
let server: TestServer;

describe.skipIf(smallDiskUnavailable !== null)(`a team pull when the disk says no${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`, () => {
  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-disk-')));
    store = await openSqliteStore(path.join(root, 'team.sqlite'));
    server = await startTestServer(store, 2);
    disk = mountSmallDisk(path.join(root, 'small'), 4 * 1024 * 1024);
  });
  afterAll(async () => {
    await server?.server.close();
    await store?.close();
    disk?.unmount();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('a file the full disk refused is written by the next sync once there is room', async () => {
    const a = await makeClient(root, 'a1', server, server.tokens[0]!);
    const b = await makeClient(disk.dir, 'b1', server, server.tokens[1]!);
    await a.write('oncall.md', '# On call\nWeekly.\n');
    expect((await a.sync.sync()).error).toBeNull();
    expect((await b.sync.sync()).error).toBeNull();
    const newer = `# On call\n${randomBytes(20_000).toString('hex')}\n`;
    await a.write('oncall.md', newer);
    expect((await a.sync.sync()).error).toBeNull();

    disk.leaveFree(8 * 1024);
    const refused = await b.sync.sync();
    disk.free();
    // Refused at the file's write, or at History's record after it (taken back): either way said, and nothing changed.
    expect([refused.error?.message ?? '', ...refused.pull.refused.map((r) => r.reason)].join()).toMatch(/is full — free some space/);
    expect(await b.read('oncall.md')).toBe('# On call\nWeekly.\n');

    expect((await b.sync.sync()).error).toBeNull();
    expect(await b.read('oncall.md')).toBe(newer);
  });

  it("with only the data folder full, the pull is taken back and never pushes the old text over the team's newer one", async () => {
    const a = await makeClient(root, 'a2', server, server.tokens[0]!);
    // b2's data folder alone on the small disk: the file is written, History cannot keep it.
    const data = mountSmallDisk(path.join(root, 'b2', 'data'), 4 * 1024 * 1024);
    try {
      const b = await makeClient(root, 'b2', server, server.tokens[1]!);
      await a.write('deploy.md', '# Deploys\nFreeze on Fridays.\n');
      expect((await a.sync.sync()).error).toBeNull();
      expect((await b.sync.sync()).error).toBeNull();
      const newer = `# Deploys\n${randomBytes(40_000).toString('hex')}\n`;
      await a.write('deploy.md', newer);
      expect((await a.sync.sync()).error).toBeNull();

      data.leaveFree(16 * 1024);
      const refused = await b.sync.sync();
      data.free();
      expect(refused.error?.message).toMatch(/is full — free some space/);
      expect(await b.read('deploy.md')).toBe('# Deploys\nFreeze on Fridays.\n');

      expect((await b.sync.sync()).error).toBeNull();
      expect(await b.read('deploy.md')).toBe(newer);
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['deploy.md']).toBe(newer);
    } finally {
      data.unmount();
    }
  });

  it('with only the memory folder full, the refusal names the file once, in words', async () => {
    const a = await makeClient(root, 'a3', server, server.tokens[0]!);
    // b3's home alone on a small disk: the file's write is refused, History has room.
    const home = mountSmallDisk(path.join(root, 'b3', 'home'), 4 * 1024 * 1024);
    try {
      const b = await makeClient(root, 'b3', server, server.tokens[1]!);
      await a.write('pager.md', '# Pager\nRotates weekly.\n');
      expect((await a.sync.sync()).error).toBeNull();
      expect((await b.sync.sync()).error).toBeNull();
      const newer = `# Pager\n${randomBytes(40_000).toString('hex')}\n`;
      await a.write('pager.md', newer);
      expect((await a.sync.sync()).error).toBeNull();

      home.leaveFree(8 * 1024);
      const refused = await b.sync.sync();
      home.free();
      const reasons = refused.pull.refused.map((r) => r.reason);
      expect(reasons).toHaveLength(1);
      // "Could not write team/pager.md: the disk … is full — …", never "…: Cannot write team/pager.md: …".
      expect(reasons[0]).toMatch(/^Could not write team\/pager\.md: the disk holding .* is full — free some space and try again$/);
      expect(reasons[0]!.match(/pager\.md/g)).toHaveLength(1);
      expect(await b.read('pager.md')).toBe('# Pager\nRotates weekly.\n');

      expect((await b.sync.sync()).error).toBeNull();
      expect(await b.read('pager.md')).toBe(newer);
    } finally {
      home.unmount();
    }
  });

  it('a sync whose own state could not be saved (the data folder full) is shown as failed, also once the state is read again', async () => {
    const a = await makeClient(root, 'a4', server, server.tokens[0]!);
    const data = mountSmallDisk(path.join(root, 'b4', 'data'), 4 * 1024 * 1024);
    try {
      const b = await makeClient(root, 'b4', server, server.tokens[1]!);
      await a.write('rota.md', '# Rota\nMondays.\n');
      expect((await a.sync.sync()).error).toBeNull();
      expect((await b.sync.sync()).error).toBeNull();
      expect((await b.sync.inspect()).lastError).toBeNull();

      // Nothing new to pull: the sync itself works, only saving its state (a later "last pull") fails.
      data.leaveFree(4096);
      const failed = await b.sync.sync();
      expect(failed.error?.message).toMatch(/the disk is full/);
      // Before: the status said nothing (the failure was never kept where the app reads it).
      expect((await b.sync.inspect()).lastError?.message).toBe(failed.error!.message);
      data.free();
      // Written again by another process (the same state, a new file): this one reads it again, and the failure is still shown.
      const states = (await fs.readdir(path.join(root, 'b4', 'data'), { recursive: true })).filter((f) => path.basename(f) === 'state.json');
      expect(states).toHaveLength(1);
      const state = path.join(root, 'b4', 'data', states[0]!);
      await fs.writeFile(`${state}.other`, await fs.readFile(state));
      await fs.rename(`${state}.other`, state);
      expect((await b.sync.inspect()).lastError?.message).toBe(failed.error!.message);
      // The next sync that works ends it.
      expect((await b.sync.sync()).error).toBeNull();
      expect((await b.sync.inspect()).lastError).toBeNull();
    } finally {
      data.unmount();
    }
  });
});
