// The `memdir server …` commands (src/cli/commands/server.ts), run as the CLI runs them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo, CommandSpec } from '../cli/command.js';
import {
  resolveServerDb,
  runServer,
  serverCommand,
  serverCreatePersonalCommand,
  serverCreateTeamCommand,
  serverIssueTokenCommand,
  serverListCommand,
  serverRevokeTokenCommand,
  serverHostRefusal,
} from '../cli/commands/server.js';
import { openStore } from './open-store.js';
import { describeStores } from './test-support/stores.js';

function capture(env: NodeJS.ProcessEnv = {}): CliIo & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return { out: (t) => (out += t), err: (t) => (err += t), env, cwd: '/work', stdout: () => out, stderr: () => err };
}

async function run(spec: CommandSpec, positionals: string[], values: Record<string, string | boolean | undefined>, io = capture()) {
  const code = await spec.run({ positionals, values, io });
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('memdir server: where the store is', () => {
  it("takes --db, then $MEMDIR_SERVER_DB, then a file in Memdir's data dir", () => {
    const io = { cwd: '/work', env: { MEMDIR_DATA_DIR: '/data' } };
    expect(resolveServerDb({}, io)).toBe(path.join('/data', 'server', 'team-sync.sqlite'));
    expect(resolveServerDb({}, { ...io, env: { ...io.env, MEMDIR_SERVER_DB: 'rel/x.sqlite' } })).toBe('/work/rel/x.sqlite');
    expect(resolveServerDb({ db: 'postgres://u:p@h/db' }, io)).toBe('postgres://u:p@h/db');
    expect(resolveServerDb({ db: './s.sqlite' }, io)).toBe('/work/s.sqlite');
  });

  it('refuses a bad port before opening anything', async () => {
    await expect(serverCommand.run({ positionals: [], values: { port: 'eighty' }, io: capture() })).rejects.toThrow(/--port must be a whole number/);
    await expect(serverCommand.run({ positionals: [], values: { port: '70000' }, io: capture() })).rejects.toThrow(/from 0 to 65,535, not "70000"/);
  });

  it('refuses nonsense limits with a sentence, before opening anything (issue 15)', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'max-body': '0' }, /^--max-body must be a whole number from 4,096 to 1,073,741,824 bytes, not "0"$/],
      [{ 'max-body': '1e6' }, /--max-body must be a whole number/],
      [{ 'max-body': '-5' }, /--max-body must be a whole number/],
      [{ 'max-body': '99999999999999999999' }, /--max-body must be a whole number/],
      [{ 'max-body': '' }, /--max-body must be a whole number/],
      [{ 'max-keys': '0' }, /--max-keys must be a whole number from 1/],
      [{ 'max-entry': '2.5' }, /--max-entry must be a whole number/],
      [{ 'max-entries': '0x10' }, /--max-entries must be a whole number/],
      [{ rate: '0' }, /--rate must be a whole number from 1 to 100,000 requests per second/],
      [{ 'max-connections': '0' }, /--max-connections must be a whole number from 1 to 1,000,000/],
      [{ 'max-connections-per-address': 'lots' }, /--max-connections-per-address must be a whole number/],
      [{ 'max-body': '65536', 'max-entry': '100000' }, /--max-entry \(100000 bytes\) must not be larger than --max-body \(65536 bytes\)/],
    ];
    for (const [values, message] of cases) {
      await expect(
        serverCommand.run({ positionals: [], values: { ...values, db: '/nonexistent/dir/x.sqlite' }, io: capture() }),
        JSON.stringify(values),
      ).rejects.toThrow(message);
    }
  });

  it('refuses to serve plain http beyond this machine unless told (--allow-http), before opening anything', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-server-host-'));
    const db = path.join(root, 'team-sync.sqlite');
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'memdir.example.com']) {
      const error = await serverCommand.run({ positionals: [], values: { host, port: '0', db }, io: capture() }).catch((e: Error) => e);
      expect(error, host).toBeInstanceOf(Error);
      expect(String(error)).toContain(`--host ${host} would serve the team's memories and tokens unencrypted (plain http) to the network`);
      expect(String(error)).toContain('--allow-http');
    }
    expect(fs.existsSync(db)).toBe(false);
    // This machine only: no flag needed.
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) expect(serverHostRefusal(host, false), host).toBeNull();
    // Told: a TLS proxy on another machine, or a network the operator trusts.
    expect(serverHostRefusal('0.0.0.0', true)).toBeNull();
  });

  it('names an unreachable PostgreSQL store without printing its password', async () => {
    const error = await serverListCommand
      .run({ positionals: [], values: { db: 'postgres://admin:hunter2@127.0.0.1:1/memdir' }, io: capture() })
      .catch((e: Error) => e);
    expect(String(error)).toContain('cannot open the team store postgres://admin:***@127.0.0.1:1/memdir');
    expect(String(error)).not.toContain('hunter2');
    // libpq's other place for it, which the PostgreSQL driver reads too: the query string.
    for (const db of ['postgres://admin@127.0.0.1:1/memdir?sslmode=disable&password=hunter2', 'postgresql://admin@127.0.0.1:1/memdir?PassWord=hunter2#x']) {
      const queried = await serverListCommand.run({ positionals: [], values: { db }, io: capture() }).catch((e: Error) => e);
      expect(String(queried), db).toMatch(/cannot open the team store postgres(ql)?:\/\/admin@127\.0\.0\.1:1\/memdir\?(sslmode=disable&)?password=\*\*\*/i);
      expect(String(queried), db).not.toContain('hunter2');
    }
  });
});

