import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, issueToken, revokeToken } from '../../server/admin.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import type { TeamStore } from '../../server/store.js';
import { ConnectionStore, tokenCredentialName } from '../../main/team/index.js';
import { type TestServer, serverEntries, startTestServer } from '../../main/team/test-support/team-fixture.js';
import type { CliIo } from '../command.js';
import { runCli } from '../main.js';

let root: string;
let home: string;
let dataDir: string;
let store: TeamStore;
let server: TestServer;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-team-')));
  home = path.join(root, 'claude-home');
  dataDir = path.join(root, 'data');
  await fs.mkdir(path.join(home, 'projects', '-work-app', 'memory', 'team'), { recursive: true });
  await fs.writeFile(
    path.join(home, 'projects', '-work-app', 'memory', 'team', 'project_api.md'),
    '---\nname: API\ndescription: v2 cutover\ntype: project\n---\n\nv2 on 2026-04-01.\n',
  );
  store = await openSqliteStore(path.join(root, 'team.sqlite'));
  server = await startTestServer(store, 2);
});
afterAll(async () => {
  await server.server.close();
  await store.close();
  await fs.rm(root, { recursive: true, force: true });
});

async function memdir(args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MEMDIR_DATA_DIR: dataDir, HOME: root, ...opts.env },
    cwd: root,
    ...(opts.stdin !== undefined ? { stdin: Readable.from([opts.stdin]) } : {}),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

