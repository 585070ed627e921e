// Review x2, F1: an Allow counts only in the space it was given in. A secret allowed on a personal
// sync alert ("safe to keep on your other machines") must not go to the team, and one allowed on a
// team alert must not go to the personal space. Real personal and team sync through a real server
// on loopback, the CLI as a person runs it, the Allow as the Alerts page sends it (AlertCenter.allow).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createPersonal, createTeam, issuePersonalToken, issueToken } from '../../server/admin.js';
import { startServer } from '../../server/server.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import type { TeamStore } from '../../server/store.js';
import { runCli } from '../../cli/main.js';
import { AlertCenter } from './alert-center.js';

// Passwords assembled at run time, so none sits in the repository.
const PERSONAL_PW = `postgres://app:${['Kq9L', 'm2Vx', '7Pz4'].join('')}@prod-db.internal:5432/app`;
const TEAM_PW = `postgres://ci:${['Zt4W', 'q8Rn', '2Lx6'].join('')}@ci-db.internal:5432/ci`;
const memory = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\ntype: reference\n---\n\n${body}\n`;

let root: string;
let store: TeamStore;
let server: Awaited<ReturnType<typeof startServer>>;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-allow-space-')));
  store = await openSqliteStore(path.join(root, 'server.sqlite'));
  server = await startServer({ store, port: 0, closeStore: false });
});
afterEach(async () => {
  await server.close();
  await store.close();
  await fs.rm(root, { recursive: true, force: true });
});

it('a secret allowed for personal sync still keeps a team file back, and one allowed for the team still keeps a private file back', async () => {
  await createPersonal(store, 'ann');
  const personalToken = (await issuePersonalToken(store, 'ann', 'laptop')).token;
  await createTeam(store, 'platform');
  const teamToken = (await issueToken(store, 'platform', 'ann')).token;
  const repo = path.join(root, 'src', 'app');
  await fs.mkdir(path.join(repo, '.git'), { recursive: true });
  await fs.writeFile(path.join(repo, '.git', 'config'), '[remote "origin"]\n\turl = git@github.com:ann/app.git\n');
  const home = path.join(root, 'claude');
  const memoryDir = path.join(home, 'projects', repo.replace(/[^A-Za-z0-9]/g, '-'), 'memory');
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
  const dataDir = path.join(root, 'data');
  const memdir = async (args: string[], stdin?: string) => {
    let out = '';
    let err = '';
    const code = await runCli([...args, '--home', home], {
      out: (t) => (out += t),
      err: (t) => (err += t),
      env: { MEMDIR_DATA_DIR: dataDir, HOME: root },
      cwd: root,
      ...(stdin !== undefined ? { stdin: Readable.from([stdin]) } : {}),
    });
    return { code, out, err };
  };
  const alerts = new AlertCenter(dataDir);
  const openSecretAlert = async (file: string) => {
    const alert = (await alerts.list()).alerts.find((a) => a.kind === 'secret' && a.status === 'open' && a.file === file);
    expect(alert, `an open secret alert for ${file}`).toBeDefined();
    return alert!;
  };
  const teamHolds = async () => (await fetch(`${server.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${teamToken}` } })).text();

  // Personal sync holds the private file back; Allow on its alert ("safe to keep on your other machines").
  await fs.writeFile(path.join(memoryDir, 'reference_db.md'), memory('prod db', PERSONAL_PW));
  const account = await memdir(
    ['personal', 'connect', '--server', server.url, '--token-stdin', '--passphrase-stdin', '--yes'],
    `${personalToken}\ncorrect horse battery staple 42\n`,
  );
  expect(account.code, account.err).toBe(0);
  await memdir(['personal', 'connect', '--project', repo, '--json']);
  const personalAlert = await openSecretAlert('reference_db.md');
  expect(personalAlert.message).toContain('allow it for personal sync');
  await alerts.allow(personalAlert.id, personalAlert.findings[0]!.fingerprint, 'ann', 'my own laptops');
  const personalSync = async () =>
    (
      JSON.parse((await memdir(['personal', 'sync', '--project', repo, '--json'])).out) as {
        projects: { push: { uploaded: string[] }; waiting: { key: string; reason: string }[] }[];
      }
    ).projects[0]!;
  const personal = await personalSync();
  expect(personal.push.uploaded).toContain('reference_db.md');

  // The same string lands in a team memory, and a team memory holds another one.
  await fs.writeFile(path.join(memoryDir, 'team', 'reference_runbook.md'), memory('runbook', `Restore with psql ${PERSONAL_PW}`));
  await fs.writeFile(path.join(memoryDir, 'team', 'reference_ci.md'), memory('ci db', TEAM_PW));
  const connect = await memdir(
    ['team', 'connect', '--project', repo, '--server', server.url, '--team', 'platform', '--token-stdin', '--allow-http', '--json'],
    teamToken,
  );
  const team = (JSON.parse(connect.out) as { sync: { push: { uploaded: string[] }; waiting: { key: string; reason: string }[] } }).sync;
  expect(team.push.uploaded).not.toContain('reference_runbook.md');
  expect(team.waiting).toContainEqual(expect.objectContaining({ key: 'reference_runbook.md', reason: 'secret' }));
  expect(await teamHolds()).not.toContain(PERSONAL_PW.split(':')[2]!.split('@')[0]);
  await openSecretAlert('team/reference_runbook.md');

  // The reverse: allowed for the team, it still keeps a private file back.
  const teamAlert = await openSecretAlert('team/reference_ci.md');
  expect(teamAlert.message).toContain('allow it for team sync');
  await alerts.allow(teamAlert.id, teamAlert.findings[0]!.fingerprint, 'ann', 'a shared CI database');
  const teamAgain = JSON.parse((await memdir(['team', 'sync', '--project', repo, '--json'])).out) as { push: { uploaded: string[] } };
  expect(teamAgain.push.uploaded).toEqual(['reference_ci.md']);
  await fs.writeFile(path.join(memoryDir, 'reference_ci_copy.md'), memory('ci db copy', TEAM_PW));
  const personalAgain = await personalSync();
  expect(personalAgain.push.uploaded).not.toContain('reference_ci_copy.md');
  expect(personalAgain.waiting).toContainEqual(expect.objectContaining({ key: 'reference_ci_copy.md', reason: 'secret' }));

  // The allowed list says where each was allowed.
  expect((await alerts.list()).allowed.map((a) => [a.file, a.space])).toEqual([
    ['team/reference_ci.md', 'team'],
    ['reference_db.md', 'personal'],
  ]);
}, 120_000);