describeStores('memdir server admin', (h) => {
  it('creates a team, issues a token once, lists without secrets, revokes', async () => {
    const db = await h.freshDb();
    expect((await run(serverCreateTeamCommand, ['platform'], { db })).out).toContain('Created team platform');
    const issued = await run(serverIssueTokenCommand, ['platform'], { db, member: 'ann', json: true });
    const { token, id, member } = JSON.parse(issued.out) as { token: string; id: string; member: string };
    expect(token).toMatch(/^mdt_[0-9a-f]{16}_/);
    expect(member).toBe('ann');
    const text = await run(serverIssueTokenCommand, ['platform'], { db, member: 'bob' });
    expect(text.out).toMatch(/Token for bob in team platform \(id [0-9a-f]{16}\):\n\n {2}mdt_/);
    expect(text.out).toContain('shown only now');
    const listed = await run(serverListCommand, [], { db, json: true });
    expect(listed.out).not.toContain(token.slice(22));
    const teams = JSON.parse(listed.out).teams as { name: string; tokens: { id: string; member: string; revokedAt: string | null }[] }[];
    expect(teams.map((t) => [t.name, t.tokens.map((k) => k.member)])).toEqual([['platform', ['ann', 'bob']]]);
    expect((await run(serverRevokeTokenCommand, [id], { db })).out).toMatch(new RegExp(`Revoked token ${id} of ann`));
    const after = await run(serverListCommand, ['platform'], { db });
    expect(after.out).toMatch(new RegExp(`${id}\\s+ann\\s+\\S+\\s+20\\d\\d-`));
    expect(after.out).not.toContain(token.slice(22));
  });

  it('issues a token that expires (--expires 90d), lists when, and refuses other spans with a sentence', async () => {
    const db = await h.freshDb();
    await run(serverCreateTeamCommand, ['platform'], { db });
    const issued = JSON.parse((await run(serverIssueTokenCommand, ['platform'], { db, member: 'ann', expires: '90d', json: true })).out) as {
      createdAt: string;
      expiresAt: string;
    };
    expect(Date.parse(issued.expiresAt) - Date.parse(issued.createdAt)).toBe(90 * 24 * 3600 * 1000);
    expect((await run(serverIssueTokenCommand, ['platform'], { db, member: 'bob', expires: '7d' })).out).toMatch(/It expires on 20\d\d-/);
    const listed = await run(serverListCommand, ['platform'], { db });
    expect(listed.out).toContain('EXPIRES');
    expect(listed.out).toContain(issued.expiresAt);
    for (const bad of ['90', '0d', '3651d', 'soon', '1.5d'])
      await expect(run(serverIssueTokenCommand, ['platform'], { db, expires: bad })).rejects.toThrow(
        /^--expires takes a number of days from 1 to 3650 followed by d, e\.g\. 90d/,
      );
  });

  it('creates a personal space, issues a token per machine, lists it by counts, never as a team', async () => {
    const db = await h.freshDb();
    expect((await run(serverCreatePersonalCommand, ['alice'], { db })).out).toContain('Created the personal space of alice');
    const issued = JSON.parse((await run(serverIssueTokenCommand, ['alice'], { db, personal: true, member: 'laptop', json: true })).out) as {
      token: string;
      scope: string;
      team: string;
    };
    expect(issued).toMatchObject({ scope: 'personal', team: '~alice' });
    const text = await run(serverIssueTokenCommand, ['alice'], { db, personal: true, member: 'desktop' });
    expect(text.out).toMatch(/Token for desktop, a machine of alice's personal space \(id [0-9a-f]{16}\)/);
    await expect(run(serverIssueTokenCommand, ['alice'], { db, member: 'x' })).rejects.toThrow(/There is no team "alice"/);
    await expect(run(serverIssueTokenCommand, ['bob'], { db, personal: true })).rejects.toThrow(/no personal space for "bob"/);
    const listed = JSON.parse((await run(serverListCommand, [], { db, json: true })).out) as {
      teams: unknown[];
      personal: { user: string; keySet: boolean; tokens: { member: string }[] }[];
    };
    expect(listed.teams).toEqual([]);
    expect(listed.personal.map((p) => [p.user, p.keySet, p.tokens.map((t) => t.member).sort()])).toEqual([['alice', false, ['desktop', 'laptop']]]);
    expect(JSON.stringify(listed)).not.toContain(issued.token.slice(22));
    expect((await run(serverListCommand, [], { db })).out).toContain('personal space of alice: 0 project(s), 0 entries (encrypted), key not set yet');
  });

  it('refuses a database that holds no Memdir store, and creates nothing in it (an empty or foreign PostgreSQL database, like a missing SQLite file)', async () => {
    const db = await h.emptyDb();
    for (const [spec, positionals] of [
      [serverListCommand, []],
      [serverCreateTeamCommand, ['platform']],
      [serverIssueTokenCommand, ['platform']],
    ] as const) {
      const error = await run(spec, [...positionals], { db, member: spec === serverIssueTokenCommand ? 'ann' : undefined }).catch((e: Error) => e);
      expect(String(error), spec.name.join(' ')).toMatch(
        /There is no team store (at|in) .*: check .*--db.*`memdir server` creates one on its first start; admin commands never do\./,
      );
      expect(String(error)).not.toContain('hunter2');
    }
    if (h.kind === 'postgres') {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: db });
      await client.connect();
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
      );
      await client.end();
      expect(rows[0]!.n).toBe(0);
    }
  });

  it('revokes by id quietly; given the whole token it still revokes, but warns that the process list shows it and never echoes its secret', async () => {
    const db = await h.freshDb();
    await run(serverCreateTeamCommand, ['platform'], { db });
    const ann = JSON.parse((await run(serverIssueTokenCommand, ['platform'], { db, member: 'ann', json: true })).out) as { token: string; id: string };
    const bob = JSON.parse((await run(serverIssueTokenCommand, ['platform'], { db, member: 'bob', json: true })).out) as { token: string; id: string };
    expect((await run(serverRevokeTokenCommand, [ann.id], { db })).err).toBe('');
    const whole = await run(serverRevokeTokenCommand, [bob.token], { db, json: true });
    expect(JSON.parse(whole.out)).toMatchObject({ id: bob.id, member: 'bob', revokedAt: expect.any(String) });
    expect(whole.err).toMatch(/whole token.*process list.*revoke-token [0-9a-f]{16}/s);
    expect(whole.err).toContain(`revoke-token ${bob.id}`);
    const secret = bob.token.slice(21);
    const elsewhere = `mdt_0123456789abcdef_${secret}`;
    const refused = await run(serverRevokeTokenCommand, [elsewhere], { db }).then(
      () => '',
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/There is no token 0123456789abcdef/);
    expect(refused).not.toContain(secret.slice(0, 8));
  });

  it('explains mistakes with exit 2 (CliFailure) rather than a stack trace', async () => {
    const db = await h.freshDb();
    await run(serverCreateTeamCommand, ['platform'], { db });
    await expect(run(serverCreateTeamCommand, ['platform'], { db })).rejects.toThrow('The team "platform" already exists.');
    await expect(run(serverCreateTeamCommand, ['Platform Team'], { db })).rejects.toThrow(/not a valid team name/);
    await expect(run(serverIssueTokenCommand, ['nope'], { db })).rejects.toThrow(/There is no team "nope"/);
    await expect(run(serverRevokeTokenCommand, ['0123456789abcdef'], { db })).rejects.toThrow(/There is no token/);
    await expect(run(serverListCommand, ['nope'], { db })).rejects.toThrow(/There is no team "nope"/);
  });

  it('runs the server until stopped, printing its URL and JSON request logs', async () => {
    const db = await h.freshDb();
    await run(serverCreateTeamCommand, ['platform'], { db });
    const io = capture();
    const controller = new AbortController();
    const running = runServer({ db, host: '127.0.0.1', port: 0 }, io, controller.signal);
    await expect.poll(() => io.stderr(), { timeout: 10_000 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const url = /listening on (http:\/\/\S+) /.exec(io.stderr())![1]!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    controller.abort();
    expect(await running).toBe(0);
    const records = io
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r.msg)).toEqual(['listening', 'request', 'stopped']);
    expect(records[1]).toMatchObject({ method: 'GET', route: '/healthz', status: 200 });
  });
});

