// Review x2, F6: the fingerprint printed for a secret (alerts, `team sync --json`, `secrets scan
// --json`, refusals, allowed.json) is a keyed hash of this install, so a weak password is not found
// again from it by hashing a dictionary; fingerprints printed before (a plain sha256 prefix) keep
// working. The real CLI, a real team server on loopback, the real export.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../cli/main.js';
import { createTeam, issueToken } from '../../server/admin.js';
import { startServer } from '../../server/server.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import { recordExternalChanges } from '../history/index.js';
import { scanText, textHolds, traceOf } from './index.js';
import { addMemories, addSession, makeRepo, topic } from '../relink/test-support/moved-project.js';

// A weak password, assembled at run time: in any dictionary of leaked passwords.
const WEAK = ['Summer', '2024', '!'].join('');
const plain = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 16);
const memory = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\ntype: reference\n---\n\n${body}\n`;

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-fingerprint-')));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function memdir(args: string[], dataDir: string, stdin?: string) {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MEMDIR_DATA_DIR: dataDir, HOME: root },
    cwd: root,
    ...(stdin !== undefined ? { stdin: Readable.from([stdin]) } : {}),
  });
  return { code, out, err };
}

it("prints a weak password's fingerprint keyed by this install: not its sha256, the same each run, another install's differs", async () => {
  await fs.writeFile(path.join(root, 'reference_db.md'), memory('db', `DB_PASSWORD=${WEAK}`));
  const dataDir = path.join(root, 'data');
  const scan = async (dir: string) => {
    const run = await memdir(['secrets', 'scan', path.join(root, 'reference_db.md'), '--json'], dir);
    expect(run.code, run.err).toBe(1);
    const [finding] = (JSON.parse(run.out) as { findings: { fingerprint: string }[] }).findings;
    return finding!.fingerprint;
  };
  const first = await scan(dataDir);
  expect(first).toMatch(/^[0-9a-f]{16}$/);
  expect(first).not.toBe(plain(WEAK));
  expect(await scan(dataDir)).toBe(first);
  // The key: in the data dir, readable by this user only.
  const key = await fs.stat(path.join(dataDir, 'secrets', 'fingerprint.key'));
  expect(key.mode & 0o777).toBe(0o600);
  expect(await fs.readdir(path.join(dataDir, 'secrets'))).toEqual(['fingerprint.key']);
  // Another install has another key, so the fingerprint of the same password differs there.
  expect(await scan(path.join(root, 'other-data'))).not.toBe(first);
});

it('memdir hook --data-dir D works in D: the fingerprint key (and all else the run keeps) follows it, not $MEMDIR_DATA_DIR', async () => {
  const env = path.join(root, 'env-data');
  for (const [given, argv] of [
    [path.join(root, 'hook-data'), ['hook', 'SessionStart']],
    [path.join(root, 'hooks-data'), ['hooks', 'status', '--home', path.join(root, 'claude')]],
  ] as const) {
    await memdir([...argv, '--data-dir', given], env, '{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}');
    // What the run fingerprints next (a hook that scans, a refusal) keys it with the data dir it was given.
    const [finding] = await scanText(`DB_PASSWORD=${WEAK}\n`);
    expect(finding?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect((await fs.stat(path.join(given, 'secrets', 'fingerprint.key'))).mode & 0o777).toBe(0o600);
    await expect(fs.access(path.join(env, 'secrets'))).rejects.toThrow();
  }
});

it('makes no key for a clean scan; without a usable key a secret is still found and masked, and the scan says why', async () => {
  await fs.writeFile(path.join(root, 'clean.md'), memory('clean', 'Nothing to hide.'));
  await fs.writeFile(path.join(root, 'reference_db.md'), memory('db', `DB_PASSWORD=${WEAK}`));
  const dataDir = path.join(root, 'data');
  const clean = await memdir(['secrets', 'scan', path.join(root, 'clean.md'), '--json'], dataDir);
  expect(clean.code, clean.err).toBe(0);
  await expect(fs.access(path.join(dataDir, 'secrets'))).rejects.toThrow();
  // A key file Memdir did not write (cut short, edited by hand): never guessed around.
  await fs.mkdir(path.join(dataDir, 'secrets'), { recursive: true });
  await fs.writeFile(path.join(dataDir, 'secrets', 'fingerprint.key'), 'not a key\n');
  const scan = await memdir(['secrets', 'scan', path.join(root, 'reference_db.md'), '--json'], dataDir);
  expect(scan.code).toBe(1);
  const { findings } = JSON.parse(scan.out) as { findings: { rule: string; title: string; match: string; fingerprint: string }[] };
  expect(findings).toEqual([
    expect.objectContaining({ rule: 'memdir/generic-assignment', match: '*'.repeat(WEAK.length), fingerprint: '' }),
    expect.objectContaining({ rule: 'memdir/scanner-error', title: expect.stringContaining('no fingerprint key') }),
  ]);
  expect(scan.out).not.toContain(WEAK);
});

it('an allowed.json record written with the old plain fingerprint still lets that secret go to the team', async () => {
  const store = await openSqliteStore(path.join(root, 'server.sqlite'));
  const server = await startServer({ store, port: 0, closeStore: false });
  try {
    await createTeam(store, 'platform');
    const token = (await issueToken(store, 'platform', 'ann')).token;
    const repo = path.join(root, 'src', 'app');
    await fs.mkdir(path.join(repo, '.git'), { recursive: true });
    await fs.writeFile(path.join(repo, '.git', 'config'), '[remote "origin"]\n\turl = git@github.com:ann/app.git\n');
    const home = path.join(root, 'claude');
    const memoryDir = path.join(home, 'projects', repo.replace(/[^A-Za-z0-9]/g, '-'), 'memory');
    await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
    const password = ['Kq9L', 'm2Vx', '7Pz4'].join('');
    await fs.writeFile(path.join(memoryDir, 'team', 'reference_ci.md'), memory('ci db', `postgres://ci:${password}@ci-db.internal:5432/ci`));
    await fs.writeFile(path.join(memoryDir, 'team', 'reference_other.md'), memory('other db', `postgres://ci:${password}x@ci-db.internal:5432/ci`));
    // As an earlier Memdir recorded an Allow on the Alerts page: the fingerprint was sha256's first 16 hex.
    const dataDir = path.join(root, 'data');
    await fs.mkdir(path.join(dataDir, 'alerts'), { recursive: true });
    const record = {
      memoryDir,
      space: 'team',
      fingerprint: plain(password),
      rule: 'database-connection-string/PostgreSQLConnection',
      file: 'team/reference_ci.md',
      match: 'Kq**********',
      who: 'ann',
      why: 'a shared CI database',
      at: '2026-12-01T10:00:00.000Z',
    };
    await fs.writeFile(path.join(dataDir, 'alerts', 'allowed.json'), JSON.stringify({ version: 1, allowed: [record] }));
    const connect = await memdir(
      ['team', 'connect', '--project', repo, '--server', server.url, '--team', 'platform', '--token-stdin', '--allow-http', '--json', '--home', home],
      dataDir,
      token,
    );
    // Exit 1: a file is held back (below).
    expect(connect.code, connect.err).toBe(1);
    const sync = (JSON.parse(connect.out) as { sync: { push: { uploaded: string[] }; waiting: { key: string; reason: string }[] } }).sync;
    expect(sync.push.uploaded).toEqual(['reference_ci.md']);
    // Only that secret: another password is still held back.
    expect(sync.waiting).toEqual([expect.objectContaining({ key: 'reference_other.md', reason: 'secret' })]);
  } finally {
    await server.close();
    await store.close();
  }
}, 60_000);

