// Team sync between machines on one real server: push and pull, deletions, conflicts and their resolution, what is
// never uploaded (secrets, links, bad names), older clients, another team's token. Races with editors and other syncs
// are in team-sync-races.test.ts; servers that fail or disagree on the time in team-sync-unreliable.test.ts.
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTeam, issueToken } from '../../server/admin.js';
import { listHistory, readAtRevision } from '../history/history.js';
import { useSharedTeamServer } from './test-support/shared-server.js';
import { makeClient, serverEntries } from './test-support/team-fixture.js';

// A fake AWS pair, the shape the preset recognises (AKIA + 16; 40 base64 characters).
const AWS_KEY = ['AKIA', 'Z7QW', 'PLMN', 'TRXV', 'K4D2'].join('');
const AWS_SECRET = ['wJalrXUt', 'nFEMI/K7', 'MDENG/bP', 'xRfiCYzQ', 'h3s8Lk2N'].join('');

const h = useSharedTeamServer();
const { pair, keyOf } = h;

describe('team sync between two machines', () => {
  it('pushes a new file, the other machine pulls it; a second sync is a 304 with no body, no hashing and no push', async () => {
    const [a, b] = await pair();
    const key = keyOf('deploy');
    await a.write(key, '# Deploys\nFreeze on Fridays.\n');
    const pushed = await a.sync.sync();
    expect(pushed.error).toBeNull();
    expect(pushed.push.uploaded).toEqual([key]);
    const pulled = await b.sync.sync();
    expect(pulled.pull.written).toContain(key);
    expect(await b.read(key)).toBe('# Deploys\nFreeze on Fridays.\n');

    // Nothing changed anywhere: back-date the files past the racy window, sync once to settle the cache.
    const old = new Date(Date.now() - 60_000);
    for (const f of await fs.readdir(b.teamDir)) await fs.utimes(path.join(b.teamDir, f), old, old);
    await b.sync.sync();
    b.requests.length = 0;
    const idle = await b.sync.sync();
    expect(idle.error).toBeNull();
    expect(idle.pull.status).toBe(304);
    expect(idle.bytesHashed).toBe(0);
    expect(idle.filesHashed).toBe(0);
    expect(b.requests).toEqual([expect.objectContaining({ method: 'GET', status: 304, bytesIn: 0 })]);
  });

  it('is finished when a sync returns: its lock is gone from the data folder, which can be removed at once', async () => {
    const [a] = await pair();
    await a.write(keyOf('lock'), '# Lock\n');
    const listing = (): string[] => (fsSync.readdirSync(a.dataDir, { recursive: true }) as string[]).sort();
    for (let i = 0; i < 3; i++) {
      expect((await a.sync.sync()).error).toBeNull();
      const atReturn = listing();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(atReturn).toEqual(listing());
      expect(atReturn.filter((f) => f.includes('.lock'))).toEqual([]);
    }
  });

  it('does not propagate a deletion: the server keeps the file, the next pull brings it back', async () => {
    const [a, b] = await pair();
    const key = keyOf('oncall');
    await a.write(key, 'Rotation: weekly.\n');
    await a.sync.sync();
    await b.sync.sync();
    await fs.rm(path.join(a.teamDir, key));
    const afterDelete = await a.sync.sync();
    expect(afterDelete.error).toBeNull();
    // A full pull restores it at once: the file is back, the server never lost it.
    expect(afterDelete.pull.full).toBe(true);
    expect(await a.read(key)).toBe('Rotation: weekly.\n');
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[key]).toBe('Rotation: weekly.\n');
    expect(await b.read(key)).toBe('Rotation: weekly.\n');
  });

  it('keeps an unpushed local edit as a conflict (and in history) when the server changed the same file; take mine pushes it', async () => {
    const [a, b] = await pair();
    const key = keyOf('api');
    await a.write(key, 'v1\n');
    await a.sync.sync();
    await b.sync.sync();
    await a.write(key, 'v2 from a\n');
    await b.write(key, 'v2 from b — never pushed\n');
    expect((await a.sync.sync()).push.uploaded).toEqual([key]);

    const pulled = await b.sync.sync();
    expect(pulled.pull.conflicts).toEqual([key]);
    // Server wins on disk…
    expect(await b.read(key)).toBe('v2 from a\n');
    // …and nothing is lost: the conflict holds b's version, and so does history.
    const status = await b.sync.inspect();
    expect(status.conflicts).toHaveLength(1);
    const conflict = status.conflicts[0]!;
    expect(conflict).toMatchObject({ key, status: 'open', serverUpdatedBy: 'member-0' });
    const detail = await b.sync.conflictDetail(conflict.id);
    expect(detail.mine).toBe('v2 from b — never pushed\n');
    expect(detail.theirs).toBe('v2 from a\n');
    expect(conflict.localRev).not.toBeNull();
    expect(await readAtRevision(b.memoryDir, conflict.localRev!, `team/${key}`, { dataDir: b.dataDir })).toBe('v2 from b — never pushed\n');
    const history = await listHistory(b.memoryDir, { dataDir: b.dataDir, limit: 3 });
    // Where mine is in History, as a person finds it there (the change and when), for the merge editor's words.
    const keptIn = history.find((h) => h.rev === conflict.localRev)!;
    expect(detail.keptIn).toEqual({ summary: keptIn.summary, time: keptIn.time });
    expect(history[0]).toMatchObject({ source: 'sync', summary: expect.stringContaining('Pull from team platform') });

    // A merge that was based on an older view of the file is refused, nothing written.
    await expect(b.sync.resolve(conflict.id, 'merge', { text: 'x', theirsSha: '0'.repeat(64) })).rejects.toThrow(/changed since/);
    const resolved = await b.sync.resolve(conflict.id, 'mine', { theirsSha: detail.theirsSha });
    expect(resolved.conflict).toMatchObject({ status: 'resolved', resolution: 'mine' });
    expect(resolved.report?.push.uploaded).toEqual([key]);
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[key]).toBe('v2 from b — never pushed\n');
    await a.sync.sync();
    expect(await a.read(key)).toBe('v2 from b — never pushed\n');
    expect((await b.sync.inspect()).conflicts).toHaveLength(0);
  });

  it('names a conflict on a key whose name holds a secret masked wherever it is shown: report, status, both sides, resolve, history', async () => {
    const [a] = await pair();
    // A name someone put on the team on purpose (its token allowed where it was uploaded): the server takes any key.
    const token = ['ghp_', 'Cf5Nd2Qs', 'Tk8Lb3Xw', 'Vr6Mc1Zp', 'Ey9Ug4Ja', 'm7Ho'].join('');
    const key = keyOf(`reference_${token}`);
    const put = async (content: string) => {
      const url = `${h.server.url}/v1/teams/${h.server.team}/entries`;
      const authorization = `Bearer ${h.server.tokens[0]!}`;
      const etag = (await fetch(url, { headers: { authorization } })).headers.get('etag')!;
      const r = await fetch(url, {
        method: 'PUT',
        headers: { authorization, 'content-type': 'application/json', 'if-match': etag },
        body: JSON.stringify({ entries: { [key]: content } }),
      });
      expect(r.status).toBe(200);
    };
    await put('v1\n');
    await a.sync.sync();
    expect(await a.read(key)).toBe('v1\n');
    await a.write(key, 'v2 from a — never pushed\n');
    await put('v2 from the team\n');

    const masked = expect.stringMatching(/^t\d+-reference_ghp_\*+\.md$/);
    const pulled = await a.sync.sync();
    expect(pulled.pull.conflicts).toEqual([masked]);
    const status = await a.sync.inspect();
    expect(status.conflicts).toEqual([expect.objectContaining({ key: masked, status: 'open' })]);
    const detail = await a.sync.conflictDetail(status.conflicts[0]!.id);
    expect(detail.conflict.key).toEqual(masked);
    const resolved = await a.sync.resolve(detail.conflict.id, 'both', { theirsSha: detail.theirsSha });
    expect(resolved.conflict).toMatchObject({ key: masked, status: 'resolved' });
    expect((await a.sync.inspect()).resolved).toEqual([expect.objectContaining({ key: masked })]);
    // Written under its real name all the same; no word shown or recorded gives the token away.
    expect(await a.read(key)).toContain('v2 from a — never pushed');
    const history = await listHistory(a.memoryDir, { dataDir: a.dataDir, limit: 5 });
    expect(history.map((e) => e.summary)).toContainEqual(
      expect.stringMatching(/^Resolve the conflict on team\/t\d+-reference_ghp_\*+\.md: kept both versions/),
    );
    const shown = JSON.stringify({ pulled, status, conflict: detail.conflict, resolved: resolved.conflict, history: history.map((e) => e.summary) });
    expect(shown).not.toContain(token.slice(4));
  });

  it('names a refused key whose name holds a secret masked: the report, its reason and the alert', async () => {
    const [a] = await pair();
    const token = ['ghp_', 'Qa7Nd2Ws', 'Tk4Lb8Xe', 'Vr3Mc6Zr', 'Ey5Ug1Jt', 'p2Ho'].join('');
    const folder = `${keyOf('infra').replace(/\.md$/, '')}_${token}`;
    const key = `${folder}/notes.md`;
    const url = `${h.server.url}/v1/teams/${h.server.team}/entries`;
    const authorization = `Bearer ${h.server.tokens[0]!}`;
    const etag = (await fetch(url, { headers: { authorization } })).headers.get('etag')!;
    const put = await fetch(url, {
      method: 'PUT',
      headers: { authorization, 'content-type': 'application/json', 'if-match': etag },
      body: JSON.stringify({ entries: { [key]: 'v1\n' } }),
    });
    expect(put.status).toBe(200);
    // The key's folder here is a link leading out of the team folder: the pull refuses the key.
    const outside = await fs.mkdtemp(path.join(path.dirname(a.teamDir), 'outside-'));
    await fs.mkdir(a.teamDir, { recursive: true });
    await fs.symlink(outside, path.join(a.teamDir, folder));

    const pulled = await a.sync.sync();
    expect(pulled.pull.refused).toEqual([
      { key: expect.stringMatching(/-infra_ghp_\*+\/notes\.md$/), reason: expect.stringMatching(/-infra_ghp_\*+ is a symbolic link/) },
    ]);
    const alerts = (await a.alerts.list()).alerts.filter((x) => x.title === 'The sync server sent entries Memdir refused');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toMatch(/-infra_ghp_\*+ is a symbolic link/);
    expect(await fs.readdir(outside)).toEqual([]);
    expect(JSON.stringify({ pulled, alerts })).not.toContain(token.slice(4));
  });

  it('a merged text is written, recorded and pushed', async () => {
    const [a, b] = await pair();
    const key = keyOf('merge');
    await a.write(key, 'base\n');
    await a.sync.sync();
    await b.sync.sync();
    await a.write(key, 'base\nfrom a\n');
    await b.write(key, 'base\nfrom b\n');
    await a.sync.sync();
    await b.sync.sync();
    const [conflict] = (await b.sync.inspect()).conflicts;
    const detail = await b.sync.conflictDetail(conflict!.id);
    const merged = await b.sync.resolve(conflict!.id, 'merge', { text: 'base\nfrom a\nfrom b\n', theirsSha: detail.theirsSha });
    expect(merged.rev).not.toBeNull();
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[key]).toBe('base\nfrom a\nfrom b\n');
    const history = await listHistory(b.memoryDir, { dataDir: b.dataDir, limit: 5 });
    expect(history.some((h) => h.summary.includes('merged both versions'))).toBe(true);
  });

  it('keeping both sides of a conflict with no common base keeps every line of both once, as the merge editor starts', async () => {
    const [a, b] = await pair();
    const key = keyOf('nobase');
    const head = '---\nname: deploy\ndescription: how we deploy\ntype: project\n---\n\n';
    // Both members had the file before either synced it: no version both agreed on.
    await a.write(key, `${head}Freeze on Fridays.\nTag every release.\n`);
    await b.write(key, `${head}Freeze on Fridays.\nTag every release.\nAsk #ops first.\n`);
    await a.sync.sync();
    expect((await b.sync.sync()).pull.conflicts).toEqual([key]);
    const [conflict] = (await b.sync.inspect()).conflicts;
    const detail = await b.sync.conflictDetail(conflict!.id);
    expect(detail.base).toBeNull();
    const union = `${head}Freeze on Fridays.\nTag every release.\nAsk #ops first.\n`;
    expect(detail.both).toBe(union);
    expect(detail.bothOverlaps).toEqual([]);
    const kept = await b.sync.resolve(conflict!.id, 'both', { theirsSha: detail.theirsSha });
    expect(kept.report?.push.uploaded).toEqual([key]);
    expect(await b.read(key)).toBe(union);
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[key]).toBe(union);
  });

  it('a merged text that still holds conflict markers is refused with the line, nothing written or pushed', async () => {
    const [a, b] = await pair();
    const key = keyOf('markers');
    await a.write(key, 'Title\n=====\nbase\n');
    await a.sync.sync();
    await b.sync.sync();
    await a.write(key, 'Title\n=====\nfrom a\n');
    await b.write(key, 'Title\n=====\nfrom b\n');
    await a.sync.sync();
    await b.sync.sync();
    const [conflict] = (await b.sync.inspect()).conflicts;
    const detail = await b.sync.conflictDetail(conflict!.id);
    expect(detail.overlaps).toBe(1);
    expect(detail.proposal).toContain('<<<<<<< mine (kept here)');
    // What the merge editor starts from: both sides, mine first, on lines 3 and 4 (which it marks).
    expect(detail.both).toBe('Title\n=====\nfrom b\nfrom a\n');
    expect(detail.bothOverlaps).toEqual([{ from: 3, to: 4 }]);
    // The proposal as it comes: markers on lines 3, 5 and 7.
    await expect(b.sync.resolve(conflict!.id, 'merge', { text: detail.proposal!, theirsSha: detail.theirsSha })).rejects.toThrow(
      `The merged text of team/${key} still holds a conflict marker on line 3 ("<<<<<<< mine (kept here)")`,
    );
    expect(await b.read(key)).toBe('Title\n=====\nfrom a\n');
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[key]).toBe('Title\n=====\nfrom a\n');
    expect((await b.sync.inspect()).conflicts).toHaveLength(1);
    // A setext heading's underline is not a marker: the edited merge goes through.
    const merged = await b.sync.resolve(conflict!.id, 'merge', { text: 'Title\n=======\nfrom a\nfrom b\n', theirsSha: detail.theirsSha });
    expect(merged.report?.push.uploaded).toEqual([key]);
  });

  it('a file holding a secret is not uploaded and raises an alert; once allowed it goes up', async () => {
    const [a] = await pair();
    const key = keyOf('aws');
    await a.write(key, `Staging deploy uses\nAWS_ACCESS_KEY_ID=${AWS_KEY}\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\n`);
    await a.write(keyOf('clean'), 'No secrets here.\n');
    const report = await a.sync.sync();
    expect(report.push.uploaded).toEqual([keyOf('clean')]);
    expect(report.waiting).toEqual([expect.objectContaining({ key, reason: 'secret' })]);
    // What to do names where it can be done: the CLI has no redact or allow, the app's Alerts page has both.
    expect(report.waiting[0]!.detail).toMatch(
      /^team\/.* was not uploaded to the team: .*\. Take it out of the file \(the app's Alerts page does it in one click\), or allow it for team sync \(any file of this project's team memory\) if it is safe to share\.$/,
    );
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[key]).toBeUndefined();
    const { alerts } = await a.alerts.list();
    const alert = alerts.find((x) => x.kind === 'secret' && x.file === `team/${key}`)!;
    expect(alert.status).toBe('open');
    expect(alert.findings.length).toBeGreaterThan(0);
    for (const f of alert.findings) {
      expect(f.match).not.toContain(AWS_SECRET);
      expect(f.match).not.toContain(AWS_KEY);
    }
    // Syncing again does not announce it again.
    expect((await a.sync.sync()).push.uploaded).toEqual([]);
    expect((await a.alerts.list()).alerts.filter((x) => x.file === `team/${key}`)).toHaveLength(1);

    for (const f of alert.findings) await a.alerts.allow(alert.id, f.fingerprint, 'tester', 'documented example keys');
    const after = await a.sync.sync();
    expect(after.push.uploaded).toEqual([key]);
    expect((await a.alerts.list()).alerts.find((x) => x.id === alert.id)!.status).toBe('resolved');
  });

  it('holds back a "user" memory put in the team folder (R-TYPES: always private), with its reason, and the other machine never gets it', async () => {
    const [a, b] = await pair();
    const key = keyOf('me');
    await a.write(key, '---\nname: Me\ndescription: Who I am\ntype: user\n---\nI am a senior engineer, prefer terse answers.\n');
    await a.write(keyOf('runbook'), '---\nname: Runbook\ndescription: How we deploy\ntype: project\n---\nDeploy on Tuesdays.\n');
    const report = await a.sync.sync();
    expect(report.push.uploaded).toEqual([keyOf('runbook')]);
    const held = report.waiting.find((w) => w.key === key);
    expect(held?.reason).toBe('user-memory');
    expect(held?.detail).toMatch(/"user" memory.*stays private.* not uploaded to the team/);
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[key]).toBeUndefined();
    await b.sync.sync();
    expect(await b.read(key)).toBeNull();
    // Retyped as a project memory, it goes up.
    await a.write(key, '---\nname: Me\ndescription: Who is on the team\ntype: project\n---\nAlice leads deploys.\n');
    expect((await a.sync.sync()).push.uploaded).toEqual([key]);
  });

  it('refuses a symlink to ~/.ssh in the team folder: never followed, never written through, alerted', async () => {
    const [a, b] = await pair();
    const ssh = path.join(h.root, `fake-home-${h.n}`, '.ssh');
    await fs.mkdir(ssh, { recursive: true });
    await fs.writeFile(path.join(ssh, 'id_ed25519.md'), 'PRIVATE KEY\n');
    await fs.symlink(ssh, path.join(a.teamDir, 'keys'));
    await fs.symlink(path.join(ssh, 'id_ed25519.md'), path.join(a.teamDir, keyOf('linked')));
    const report = await a.sync.sync();
    expect(report.error).toBeNull();
    expect(report.push.uploaded).toEqual([]);
    expect(report.waiting.map((w) => [w.key, w.reason]).sort()).toEqual(
      [
        [keyOf('linked'), 'symlink'],
        ['keys', 'symlink'],
      ].sort(),
    );
    const entries = await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!);
    expect(Object.keys(entries).some((k) => k.startsWith('keys/') || k === keyOf('linked'))).toBe(false);
    const security = (await a.alerts.list()).alerts.filter((x) => x.kind === 'security' && x.status === 'open');
    expect(security.map((x) => x.file).sort()).toEqual([`team/${keyOf('linked')}`, 'team/keys'].sort());

    // The other machine pushes keys/id_ed25519.md: a's pull must not write through the link.
    await b.write('keys/id_ed25519.md', 'overwritten by the team\n');
    expect((await b.sync.sync()).push.uploaded).toContain('keys/id_ed25519.md');
    const pulled = await a.sync.sync();
    expect(pulled.pull.refused).toEqual([expect.objectContaining({ key: 'keys/id_ed25519.md', reason: expect.stringContaining('symbolic link') })]);
    expect(await fs.readFile(path.join(ssh, 'id_ed25519.md'), 'utf8')).toBe('PRIVATE KEY\n');
    expect(await fs.readdir(ssh)).toEqual(['id_ed25519.md']);
    // Removing the link resolves its alert.
    await fs.rm(path.join(a.teamDir, 'keys'));
    await a.sync.sync();
    expect((await a.alerts.list()).alerts.find((x) => x.file === 'team/keys')!.status).toBe('resolved');
  });

  it('a team folder that is itself a link stops the sync with a security alert', async () => {
    const [a] = await pair();
    const elsewhere = path.join(h.root, `elsewhere-${h.n}`);
    await fs.mkdir(elsewhere);
    await fs.rm(a.teamDir, { recursive: true });
    await fs.symlink(elsewhere, a.teamDir);
    const report = await a.sync.sync();
    expect(report.error).toMatchObject({ code: 'unsafe-team-dir', message: expect.stringContaining('symbolic link') });
    expect(await fs.readdir(elsewhere)).toEqual([]);
    expect((await a.alerts.list()).alerts.some((x) => x.kind === 'security' && x.status === 'open')).toBe(true);
  });

  it('leaves out files that are not UTF-8, have hostile names, are binary or too large — and says why', async () => {
    const [a] = await pair();
    await a.write(keyOf('latin1'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await a.write('CON.md', 'reserved on Windows\n');
    await a.write('draft?.md', 'a question mark\n');
    await a.write('shout.MD', 'upper-case extension\n');
    await a.write(keyOf('binary'), Buffer.from('a\0b\n'));
    await a.write(keyOf('big'), 'x'.repeat(1_000_001));
    await a.write(keyOf('ok'), 'fine\n');
    const report = await a.sync.sync();
    expect(report.push.uploaded).toEqual([keyOf('ok')]);
    const reasons = Object.fromEntries(report.waiting.map((w) => [w.key, w.reason]));
    expect(reasons).toMatchObject({
      [keyOf('latin1')]: 'not-utf8',
      'CON.md': 'invalid-key',
      'draft?.md': 'invalid-key',
      'shout.MD': 'invalid-key',
      [keyOf('binary')]: 'binary',
      [keyOf('big')]: 'too-large',
    });
  });

  it('an older client (protocol 1) recovers from a replayed stale ETag: 412, refetch, recompute, push', async () => {
    h.n++;
    const a = await makeClient(h.root, `a${h.n}`, h.server, h.server.tokens[0]!, { protocol: 1 });
    const b = await makeClient(h.root, `b${h.n}`, h.server, h.server.tokens[1]!, { protocol: 1 });
    await a.write(keyOf('one'), '1\n');
    await a.sync.sync();
    const stale = (await a.sync.sync()).etag!;
    await b.write(keyOf('two'), '2\n');
    await b.sync.sync();
    // a's state goes back to the old ETag, as if a backup were restored.
    const stateFile = path.join(a.dataDir, 'team', a.sync.connection.id, 'state.json');
    const state = JSON.parse(await fs.readFile(stateFile, 'utf8')) as { etag: string };
    expect(state.etag).toBe(stale);
    await a.write(keyOf('three'), '3\n');
    const report = await a.sync.sync({ pull: false });
    expect(report.push.stale).toBe(1);
    expect(report.push.uploaded).toEqual([keyOf('three')]);
    expect(report.error).toBeNull();
    expect(await a.read(keyOf('two'))).toBe('2\n');
  });

  it("an older client (protocol 1) and a new one share a team: each sees the other's files; the new one merges over the old one's edit", async () => {
    h.n++;
    const old = await makeClient(h.root, `old${h.n}`, h.server, h.server.tokens[0]!, { protocol: 1 });
    const fresh = await makeClient(h.root, `new${h.n}`, h.server, h.server.tokens[1]!);
    const key = keyOf('mixed');
    await old.write(key, 'title\n\nold section\n\nnew section\n');
    expect((await old.sync.sync()).push.uploaded).toEqual([key]);
    expect((await fresh.sync.sync()).pull.written).toContain(key);
    await old.write(key, 'title\n\nold section, edited by the old client\n\nnew section\n');
    await fresh.write(key, 'title\n\nold section\n\nnew section, edited by the new client\n');
    expect((await old.sync.sync()).error).toBeNull();
    const merged = await fresh.sync.sync();
    expect(merged).toMatchObject({ error: null, pull: { merged: [key], conflicts: [] }, push: { uploaded: [key] } });
    const both = 'title\n\nold section, edited by the old client\n\nnew section, edited by the new client\n';
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[key]).toBe(both);
    expect((await old.sync.sync()).error).toBeNull();
    expect(await old.read(key)).toBe(both);
  });

  it('a token for another team gets a clear error and writes nothing', async () => {
    await createTeam(h.store, `other-${h.n}`);
    const other = (await issueToken(h.store, `other-${h.n}`, 'mallory')).token;
    const intruder = await makeClient(h.root, `intruder${h.n}`, h.server, other);
    await intruder.write(keyOf('x'), 'x\n');
    const report = await intruder.sync.sync();
    expect(report.error).toMatchObject({ code: 'not-found', message: expect.stringContaining('belongs to another team') });
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[keyOf('x')]).toBeUndefined();
  });
});