describe('memdir team', () => {
  it('`memdir team` alone names its subcommands; --help lists them', async () => {
    expect(await memdir(['team'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('name a subcommand (connect, status, sync, conflicts, resolve, retire, disconnect)'),
    });
    const help = await memdir(['team', '--help']);
    expect(help.code).toBe(0);
    for (const sub of ['connect', 'status', 'sync', 'conflicts', 'disconnect']) expect(help.out).toContain(`memdir team ${sub} --project P`);
    expect(help.out).toContain('memdir team resolve <id> --project P --keep mine|server|both|merged');
  });

  it('connect refuses a token of another team, an http URL to another host, and a missing token — in one line each', async () => {
    await createTeam(store, 'elsewhere');
    const other = (await issueToken(store, 'elsewhere', 'eve')).token;
    const base = ['team', 'connect', '--project', '-work-app', '--home', home, '--server', server.url, '--team', server.team];
    let r = await memdir([...base, '--token-stdin'], { stdin: `${other}\n` });
    // The app's sentence, word for word: both connect through team/connect-team.ts (the CLI's own
    // copy had said less: no way out of the refusal).
    expect(r).toMatchObject({
      code: 2,
      err: 'memdir team connect: This token belongs to team "elsewhere", not "platform". Use a token issued for platform, or connect to elsewhere.\n',
    });
    r = await memdir([...base, '--token-stdin'], { stdin: 'hunter2\n' });
    expect(r).toMatchObject({
      code: 2,
      err: 'memdir team connect: That is not a Memdir team token (they look like mdt_…, from `memdir server admin issue-token`).\n',
    });
    // A refused connect keeps nothing.
    expect(await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('"connected": false'),
    });
    r = await memdir(
      ['team', 'connect', '--project', '-work-app', '--home', home, '--server', 'http://sync.example.com', '--team', 'platform', '--token-stdin'],
      { stdin: server.tokens[0]! },
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain('unencrypted');
    r = await memdir(base);
    expect(r).toMatchObject({ code: 2, err: expect.stringContaining('no token') });
  });

  it('a token pasted into --server or --team is not quoted back in full (review x2 F5)', async () => {
    const pasted = server.tokens[0]!;
    const secretPart = pasted.slice(pasted.lastIndexOf('_') + 1);
    const base = ['team', 'connect', '--project', '-work-app', '--home', home];
    const asServer = await memdir([...base, '--server', pasted, '--team', 'platform', '--token-stdin'], { stdin: `${pasted}\n` });
    expect(asServer.code).toBe(2);
    expect(asServer.err).toMatch(/^memdir team connect: "mdt_\*+" is not a URL; give the sync server's address/);
    const asTeam = await memdir([...base, '--server', server.url, '--team', pasted, '--token-stdin'], { stdin: `${pasted}\n` });
    expect(asTeam.code).toBe(2);
    expect(asTeam.err).toMatch(/^memdir team connect: "mdt_\*+" is not a team name/);
    for (const r of [asServer, asTeam]) expect(r.err + r.out).not.toContain(secretPart.slice(0, 12));
    // Anything else is quoted as typed, so the person sees what was wrong.
    expect((await memdir([...base, '--server', 'sync.example', '--team', 'platform', '--token-stdin'], { stdin: `${pasted}\n` })).err).toContain(
      '"sync.example" is not a URL',
    );
  });

  it('connect says each limit it shares with the app in a sentence, before any network', async () => {
    const base = ['team', 'connect', '--project', '-work-app', '--home', home];
    const cases: [string[], string][] = [
      [
        ['--server', `https://x.example/${'p'.repeat(2000)}`, '--team', 't'],
        'The server address is 2,018 characters; a server address can be at most 2,000 characters.',
      ],
      [['--server', server.url, '--team', 't'.repeat(101)], 'The team name is 101 characters; a team name can be at most 100 characters.'],
    ];
    for (const [args, sentence] of cases) {
      const r = await memdir([...base, ...args, '--token-stdin'], { stdin: 'mdt_x\n' });
      expect(r).toEqual({ code: 2, out: '', err: `memdir team connect: ${sentence}\n` });
    }
    const long = await memdir([...base, '--server', server.url, '--team', 't', '--token-stdin'], { stdin: `mdt_${'k'.repeat(497)}\n` });
    expect(long.err).toBe('memdir team connect: The token is 501 characters; a token can be at most 500 characters.\n');
  });

  it('connect --token-stdin --json: connects, syncs once, never prints or files the token outside the credential store', async () => {
    const r = await memdir(
      ['team', 'connect', '--project', '-work-app', '--home', home, '--server', server.url, '--team', server.team, '--token-stdin', '--json'],
      { stdin: `${server.tokens[0]}\n` },
    );
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as { connection: { team: string; member: string }; sync: { push: { uploaded: string[] }; error: null } };
    expect(json.connection).toMatchObject({ team: 'platform', member: 'member-0' });
    expect(json.sync.push.uploaded).toEqual(['project_api.md']);
    expect(json.sync.error).toBeNull();
    const secret = server.tokens[0]!.slice(21);
    expect(r.out + r.err).not.toContain(secret);
    expect(await fs.readFile(path.join(dataDir, 'team', 'connections.json'), 'utf8')).not.toContain(secret);
    expect(await fs.readFile(path.join(dataDir, 'credentials.json'), 'utf8')).toContain(secret);
    expect((await fs.stat(path.join(dataDir, 'credentials.json'))).mode & 0o077).toBe(0);
  });

  it('sync --json pulls what others pushed; status --json shows what is held back and why', async () => {
    await fetch(`${server.url}/v1/teams/platform/checksums`, { headers: { authorization: `Bearer ${server.tokens[1]}` } }).then(async (res) =>
      fetch(`${server.url}/v1/teams/platform/entries`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${server.tokens[1]}`, 'content-type': 'application/json', 'if-match': res.headers.get('etag')! },
        body: JSON.stringify({ entries: { 'reference_grafana.md': 'Grafana: https://grafana.example/d/api\n' } }),
      }),
    );
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    await fs.writeFile(path.join(team, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const r = await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json']);
    const report = JSON.parse(r.out) as { pull: { status: number; written: string[] }; waiting: { key: string; reason: string }[] };
    expect(report.pull).toMatchObject({ status: 200, written: ['reference_grafana.md'] });
    expect(report.waiting).toEqual([expect.objectContaining({ key: 'latin1.md', reason: 'not-utf8' })]);
    expect(r.code).toBe(1);
    expect(await fs.readFile(path.join(team, 'reference_grafana.md'), 'utf8')).toBe('Grafana: https://grafana.example/d/api\n');

    const status = await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json']);
    expect(status.code).toBe(1);
    expect(JSON.parse(status.out)).toMatchObject({
      connected: true,
      connection: { team: 'platform' },
      waiting: [{ key: 'latin1.md', reason: 'not-utf8' }],
      conflicts: [],
    });
    await fs.rm(path.join(team, 'latin1.md'));
    const text = await memdir(['team', 'sync', '--project', '-work-app', '--home', home]);
    expect(text).toMatchObject({ code: 0, out: expect.stringContaining('Pull: nothing new from platform') });
  });

  it('disconnect forgets the connection and the token; the files stay', async () => {
    const r = await memdir(['team', 'disconnect', '--project', '-work-app', '--home', home, '--json']);
    expect(JSON.parse(r.out)).toEqual({ disconnected: true });
    expect(await fs.readFile(path.join(dataDir, 'credentials.json'), 'utf8')).not.toContain(server.tokens[0]!.slice(21));
    expect(await memdir(['team', 'status', '--project', '-work-app', '--home', home])).toMatchObject({
      code: 0,
      out: expect.stringContaining('not connected'),
    });
    expect(Object.keys(await serverEntries(server.url, server.team, server.tokens[0]!)).sort()).toEqual(['project_api.md', 'reference_grafana.md']);
    expect(await fs.readdir(path.join(home, 'projects', '-work-app', 'memory', 'team'))).toContain('project_api.md');
  });

  it('disconnect when the desktop app keeps the token encrypted: the connection goes, the encrypted file is left as it was, and it says so', async () => {
    const data = path.join(root, 'data-encrypted');
    const memoryDir = await fs.realpath(path.join(home, 'projects', '-work-app', 'memory'));
    const connection = await new ConnectionStore(data).save({
      memoryDir,
      dir: '-work-app',
      server: server.url,
      team: 'platform',
      member: 'ana',
      tokenId: '0'.repeat(16),
      connectedAt: new Date().toISOString(),
      pullIntervalSec: 60,
    });
    const credentials = JSON.stringify({ version: 1, encrypted: true, entries: { [tokenCredentialName(connection.id)]: 'ZW5jcnlwdGVk' } });
    await fs.writeFile(path.join(data, 'credentials.json'), credentials);
    const r = await memdir(['team', 'disconnect', '--project', '-work-app', '--home', home], { env: { MEMDIR_DATA_DIR: data } });
    expect(r).toMatchObject({ code: 0, out: expect.stringContaining('only the app can delete it') });
    expect(await fs.readFile(path.join(data, 'credentials.json'), 'utf8')).toBe(credentials);
    expect(await new ConnectionStore(data).list()).toEqual([]);
  });

  it('connect to another team afterwards starts the sync state over: a file unchanged since the old team is kept as a conflict', async () => {
    await createTeam(store, 'design');
    const token = (await issueToken(store, 'design', 'dana')).token;
    const checksums = await fetch(`${server.url}/v1/teams/design/checksums`, { headers: { authorization: `Bearer ${token}` } });
    await fetch(`${server.url}/v1/teams/design/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': checksums.headers.get('etag')! },
      body: JSON.stringify({ entries: { 'project_api.md': 'The design team: v3 on 2026-06-01.\n' } }),
    });
    const r = await memdir(
      ['team', 'connect', '--project', '-work-app', '--home', home, '--server', server.url, '--team', 'design', '--token-stdin', '--json'],
      { stdin: token },
    );
    // Connected, with a conflict to resolve: exit 1.
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as { sync: { pull: { written: string[]; conflicts: string[] }; error: null } };
    expect(json.sync.pull.conflicts).toEqual(['project_api.md']);
    expect(await fs.readFile(path.join(home, 'projects', '-work-app', 'memory', 'team', 'project_api.md'), 'utf8')).toBe(
      'The design team: v3 on 2026-06-01.\n',
    );
    const status = JSON.parse((await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json'])).out) as { conflicts: { key: string }[] };
    expect(status.conflicts).toEqual([expect.objectContaining({ key: 'project_api.md' })]);
  });

  it('conflicts lists it; resolve --keep both writes both, one history entry, undone by the one command it prints', async () => {
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    const listed = await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json']);
    expect(listed.code).toBe(1);
    const [conflict] = (
      JSON.parse(listed.out) as {
        conflicts: { id: string; key: string; mine: string; theirs: string; base: string | null; proposal: string | null; overlaps: number | null }[];
      }
    ).conflicts;
    expect(conflict).toMatchObject({ key: 'project_api.md', theirs: 'The design team: v3 on 2026-06-01.\n', base: null, proposal: null, overlaps: null });
    expect(conflict!.mine).toContain('v2 on 2026-04-01.');
    expect((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home])).out).toContain(`Conflict ${conflict!.id}: team/project_api.md`);

    // Without a base there is no merge to take: it says what to do instead.
    const noMerge = await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'merged']);
    expect(noMerge).toMatchObject({ code: 2, err: expect.stringContaining('--file F') });
    expect(await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'theirs'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('mine, server, both or merged'),
    });

    const resolved = await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'both', '--json']);
    expect(resolved.code).toBe(0);
    const json = JSON.parse(resolved.out) as {
      conflict: { status: string; resolution: string };
      rev: string;
      undo: string;
      sync: { push: { uploaded: string[] }; error: null };
    };
    expect(json.conflict).toMatchObject({ status: 'resolved', resolution: 'both' });
    expect(json.sync).toMatchObject({ error: null, push: { uploaded: ['project_api.md'] } });
    const both = await fs.readFile(path.join(team, 'project_api.md'), 'utf8');
    expect(both).toContain('v2 on 2026-04-01.');
    expect(both).toContain('The design team: v3 on 2026-06-01.');
    const history = JSON.parse((await memdir(['history', '-work-app', '--home', home, '--json', '--limit', '1'])).out) as {
      entries: { rev: string; summary: string }[];
    };
    expect(history.entries[0]).toMatchObject({ rev: json.rev, summary: 'Resolve the conflict on team/project_api.md: kept both versions' });
    // The command it prints undoes the resolution as the app's Undo does: the file as the pull left it, the conflict open again.
    expect(json.undo).toBe(`memdir undo -work-app ${json.rev.slice(0, 10)}`);
    const undone = await memdir([...json.undo.split(' ').slice(1), '--home', home, '--json']);
    expect(undone.code).toBe(0);
    expect((JSON.parse(undone.out) as { notes: string[] }).notes).toEqual([
      'The team sync conflict on team/project_api.md is open again: your version is still kept, to choose again.',
    ]);
    expect(await fs.readFile(path.join(team, 'project_api.md'), 'utf8')).toBe('The design team: v3 on 2026-06-01.\n');
    // Before: the conflict stayed resolved (kept both) and the choice was gone; yours only in history.
    const reopened = await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json']);
    expect(reopened.code).toBe(1);
    const again = (JSON.parse(reopened.out) as { conflicts: { id: string; mine: string; reopened: { take: string } }[] }).conflicts;
    expect(again).toEqual([expect.objectContaining({ id: conflict!.id, reopened: expect.objectContaining({ take: 'both' }) })]);
    expect(again[0]!.mine).toContain('v2 on 2026-04-01.');
    // The next sync pushes nothing: the reopened file holds the team's exact bytes, no edit of yours
    // (before, it went up as a local edit: the team's text again, over the resolution, noise in the team's history).
    const reader = (await issueToken(store, 'design', 'dina')).token;
    const onServer = (await serverEntries(server.url, 'design', reader))['project_api.md'];
    const quiet = JSON.parse((await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json'])).out) as { push: { uploaded: string[] } };
    expect(quiet.push.uploaded).toEqual([]);
    expect((await serverEntries(server.url, 'design', reader))['project_api.md']).toBe(onServer);
    // Undoing that undo (a redo) resolves it again, as it was.
    const rev = (JSON.parse(undone.out) as { undone: { rev: string } }).undone.rev;
    expect((await memdir(['undo', '-work-app', rev.slice(0, 10), '--home', home])).code).toBe(0);
    expect(await fs.readFile(path.join(team, 'project_api.md'), 'utf8')).toBe(both);
    expect(await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home])).toMatchObject({
      code: 0,
      out: expect.stringContaining('no open team sync conflict'),
    });
    const status = JSON.parse((await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json'])).out) as { conflicts: unknown[] };
    expect(status.conflicts).toEqual([]);

    // A restore to before the resolution does what its Undo does: the file as the pull left it, the conflict open again
    // (before: the file went back and the conflict stayed resolved, the choice gone); undoing the restore resolves it again.
    const restored = await memdir(['restore', '-work-app', `${json.rev.slice(0, 12)}~1`, 'team/project_api.md', '--home', home, '--json']);
    expect(restored.code).toBe(0);
    expect((JSON.parse(restored.out) as { notes: string[] }).notes).toContain(
      'The team sync conflict on team/project_api.md is open again: your version is still kept, to choose again.',
    );
    expect(await fs.readFile(path.join(team, 'project_api.md'), 'utf8')).toBe('The design team: v3 on 2026-06-01.\n');
    const open = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
      conflicts: { id: string; reopened: { take: string } }[];
    };
    expect(open.conflicts).toEqual([expect.objectContaining({ id: conflict!.id, reopened: expect.objectContaining({ take: 'both' }) })]);
    const restoreRev = (JSON.parse(restored.out) as { restored: { rev: string } }).restored.rev;
    expect(await memdir(['undo', '-work-app', restoreRev.slice(0, 10), '--home', home])).toMatchObject({
      code: 0,
      out: expect.stringContaining('The team sync conflict on team/project_api.md is resolved again, as you had (kept both versions).'),
    });
    expect(await fs.readFile(path.join(team, 'project_api.md'), 'utf8')).toBe(both);
    expect(
      (JSON.parse((await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json'])).out) as { conflicts: unknown[] }).conflicts,
    ).toEqual([]);
  });

  it("resolve --keep server is one history entry: it says where your version is, its undo puts yours back byte for byte, and no later sync pushes it over the team's", async () => {
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    await fs.writeFile(path.join(team, 'keep_me.md'), 'Deploys: Fridays.\n');
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    const other = (await issueToken(store, 'design', 'doreen')).token;
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const pushed = await fetch(`${server.url}/v2/teams/design/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        pushId: 'cli-test-push-keep-srv1',
        entries: { 'keep_me.md': { content: 'Deploys: never on Fridays.\n', base: sha('Deploys: Fridays.\n') } },
      }),
    });
    expect(pushed.status).toBe(200);
    // Yours, written as Claude Code writes (no Memdir, no history entry of its own): CRLF, no final newline.
    const mine = Buffer.from('Deploys: Fridays, after 16:00 \r\nAsk ann first', 'utf8');
    await fs.writeFile(path.join(team, 'keep_me.md'), mine);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(1);
    const listed = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
      conflicts: { id: string; key: string }[];
    };
    const conflict = listed.conflicts.find((c) => c.key === 'keep_me.md')!;

    const resolved = await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server']);
    expect(resolved.code).toBe(0);
    // Before: "the team's version stays (nothing written)", no entry, no undo: yours gone without a word of where.
    const undo = /undo with: (memdir undo -work-app [0-9a-f]{10})/.exec(resolved.out)?.[1];
    expect(undo).toBeDefined();
    expect(resolved.out).toContain("Resolved team/keep_me.md: the team's version stays. Your version is in History");
    expect(await fs.readFile(path.join(team, 'keep_me.md'), 'utf8')).toBe('Deploys: never on Fridays.\n');
    const history = JSON.parse((await memdir(['history', '-work-app', '--home', home, '--json', '--limit', '2'])).out) as {
      entries: { rev: string; summary: string }[];
    };
    expect(history.entries.map((e) => e.summary)).toEqual([
      "Resolve the conflict on team/keep_me.md: kept the team's version",
      "Your version of team/keep_me.md, as the sync conflict kept it (recorded when you kept the team's version; undo that entry to get yours back)",
    ]);
    expect(undo).toBe(`memdir undo -work-app ${history.entries[0]!.rev.slice(0, 10)}`);

    // A later sync in between changes nothing; the undo then puts yours back byte for byte and opens the conflict again.
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    const undone = await memdir([...undo!.split(' ').slice(1), '--home', home, '--json']);
    expect(undone.code).toBe(0);
    expect((JSON.parse(undone.out) as { notes: string[] }).notes).toEqual([
      'The team sync conflict on team/keep_me.md is open again: your version is still kept, to choose again.',
    ]);
    expect(await fs.readFile(path.join(team, 'keep_me.md'))).toEqual(mine);
    // The next sync does not push yours over the team's (choose "mine" for that); the team's stays on the server, the choice open.
    const after = JSON.parse((await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json'])).out) as { push: { uploaded: string[] } };
    expect(after.push.uploaded).toEqual([]);
    expect((await serverEntries(server.url, 'design', other))['keep_me.md']).toBe('Deploys: never on Fridays.\n');
    expect(await fs.readFile(path.join(team, 'keep_me.md'))).toEqual(mine);
    const open = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as { conflicts: { id: string }[] };
    expect(open.conflicts.map((c) => c.id)).toContain(conflict.id);
    // Keeping the team's again: the team's text back on disk, resolved.
    const again = await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server']);
    expect(again.code).toBe(0);
    expect(await fs.readFile(path.join(team, 'keep_me.md'), 'utf8')).toBe('Deploys: never on Fridays.\n');
  });

  it('after the Undo of keep server, a newer team version is written over yours (kept in the conflict), never merged with it and pushed; keep server then takes the newer one', async () => {
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    const other = (await issueToken(store, 'design', 'doreen')).token;
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const put = async (id: string, content: string, base: string): Promise<void> => {
      const r = await fetch(`${server.url}/v2/teams/design/entries`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
        body: JSON.stringify({ pushId: id, entries: { 'k.md': { content, base: sha(base) } } }),
      });
      expect(r.status).toBe(200);
    };
    const b = 'a\nb\nc\nd\ne\nf\ng\n';
    const s = 'TEAM\nb\nc\nd\ne\nf\ng\n';
    const m = 'MINE\nb\nc\nd\ne\nf\ng\n';
    const s2 = 'TEAM\nb\nc\nd\ne\nf\nG2\n';
    await fs.writeFile(path.join(team, 'k.md'), b);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    await put('cli-test-keepfix-1', s, b);
    await fs.writeFile(path.join(team, 'k.md'), m);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(1);
    const listed = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
      conflicts: { id: string; key: string }[];
    };
    const conflict = listed.conflicts.find((c) => c.key === 'k.md')!;
    const resolved = await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server']);
    expect(resolved.code).toBe(0);
    const undo = /undo with: (memdir undo -work-app [0-9a-f]{10})/.exec(resolved.out)![1]!;
    expect((await memdir([...undo.split(' ').slice(1), '--home', home])).code).toBe(0);
    expect(await fs.readFile(path.join(team, 'k.md'), 'utf8')).toBe(m);

    // Keep server again while the saved copy of the team's version is gone (bases/ is a cache): refused, nothing changed.
    // Before: "the team's version stays", exit 0, yours left on disk, the conflict resolved and yours pushed by the next sync.
    const cached = (await fs.readdir(dataDir, { recursive: true })).filter((f) => f.endsWith(path.join('bases', sha(s))));
    expect(cached.length).toBeGreaterThan(0);
    for (const f of cached) await fs.rm(path.join(dataDir, f));
    const lost = await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server']);
    expect(lost.code).toBe(2);
    expect(lost.err).toContain("Memdir no longer has the team's version of team/k.md here");
    expect(lost.out).not.toContain('stays');
    expect(await fs.readFile(path.join(team, 'k.md'), 'utf8')).toBe(m);
    const stillOpen = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
      conflicts: { id: string }[];
    };
    expect(stillOpen.conflicts.map((c) => c.id)).toContain(conflict.id);
    // The sentence's advice works: a sync fetches the team's version again (uploading nothing), then keeping it goes through.
    const fetched = JSON.parse((await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json'])).out) as { push: { uploaded: string[] } };
    expect(fetched.push.uploaded).toEqual([]);
    const kept = await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server']);
    expect(kept.code).toBe(0);
    expect(await fs.readFile(path.join(team, 'k.md'), 'utf8')).toBe(s);
    const undoAgain = /undo with: (memdir undo -work-app [0-9a-f]{10})/.exec(kept.out)![1]!;
    expect((await memdir([...undoAgain.split(' ').slice(1), '--home', home])).code).toBe(0);
    expect(await fs.readFile(path.join(team, 'k.md'), 'utf8')).toBe(m);

    // The team changes another line. Before: the pull merged MINE into it and pushed it, the team's TEAM line gone from the server.
    await put('cli-test-keepfix-2', s2, s);
    const synced = await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json']);
    const report = JSON.parse(synced.out) as { pull: { merged: string[]; conflicts: string[]; written: string[] }; push: { uploaded: string[] } };
    expect(report.push.uploaded).toEqual([]);
    expect(report.pull.merged).toEqual([]);
    expect((await serverEntries(server.url, 'design', other))['k.md']).toBe(s2);
    // The team's newer version is on disk; yours is still kept in the open conflict, and the sync says so (exit 1).
    expect(synced.code).toBe(1);
    expect(report.pull.conflicts).toEqual(['k.md']);
    expect(await fs.readFile(path.join(team, 'k.md'), 'utf8')).toBe(s2);
    const open = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
      conflicts: { id: string; serverSha: string }[];
    };
    expect(open.conflicts.find((c) => c.id === conflict.id)?.serverSha).toBe(sha(s2));
    // A second sync changes nothing.
    const again = JSON.parse((await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json'])).out) as { push: { uploaded: string[] } };
    expect(again.push.uploaded).toEqual([]);
    // Keep server now keeps the newer one; "mine" would still have yours byte for byte.
    expect((await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server'])).code).toBe(0);
    expect(await fs.readFile(path.join(team, 'k.md'), 'utf8')).toBe(s2);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    expect((await serverEntries(server.url, 'design', other))['k.md']).toBe(s2);
  });

  it('resolve --keep server refuses when the file changed since the conflict was shown (neither side on disk), as the other choices do', async () => {
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    const other = (await issueToken(store, 'design', 'doreen')).token;
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    await fs.writeFile(path.join(team, 'edited.md'), 'one\n');
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    const r = await fetch(`${server.url}/v2/teams/design/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pushId: 'cli-test-keepfix-4', entries: { 'edited.md': { content: 'TEAM\n', base: sha('one\n') } } }),
    });
    expect(r.status).toBe(200);
    await fs.writeFile(path.join(team, 'edited.md'), 'MINE\n');
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(1);
    const listed = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
      conflicts: { id: string; key: string }[];
    };
    const conflict = listed.conflicts.find((c) => c.key === 'edited.md')!;
    // Edited again after the conflict opened. Before: "the team's version stays", exit 0, and the next sync pushed the edit.
    await fs.writeFile(path.join(team, 'edited.md'), 'LATER\n');
    const refused = await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('team/edited.md changed since the conflict was opened; look at it again before choosing.');
    expect(await fs.readFile(path.join(team, 'edited.md'), 'utf8')).toBe('LATER\n');
    const open = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as { conflicts: { id: string }[] };
    expect(open.conflicts.map((c) => c.id)).toContain(conflict.id);
    // Put back as the pull left it, keeping the team's goes through.
    await fs.writeFile(path.join(team, 'edited.md'), 'TEAM\n');
    expect((await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server'])).code).toBe(0);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
  });

  it("resolve --keep server with your version kept nowhere but on disk is refused: nothing changed, and the next sync does not push yours over the team's", async () => {
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    const other = (await issueToken(store, 'design', 'doreen')).token;
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    await fs.writeFile(path.join(team, 'lost.md'), 'one\n');
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    const r = await fetch(`${server.url}/v2/teams/design/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pushId: 'cli-test-keepfix-s4', entries: { 'lost.md': { content: 'TEAM\n', base: sha('one\n') } } }),
    });
    expect(r.status).toBe(200);
    await fs.writeFile(path.join(team, 'lost.md'), 'MINE\n');
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(1);
    const listed = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
      conflicts: { id: string; key: string }[];
    };
    const conflict = listed.conflicts.find((c) => c.key === 'lost.md')!;
    // Yours back on disk (as an Undo puts it), and the kept copy of it (conflicts/<id>.local) gone.
    await fs.writeFile(path.join(team, 'lost.md'), 'MINE\n');
    const keptCopies = (await fs.readdir(dataDir, { recursive: true })).filter((f) => f.endsWith(`${conflict.id}.local`));
    expect(keptCopies.length).toBeGreaterThan(0);
    for (const f of keptCopies) await fs.rm(path.join(dataDir, f));
    // Before: exit 0, the conflict resolved with yours on disk, and the next sync pushed yours over the team's.
    const refused = await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("Memdir's saved copy of your version of team/lost.md is gone and yours is the file on disk");
    expect(refused.out).not.toContain('stays');
    expect(await fs.readFile(path.join(team, 'lost.md'), 'utf8')).toBe('MINE\n');
    const open = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as { conflicts: { id: string }[] };
    expect(open.conflicts.map((c) => c.id)).toContain(conflict.id);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(1);
    expect((await serverEntries(server.url, 'design', other))['lost.md']).toBe('TEAM\n');
    // The team's text put in the file by hand: keeping it goes through.
    await fs.writeFile(path.join(team, 'lost.md'), 'TEAM\n');
    expect((await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server'])).code).toBe(0);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
  });

  it("resolve --keep server after an overlapping conflict whose partial merge is held back (a secret): the team's version is written and stays, nothing pushed", async () => {
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    const other = (await issueToken(store, 'design', 'doreen')).token;
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const token = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`;
    const b = 'a\nb\nc\nd\ne\nf\ng\n';
    const s = 'TEAM\nb\nc\nd\ne\nf\ng\n';
    const m = `MINE\nb\nc\nd\ne\nf\ntoken ${token}\n`;
    await fs.writeFile(path.join(team, 'partial.md'), b);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    const r = await fetch(`${server.url}/v2/teams/design/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pushId: 'cli-test-keepfix-s3', entries: { 'partial.md': { content: s, base: sha(b) } } }),
    });
    expect(r.status).toBe(200);
    await fs.writeFile(path.join(team, 'partial.md'), m);
    // The first line overlaps: a conflict; the pull writes the team's with your last line (which overlaps nothing), and its push is held back.
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(1);
    expect(await fs.readFile(path.join(team, 'partial.md'), 'utf8')).toBe(`TEAM\nb\nc\nd\ne\nf\ntoken ${token}\n`);
    expect((await serverEntries(server.url, 'design', other))['partial.md']).toBe(s);
    const listed = JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
      conflicts: { id: string; key: string }[];
    };
    const conflict = listed.conflicts.find((c) => c.key === 'partial.md')!;
    // Before: exit 2, "changed since the conflict was opened", however often it was looked at again.
    const kept = await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server']);
    expect(kept.err).toBe('');
    expect(kept.code).toBe(0);
    expect(kept.out).toContain("Resolved team/partial.md: the team's version stays.");
    expect(await fs.readFile(path.join(team, 'partial.md'), 'utf8')).toBe(s);
    const after = JSON.parse((await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json'])).out) as { push: { uploaded: string[] } };
    expect(after.push.uploaded).toEqual([]);
    expect((await serverEntries(server.url, 'design', other))['partial.md']).toBe(s);
    // Its undo puts yours back byte for byte.
    const undo = /undo with: (memdir undo -work-app [0-9a-f]{10})/.exec(kept.out)![1]!;
    expect((await memdir([...undo.split(' ').slice(1), '--home', home])).code).toBe(0);
    expect(await fs.readFile(path.join(team, 'partial.md'), 'utf8')).toBe(m);
    await fs.writeFile(path.join(team, 'partial.md'), s);
    expect((await memdir(['team', 'resolve', conflict.id, '--project', '-work-app', '--home', home, '--keep', 'server'])).code).toBe(0);
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
  });

  it('an overlapping edit: conflicts shows the three-way proposal; resolve --keep merged --file writes and pushes the edited merge', async () => {
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    // In step with the team first, then two edits of the same line: one here, one by another member.
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    await fs.writeFile(path.join(team, 'project_api.md'), 'Cutover: Monday.\nOwner: ann.\n');
    expect((await memdir(['team', 'sync', '--project', '-work-app', '--home', home])).code).toBe(0);
    const other = (await issueToken(store, 'design', 'dolores')).token;
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const pushed = await fetch(`${server.url}/v2/teams/design/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        pushId: 'cli-test-push-0000001',
        entries: { 'project_api.md': { content: 'Cutover: Tuesday.\nOwner: ann.\n', base: sha('Cutover: Monday.\nOwner: ann.\n') } },
      }),
    });
    expect(pushed.status).toBe(200);
    await fs.writeFile(path.join(team, 'project_api.md'), 'Cutover: Wednesday.\nOwner: ann.\n');
    const synced = await memdir(['team', 'sync', '--project', '-work-app', '--home', home]);
    expect(synced.code).toBe(1);
    expect(synced.out).toContain("Conflict: team/project_api.md — your changes and the team's overlap");

    const [conflict] = (
      JSON.parse((await memdir(['team', 'conflicts', '--project', '-work-app', '--home', home, '--json'])).out) as {
        conflicts: { id: string; proposal: string; overlaps: number }[];
      }
    ).conflicts;
    expect(conflict!.overlaps).toBe(1);
    expect(conflict!.proposal).toBe('<<<<<<< mine (kept here)\nCutover: Wednesday.\n=======\nCutover: Tuesday.\n>>>>>>> team (dolores)\nOwner: ann.\n');
    // The next sync says why it exits 1: the conflict is still open, and where to see it.
    const again = await memdir(['team', 'sync', '--project', '-work-app', '--home', home]);
    expect(again.code).toBe(1);
    expect(again.out).toContain('1 conflict is still open (team/project_api.md): see memdir team conflicts --project -work-app');
    // A merged text that adds a secret neither side held is refused, nothing written, until --allow names it.
    const token = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`;
    await fs.writeFile(path.join(root, 'secret.md'), `Cutover: Wednesday.\nOwner: ann, token ${token}.\n`);
    const refused = await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'merged', '--file', 'secret.md']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/Nothing was saved: team\/project_api\.md would hold a GitHub token \(ghp_\*+\) at line 2 \[fingerprint [0-9a-f]{16}\]/);
    expect(refused.err).toMatch(/run again with --allow [0-9a-f]{16} to write it anyway/);
    expect(await fs.readFile(path.join(team, 'project_api.md'), 'utf8')).not.toContain(token);
    // A value --keep does not know is named as such.
    const ours = await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'ours']);
    expect(ours.code).toBe(2);
    expect(ours.err).toContain('--keep "ours" is not one of mine, server, both or merged');
    // Without a file: the refusal says what to do with the markers.
    const bare = await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'merged']);
    expect(bare.err).toContain('delete the <<<<<<<, ======= and >>>>>>> lines');
    // The proposal passed as it comes still holds the markers: refused, nothing written or pushed.
    await fs.writeFile(path.join(root, 'proposal.md'), conflict!.proposal);
    const unedited = await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'merged', '--file', 'proposal.md']);
    expect(unedited.code).toBe(2);
    expect(unedited.err).toContain('The merged text of team/project_api.md still holds a conflict marker on line 1 ("<<<<<<< mine (kept here)")');
    expect((await serverEntries(server.url, 'design', other))['project_api.md']).toBe('Cutover: Tuesday.\nOwner: ann.\n');
    // A file that is no memory (binary here) is refused as it is read (review x4 F1).
    await fs.writeFile(path.join(root, 'bin.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    const binary = await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'merged', '--file', 'bin.md']);
    expect(binary).toMatchObject({ code: 2, err: expect.stringContaining('as the merged text: it is a binary file, not text; nothing was written') });
    await fs.writeFile(path.join(root, 'merged.md'), 'Cutover: Wednesday (moved from Tuesday).\nOwner: ann.\n');
    const resolved = await memdir(['team', 'resolve', conflict!.id, '--project', '-work-app', '--home', home, '--keep', 'merged', '--file', 'merged.md']);
    expect(resolved).toMatchObject({ code: 0, out: expect.stringContaining('Resolved team/project_api.md: the merge is written.') });
    expect((await serverEntries(server.url, 'design', other))['project_api.md']).toBe('Cutover: Wednesday (moved from Tuesday).\nOwner: ann.\n');
  });
});

describe('memdir team: times and sentences that are true (review x3 F4)', () => {
  it('a sync that finds nothing new moves "last pull"; with a revoked token, the push waits for a new connection and says so', async () => {
    const args = ['--project', '-work-app', '--home', home];
    const token = (await issueToken(store, 'platform', 'rita')).token;
    await memdir(['team', 'connect', ...args, '--server', server.url, '--team', 'platform', '--token-stdin'], { stdin: `${token}\n` });
    await memdir(['team', 'sync', ...args]);
    const lastPull = async () => (JSON.parse((await memdir(['team', 'status', ...args, '--json'])).out) as { lastPullAt: string | null }).lastPullAt;
    const before = await lastPull();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await memdir(['team', 'sync', ...args])).out).toContain('Pull: nothing new from platform');
    const after = await lastPull();
    expect(after).not.toBeNull();
    expect(after! > before!).toBe(true);

    await revokeToken(store, token);
    await fs.appendFile(path.join(home, 'projects', '-work-app', 'memory', 'team', 'project_api.md'), 'Owner: rita.\n');
    const r = await memdir(['team', 'sync', ...args]);
    expect(r.code).toBe(2);
    expect(r.out).not.toContain('go up at the next sync');
    expect(r.out).toContain('your changes are kept (1 file(s) wait) and go up once you connect again with a new token');
  });

  it('retire empties a team memory and takes its pointers out of both indexes, one entry the printed `memdir undo` takes back; private and already retired refused', async () => {
    const mem = path.join(home, 'projects', '-work-retire', 'memory');
    await fs.mkdir(path.join(mem, 'team'), { recursive: true });
    const text = '---\nname: Ports\ndescription: dev ports\ntype: reference\n---\n\nAPI on 8080.\n';
    await fs.writeFile(path.join(mem, 'team', 'reference_ports.md'), text);
    await fs.writeFile(path.join(mem, 'team', 'MEMORY.md'), '- [Ports](reference_ports.md) — dev ports\n');
    await fs.writeFile(path.join(mem, 'MEMORY.md'), '- [Ports](team/reference_ports.md) — dev ports\n- [Me](user_me.md) — me\n');
    await fs.writeFile(path.join(mem, 'user_me.md'), '---\nname: Me\ndescription: me\ntype: user\n---\n\nMe.\n');
    // Shared first: the server holds it (a team of its own, so no other test's files come down).
    await createTeam(store, 'retirees');
    const token = (await issueToken(store, 'retirees', 'rita')).token;
    const connect = ['team', 'connect', '--project', '-work-retire', '--home', home, '--server', server.url, '--team', 'retirees', '--token-stdin'];
    expect(await memdir(connect, { stdin: `${token}\n` })).toMatchObject({ code: 0 });
    expect(await memdir(['team', 'sync', '--project', '-work-retire', '--home', home])).toMatchObject({ code: 0 });
    const r = await memdir(['team', 'retire', 'team/reference_ports.md', '--project', '-work-retire', '--home', home, '--json']);
    expect(r).toMatchObject({ code: 0, err: '' });
    const json = JSON.parse(r.out) as { file: string; rev: string; undo: string };
    expect(json).toMatchObject({ file: 'team/reference_ports.md', rev: expect.any(String), undo: expect.stringMatching(/^memdir undo \S+ [0-9a-f]{10}$/) });
    expect(await fs.readFile(path.join(mem, 'team', 'reference_ports.md'), 'utf8')).toBe('');
    expect(await fs.readFile(path.join(mem, 'team', 'MEMORY.md'), 'utf8')).toBe('');
    expect(await fs.readFile(path.join(mem, 'MEMORY.md'), 'utf8')).toBe('- [Me](user_me.md) — me\n');
    expect(await memdir(['team', 'retire', 'reference_ports.md', '--project', '-work-retire', '--home', home])).toMatchObject({
      code: 2,
      err: expect.stringContaining('team/reference_ports.md is already retired'),
    });
    const [, , dir, rev] = json.undo.split(' ');
    expect(await memdir(['undo', dir!, rev!, '--home', home])).toMatchObject({ code: 0 });
    expect(await fs.readFile(path.join(mem, 'team', 'reference_ports.md'), 'utf8')).toBe(text);
    expect(await fs.readFile(path.join(mem, 'MEMORY.md'), 'utf8')).toBe('- [Ports](team/reference_ports.md) — dev ports\n- [Me](user_me.md) — me\n');
    expect(await memdir(['team', 'retire', 'user_me.md', '--project', '-work-retire', '--home', home])).toMatchObject({
      code: 2,
      err: expect.stringContaining('team/user_me.md does not exist'),
    });
  });

  it('retire refuses a team memory the server never held, as the app offers no Retire for it: deleting it is enough, and the sentence says how', async () => {
    const mem = path.join(home, 'projects', '-work-unshared', 'memory');
    await fs.mkdir(path.join(mem, 'team'), { recursive: true });
    const text = '---\nname: Draft\ndescription: not shared yet\ntype: project\n---\n\nDraft.\n';
    await fs.writeFile(path.join(mem, 'team', 'project_draft.md'), text);
    await fs.writeFile(path.join(mem, 'team', 'MEMORY.md'), '- [Draft](project_draft.md) — not shared yet\n');
    const r = await memdir(['team', 'retire', 'team/project_draft.md', '--project', '-work-unshared', '--home', home]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('team/project_draft.md was never shared with the team (the sync server does not hold it)');
    expect(r.err).toContain('deleting it is enough');
    expect(r.err).toContain(path.join(mem, 'team', 'project_draft.md'));
    expect(r.err).not.toMatch(/ENOENT|scope-refused|MemoryError/);
    // Nothing written: its text and its pointer are as they were.
    expect(await fs.readFile(path.join(mem, 'team', 'project_draft.md'), 'utf8')).toBe(text);
    expect(await fs.readFile(path.join(mem, 'team', 'MEMORY.md'), 'utf8')).toBe('- [Draft](project_draft.md) — not shared yet\n');
    // A missing one is still named as missing, not as never shared.
    expect(await memdir(['team', 'retire', 'nope.md', '--project', '-work-unshared', '--home', home])).toMatchObject({
      code: 2,
      err: expect.stringContaining('team/nope.md does not exist'),
    });
  });
});
