/**
 * The encrypting client's own state (`wire.json`) under the calls the sync engine makes at once:
 * a cycle sends its conditional pull while it asks for the result of a push whose answer was lost,
 * and both answers are learnt and saved. Each save must land; none may fail the sync.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../server/sqlite-store.js';
import { TeamClient } from '../team/team-client.js';
import { EncryptedSpaceClient } from './encrypted-client.js';
import { parseKeyRecord } from './personal-crypto.js';
import { personalConnections, unlockAccount } from './personal-account.js';
import { type Machine, type PersonalServer, makeMachine, startPersonalServer } from './test-support/personal-fixture.js';

const PASSPHRASE = 'four words of wire state';
let tmp = '';
let server: PersonalServer;
let laptop: Machine;
let desktop: Machine;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-wire-')));
  server = await startPersonalServer(openSqliteStore(path.join(tmp, 'sync.sqlite')), ['laptop', 'desktop']);
  laptop = await makeMachine(tmp, 'laptop', server, 'src/app', 'git@github.com:alice/app.git');
  desktop = await makeMachine(tmp, 'desktop', server, 'code/app', 'https://github.com/alice/app');
});

afterEach(async () => {
  await server.server.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

it('answers calls made at once, each saving what it learnt, without one save failing another', async () => {
  await laptop.connect(PASSPHRASE);
  const memories: Record<string, string> = {};
  for (let i = 0; i < 12; i++) memories[`project_note_${i}.md`] = `Note ${i}: keep it short.\n`;
  for (const [rel, content] of Object.entries(memories)) await laptop.write(rel, content);
  expect((await (await laptop.enable()).sync()).error).toBeNull();

  await desktop.connect(PASSPHRASE);
  await desktop.enable();
  const connection = (await personalConnections(desktop.dataDir).forMemoryDir(desktop.memoryDir))!;
  const { account, token, keys } = await unlockAccount(desktop.dataDir, desktop.credentials);
  const stateDir = path.join(tmp, 'desktop-wire');
  const client = new EncryptedSpaceClient({
    inner: new TeamClient({ server: server.url, team: connection.team, token, scope: 'personal' }),
    keys,
    project: connection.team,
    record: parseKeyRecord(account.keyRecord),
    stateDir,
  });

  // As a sync cycle does: pulls and a lost push's confirmation in flight together, each learning entries.
  const pulls = Array.from({ length: 6 }, () => client.entries());
  const answers = await Promise.allSettled([...pulls, client.commit('lost-push-never-sent', {}), client.entries()]);
  const failures = answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason));
  expect(failures).toEqual([]);
  const pulled = await pulls[0]!;
  expect(pulled.status).toBe(200);
  if (pulled.status === 200) expect(Object.fromEntries(Object.entries(pulled.body.entries).map(([k, v]) => [k, v.content]))).toEqual(memories);
  // What was learnt is on disk, whole: every entry's name pair, for the next push's bases.
  const saved = JSON.parse(await fs.readFile(path.join(stateDir, 'wire.json'), 'utf8')) as { keys: Record<string, { k: string }> };
  expect(
    Object.values(saved.keys)
      .map((p) => p.k)
      .sort(),
  ).toEqual(Object.keys(memories).sort());
});
