/**
 * Personal sync end to end (issue 18, item 5): two machines of one user, each with the project
 * checked out at a different path, sync their private memory through a real server on loopback —
 * SQLite and PostgreSQL — and the server's database never holds a memory's name, its content or
 * the project's identity in plain text.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { resetPersonal } from '../../server/admin.js';
import { type StoreHarness, describeStores } from '../../server/test-support/stores.js';
import type { TeamStore } from '../../server/store.js';
import { renameMemory } from '../memdir/index.js';
import { PersonalSyncError, readAccount } from './personal-account.js';
import { type Machine, type PersonalServer, makeMachine, startPersonalServer } from './test-support/personal-fixture.js';

const PASSPHRASE = 'correct horse battery staple';
// A fake AWS pair, the shape the secret scanner's preset recognises (assembled, so this file holds no credential).
const AWS_KEY = ['AKIA', 'Z7QW', 'PLMN', 'TRXV', 'K4D2'].join('');
const AWS_SECRET = ['wJalrXUt', 'nFEMI/K7', 'MDENG/bP', 'xRfiCYzQ', 'h3s8Lk2N'].join('');

/** Everything the database holds, as text: the SQLite files byte for byte (WAL included), or every row of every PostgreSQL table. */
async function dumpDatabase(h: StoreHarness, db: string): Promise<string> {
  if (h.kind === 'sqlite') {
    const parts: Buffer[] = [];
    // The -shm file is SQLite's shared-memory index (read marks, no data): readers change it too.
    for (const suffix of ['', '-wal', '-journal']) parts.push(await fs.readFile(`${db}${suffix}`).catch(() => Buffer.alloc(0)));
    return Buffer.concat(parts).toString('latin1');
  }
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const tables = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    const rows: string[] = [];
    for (const { tablename } of tables.rows) {
      const result = await client.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM ${tablename} t`);
      rows.push(...result.rows.map((r) => r.row));
    }
    return rows.join('\n');
  } finally {
    await client.end();
  }
}

const MEMORIES: Record<string, string> = {
  'MEMORY.md': '- [Role](user_role.md) — who I am\n- [Q1 retro](retros/q1_retro.md) — what we learned\n',
  'user_role.md':
    '---\nname: Role\ndescription: Backend engineer who prefers Postgres\ntype: user\n---\nI maintain the billing service.\nI prefer terse answers.\nI review on Fridays.\n',
  'retros/q1_retro.md': '---\nname: Q1 retro\ndescription: Lessons of the first quarter\ntype: project\n---\nShip smaller pull requests.\n',
};

describeStores('personal sync across two machines (issue 18)', (h) => {
  let tmp = '';
  let db = '';
  let store: TeamStore;
  let server: PersonalServer;
  let laptop: Machine;
  let desktop: Machine;

  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-personal-'));
    db = await h.freshDb();
    store = await h.open(db);
    server = await startPersonalServer(store, ['laptop', 'desktop', 'spare']);
    // One repository, two checkouts at unrelated paths, its remote written two ways.
    laptop = await makeMachine(tmp, 'laptop', server, 'home/ann/src/billing', 'git@github.com:Acme/Billing.git');
    desktop = await makeMachine(tmp, 'desktop', server, 'work/checkouts/billing-svc', 'https://github.com/acme/billing');
  }, 60_000);

  afterEach(async () => {
    await server.server.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('syncs the same memory under different paths, merges edits on both, keeps conflicts, and the server sees only ciphertext', async () => {
    const first = await laptop.connect(PASSPHRASE);
    expect(first.created).toBe(true);
    for (const [rel, content] of Object.entries(MEMORIES)) await laptop.write(rel, content);
    await laptop.write('team/shared_runbook.md', 'Team memory goes through team sync, never the personal space.\n');
    // Folders Claude Code never offers as memories stay on the machine too.
    await laptop.write('logs/2026-12-01.md', 'Daily log of the laptop session.\n');
    const laptopSync = await laptop.enable();
    const up = await laptopSync.sync();
    expect(up.error).toBeNull();
    expect(up.push.uploaded.sort()).toEqual(Object.keys(MEMORIES).sort());
    // Counted like a team sync's: the key check, the pull and the push went to the server.
    expect(up.push.requests).toBeGreaterThanOrEqual(3);

    const second = await desktop.connect(PASSPHRASE);
    expect(second.created).toBe(false);
    expect(second.account.keyId).toBe(first.account.keyId);
    const desktopSync = await desktop.enable();
    const down = await desktopSync.sync();
    expect(down.error).toBeNull();
    expect(down.pull.written.sort()).toEqual(Object.keys(MEMORIES).sort());
    expect(await desktop.files()).toEqual(MEMORIES);
    // Nothing changed on either side: one conditional pull answered 304, nothing read, hashed or sent.
    const idle = await desktopSync.sync();
    expect(idle.pull.status).toBe(304);
    expect(idle.push.uploaded).toEqual([]);
    expect(idle.push.attempts).toBe(0);

    // Edits on both machines: different lines merge, the same line is a conflict with both versions kept.
    await laptop.write('user_role.md', MEMORIES['user_role.md']!.replace('I maintain the billing service.', 'I maintain the billing and invoicing services.'));
    await laptop.write(
      'retros/q1_retro.md',
      MEMORIES['retros/q1_retro.md']!.replace('Ship smaller pull requests.', 'Ship smaller pull requests, at most 300 lines.'),
    );
    await desktop.write('user_role.md', MEMORIES['user_role.md']!.replace('I review on Fridays.', 'I review on Thursdays.'));
    await desktop.write(
      'retros/q1_retro.md',
      MEMORIES['retros/q1_retro.md']!.replace('Ship smaller pull requests.', 'Ship smaller pull requests behind flags.'),
    );
    await desktop.write('feedback_no_orm.md', '---\nname: No ORM\ndescription: Write SQL by hand\ntype: feedback\n---\nNever add an ORM here.\n');
    expect((await laptopSync.sync()).push.uploaded.sort()).toEqual(['retros/q1_retro.md', 'user_role.md']);
    const merge = await desktopSync.sync();
    expect(merge.error).toBeNull();
    expect(merge.pull.merged).toContain('user_role.md');
    expect(merge.pull.conflicts).toEqual(['retros/q1_retro.md']);
    const role = await desktop.read('user_role.md');
    expect(role).toContain('billing and invoicing services');
    expect(role).toContain('I review on Thursdays.');
    const [conflict] = (await desktopSync.inspect()).conflicts;
    const detail = await desktopSync.conflictDetail(conflict!.id);
    expect(detail.mine).toContain('behind flags');
    expect(detail.theirs).toContain('at most 300 lines');
    expect(detail.conflict.serverUpdatedBy).toBe('laptop');
    // The laptop gets the merge and the desktop's new memory.
    expect((await laptopSync.sync()).error).toBeNull();
    expect(await laptop.read('user_role.md')).toBe(role);
    expect(await laptop.read('feedback_no_orm.md')).toContain('Never add an ORM here.');
    // Deletions never propagate: a memory deleted on the laptop comes back at its next sync.
    await fs.rm(path.join(laptop.memoryDir, 'feedback_no_orm.md'));
    await laptopSync.sync();
    expect(await laptop.read('feedback_no_orm.md')).toContain('Never add an ORM here.');
    expect(await desktop.read('team/shared_runbook.md')).toBeNull();
    expect(await desktop.read('logs/2026-12-01.md')).toBeNull();
    // A secret never leaves the machine, encrypted or not.
    await desktop.write(
      'reference_deploy.md',
      `---\nname: Deploy\ndescription: d\ntype: reference\n---\nAWS_ACCESS_KEY_ID=${AWS_KEY}\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\n`,
    );
    const held = await desktopSync.sync();
    expect(held.waiting.find((w) => w.key === 'reference_deploy.md')?.reason).toBe('secret');
    // Said as personal sync, not a team: where it did not go, and what to do (the CLI shows the same sentence).
    const heldDetail = held.waiting.find((w) => w.key === 'reference_deploy.md')!.detail;
    expect(heldDetail).toMatch(/^reference_deploy\.md was not uploaded to your personal space: AWS .* on line 6/);
    expect(heldDetail).toMatch(
      /Take it out of the file \(the app's Alerts page does it in one click\), or allow it for personal sync \(any private memory of this project\) if it is safe to keep on your other machines\.$/,
    );
    expect(heldDetail).not.toMatch(/team|share/);
    const alert = (await desktop.alerts.list()).alerts.find((a) => a.file === 'reference_deploy.md')!;
    expect(alert).toMatchObject({ title: 'A secret kept reference_deploy.md from being synced', message: heldDetail });
    // Allowing one of its findings rewrites the message, still for personal sync.
    await desktop.alerts.allow(alert.id, alert.findings[0]!.fingerprint, 'tester', 'a documented example key');
    expect((await desktop.alerts.get(alert.id))!.message).toMatch(/not uploaded to your personal space/);
    expect(await laptopSync.sync().then(() => laptop.read('reference_deploy.md'))).toBeNull();

    const dump = await dumpDatabase(h, db);
    expect(dump.length).toBeGreaterThan(1000);
    const plaintext = [
      'user_role',
      'q1_retro',
      'feedback_no_orm',
      'MEMORY.md',
      'billing service',
      'Backend engineer',
      'smaller pull requests',
      'Never add an ORM',
      'Thursdays',
      'github.com/acme',
      'Acme/Billing',
      'acme/billing',
      'billing-svc',
      'shared_runbook',
      'Daily log of',
      AWS_SECRET,
      'reference_deploy',
      PASSPHRASE,
    ];
    for (const text of plaintext) expect(dump.includes(text), `the database holds "${text}"`).toBe(false);
    // …while it does hold the entries (as ciphertext) and who wrote them.
    expect(dump).toContain('m1.');
    expect(dump).toContain('desktop');
  });

  it('refuses a wrong passphrase on another machine with a clear error and writes nothing', async () => {
    await laptop.connect(PASSPHRASE);
    for (const [rel, content] of Object.entries(MEMORIES)) await laptop.write(rel, content);
    await (await laptop.enable()).sync();
    const before = await dumpDatabase(h, db);
    await desktop.write('user_role.md', 'The desktop has its own version.\n');
    const error = await desktop.connect('correct horse battery stapler').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersonalSyncError);
    expect(error).toMatchObject({ code: 'wrong-passphrase' });
    expect((error as Error).message).toMatch(/does not open this personal space.*Nothing was written/);
    expect(await readAccount(desktop.dataDir)).toBeNull();
    expect(await desktop.credentials.list()).toEqual([]);
    expect(await fs.readdir(path.join(desktop.dataDir, 'personal')).catch(() => [])).toEqual([]);
    expect(await desktop.files()).toEqual({ 'user_role.md': 'The desktop has its own version.\n' });
    expect(await dumpDatabase(h, db)).toBe(before);
    expect((await store.listPersonal())[0]).toMatchObject({ projects: 1, entries: 3 });
    // The right one then works.
    await desktop.connect(PASSPHRASE);
    expect((await (await desktop.enable()).sync()).pull.conflicts).toEqual(['user_role.md']);
  });

  it('explains the passphrase before setting it, and refuses a short one', async () => {
    const unacknowledged = await laptop.connect(PASSPHRASE, false).catch((e: unknown) => e);
    expect(unacknowledged).toMatchObject({ code: 'needs-acknowledgement' });
    expect((unacknowledged as Error).message).toMatch(/If you lose it, nobody can decrypt the synced copy/);
    expect(await store.personalKey('alice')).toBeNull();
    await expect(laptop.connect('short one')).rejects.toMatchObject({ code: 'weak-passphrase' });
    expect(await store.personalKey('alice')).toBeNull();
    expect(await readAccount(laptop.dataDir)).toBeNull();
  });

  it('stops, writing nothing, when the server holds the space encrypted with another key; connecting again with it goes on', async () => {
    await laptop.connect(PASSPHRASE);
    await laptop.write('user_role.md', MEMORIES['user_role.md']!);
    const laptopSync = await laptop.enable();
    await laptopSync.sync();
    // The passphrase was lost: the admin resets the space and the desktop sets a new one.
    await resetPersonal(store, 'alice');
    await desktop.connect('a brand new passphrase for alice');
    await desktop.write('user_role.md', 'Desktop: I moved to the payments team.\n');
    expect((await (await desktop.enable()).sync()).push.uploaded).toEqual(['user_role.md']);
    await laptop.write('user_role.md', `${MEMORIES['user_role.md']!}Laptop edit.\n`);
    const stopped = await laptopSync.sync();
    expect(stopped.error).toMatchObject({ code: 'key-mismatch' });
    expect(stopped.error!.message).toMatch(/encrypted with another key.*Nothing was written or sent/);
    expect(stopped.push.uploaded).toEqual([]);
    expect(await laptop.read('user_role.md')).toBe(`${MEMORIES['user_role.md']!}Laptop edit.\n`);
    // Reconnecting with the new passphrase moves the project to the new key: both versions kept.
    await expect(laptop.connect(PASSPHRASE)).rejects.toMatchObject({ code: 'wrong-passphrase' });
    await laptop.connect('a brand new passphrase for alice');
    const after = await (await laptop.open()).sync();
    expect(after.error).toBeNull();
    expect(after.pull.conflicts).toEqual(['user_role.md']);
    expect(await laptop.read('user_role.md')).toBe('Desktop: I moved to the payments team.\n');
  });
  it('does not write a memory from the other machine beside one of the same name in another Unicode form; renamed here, both versions are kept', async () => {
    const nfc = 'feedback_caf\u00e9.md';
    const nfd = 'feedback_cafe\u0301.md';
    const laptopText = '---\nname: Café\ndescription: The café by the office\ntype: feedback\n---\nOpens at 8.\n';
    const desktopText = '---\nname: Café\ndescription: The café by the office\ntype: feedback\n---\nOpens at 9 on Sundays.\n';
    await laptop.connect(PASSPHRASE);
    await laptop.write(nfc, laptopText);
    await (await laptop.enable()).sync();
    // The desktop holds the same memory under the decomposed name (unpacked from a macOS archive, say).
    await desktop.write(nfd, desktopText);
    await desktop.connect(PASSPHRASE);
    const desktopSync = await desktop.enable();
    const refused = await desktopSync.sync();
    expect(refused.error).toBeNull();
    expect(refused.pull.written).toEqual([]);
    expect(refused.pull.refused).toEqual([{ key: nfc, reason: expect.stringContaining('is the same name, written in another Unicode form') }]);
    expect(await desktop.files()).toEqual({ [nfd]: desktopText });
    const alert = (await desktop.alerts.list()).alerts.find((a) => a.message.includes('another Unicode form'));
    expect(alert?.message).toMatch(/Rename it in Memdir/);

    // Renamed as the sentence says (to the name it shows: Memdir writes it in the form sync uses), the next sync keeps both versions.
    await renameMemory({ memoryDir: desktop.memoryDir, scope: 'private', dataDir: desktop.dataDir }, nfd, nfd);
    const joined = await desktopSync.sync();
    expect(joined.error).toBeNull();
    expect(joined.pull.conflicts).toEqual([nfc]);
    expect((await desktop.files())[nfc]).toBe(laptopText);
  });
});