describe('memdir server: a store other accounts can read', () => {
  it('says so when it starts, naming the file and the command that makes it private (a store an older Memdir created 0644)', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-server-mode-'));
    try {
      const db = path.join(root, 'team-sync.sqlite');
      await (await openStore(db)).close();
      fs.chmodSync(db, 0o644);
      const io = capture();
      const controller = new AbortController();
      const running = runServer({ db, host: '127.0.0.1', port: 0 }, io, controller.signal);
      await expect.poll(() => io.stderr(), { timeout: 10_000 }).toMatch(/listening on/);
      controller.abort();
      expect(await running).toBe(0);
      expect(io.stderr()).toContain(
        `Other accounts on this machine can read the team store ${db} (mode 644), which holds every team's memories and its tokens' hashes: make it yours alone with chmod 600 '${db}'*`,
      );
      // Private, it says nothing.
      fs.chmodSync(db, 0o600);
      const quiet = capture();
      const again = new AbortController();
      const second = runServer({ db, host: '127.0.0.1', port: 0 }, quiet, again.signal);
      await expect.poll(() => quiet.stderr(), { timeout: 10_000 }).toMatch(/listening on/);
      again.abort();
      expect(await second).toBe(0);
      expect(quiet.stderr()).not.toContain('Other accounts');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