it('memdir export --allow with the old plain fingerprint still packs that secret', async () => {
  const ghp = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Ab9Cd0Ef2Gh4'.slice(0, 36)}`;
  const home = path.join(root, 'home');
  const dataDir = path.join(root, 'data');
  const dir = path.join(root, 'shop');
  await makeRepo(dir);
  await addSession(home, dir);
  const memoryDir = await addMemories(home, dir, {
    'MEMORY.md': '- [Deploy](reference_deploy.md) — how to deploy\n',
    'reference_deploy.md': topic('Deploy', 'reference', `Deploy with ${ghp}`),
  });
  await recordExternalChanges(memoryDir, { dataDir });
  const refused = await memdir(['export', dir, path.join(root, 'a.tar'), '--without-history', '--home', home], dataDir);
  expect(refused.code).toBe(1);
  expect(refused.out).not.toContain(plain(ghp));
  const allowed = await memdir(['export', dir, path.join(root, 'a.tar'), '--without-history', '--allow', plain(ghp), '--home', home], dataDir);
  expect(allowed.code, allowed.out + allowed.err).toBe(0);
});

// Review s44 nit 9: a trace with no head (only an empty secret's) looked at every
// offset of the text, and the empty stretch's fingerprint matched at the first: any text "held" it.
it('a trace of nothing is held by no text; a real one is told held or gone', () => {
  const token = ['ghp_', 'R8mQ2vX9', 'kL4pT7wN', 'c3bY6hJ1', 'fD5sG0aZ', 'e2Uq'].join('');
  expect(textHolds('x'.repeat(10_000), traceOf(''))).toBe(false);
  expect(textHolds('', traceOf(''))).toBe(false);
  expect(textHolds(`token = ${token}\n`, traceOf(token))).toBe(true);
  expect(textHolds(`token = ${token.slice(0, -1)}X\n`, traceOf(token))).toBe(false);
});
