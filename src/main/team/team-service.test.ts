/**
 * Team sync and alerts through the app's API (the same calls the renderer makes), against a
 * real server on loopback: connect (with every refusal a person can meet), sync, conflicts,
 * move between private and team, secret alerts with redact and allow, the debounced push
 * driven by the memory watcher, one engine per project, reconnecting to another team.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppEvent } from '../../shared/contract/events.js';
import { createPersonal, createTeam, issuePersonalToken, issueToken } from '../../server/admin.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import type { TeamStore } from '../../server/store.js';
import { createAppDispatcher } from '../api/index.js';
import type { Dispatcher } from '../api/dispatch.js';
import { AppContext } from '../app/app-context.js';
import { mergeMemories } from '../curation/index.js';
import { finishUnfinishedTurn } from '../relink/index.js';
import { bundleWorker, startWorker } from '../../../bench/kill/harness.js';
import { listHistory } from '../history/history.js';
import { FileCredentialStore } from '../settings/index.js';
import { ConnectionStore } from './connections.js';
import { disconnectTeam } from './disconnect-team.js';
import { TeamService } from './team-service.js';
import { TeamSync } from './team-sync.js';
import { AlertCenter } from './alert-center.js';
import { startServer } from '../../server/server.js';
import { waitFor } from '../core/test-support/wait-for.js';
import { serverEntries, startTestServer, type TestServer } from './test-support/team-fixture.js';

const GITHUB_TOKEN = ['ghp_', 'R8mQ2vX9', 'kL4pT7wN', 'c3bY6hJ1', 'fD5sG0aZ', 'e2Uq'].join('');
const OTHER_GITHUB_TOKEN = ['ghp_', 'Zt4Kw8Lm', 'Qp2Vn6Xr', 'Hb9Cj3Fs', 'Ya7Ud1Ge', 'o5Ti'].join('');
const NAME_GITHUB_TOKEN = ['ghp_', 'Q8wE3rT6', 'yU9iO2pA', '5sD7fG1h', 'J4kL0zX3', 'cV6b'].join('');
const ALLOWED_NAME_TOKEN = ['ghp_', 'Mx7Wq2Er', 'Lk9Tz4Pb', 'Nc3Yh8Vd', 'Gs6Ja1Fu', 'r0Oi'].join('');
const TEXT_GITHUB_TOKEN = ['ghp_', 'Bn5Rt8Yq', 'Wz2Kx7Lp', 'Dm4Hc9Vs', 'Fj1Ga6Ne', 'u3Ty'].join('');
const MOVED_NAME_TOKEN = ['ghp_', 'Hw3Nd8Qs', 'Tf6Lb1Xk', 'Vr9Mc4Zp', 'Ey2Ug7Ja', 'i5Ko'].join('');
const topic = (name: string, type: string, body: string) => `---\nname: ${name}\ndescription: ${name} in one line\ntype: ${type}\n---\n\n${body}\n`;

let root: string;
let store: TeamStore;
let server: TestServer;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-service-')));
  store = await openSqliteStore(path.join(root, 'team.sqlite'));
  server = await startTestServer(store, 3);
});
afterAll(async () => {
  await server.server.close();
  await store.close();
  await fs.rm(root, { recursive: true, force: true });
});

/**
 * A machine: a Claude Code home with one project, and the app running on it. Without `watch` its
 * team sync runs only when told: the app's own background syncs (the one set off 1.5 s after an
 * alert is allowed, redacted or renamed, the periodic one) would race a test's sync and upload
 * first what the test asserts its own sync sent — or fire into the next test. With `watch`, the
 * app as it runs: the background syncs are what those tests look at.
 */
async function machine(name: string, watch = false): Promise<{ ctx: AppContext; api: Dispatcher; memoryDir: string; events: AppEvent[] }> {
  const home = path.join(root, name, 'home');
  const memoryDir = path.join(home, 'projects', '-work-app', 'memory');
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
  await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Me](user_me.md) — who I am\n- [Deploys](project_deploys.md) — deploy rules\n');
  await fs.writeFile(path.join(memoryDir, 'user_me.md'), topic('Me', 'user', 'Backend engineer.'));
  await fs.writeFile(path.join(memoryDir, 'project_deploys.md'), topic('Deploys', 'project', 'No deploys on Fridays.'));
  const ctx = await AppContext.create({
    homeFlag: home,
    dataDir: path.join(root, name, 'data'),
    env: {},
    watch,
    ...(watch ? {} : { team: { onlyWhenTold: true } }),
  });
  const events: AppEvent[] = [];
  ctx.events.subscribe((e) => events.push(e));
  return { ctx, api: createAppDispatcher(ctx), memoryDir, events };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `work`, or a failure naming what did not finish within `ms`. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([work, sleep(ms).then(() => Promise.reject(new Error(`${what} did not finish within ${ms} ms`)))]);
}

/**
 * The real fetch with a gate in front of the entries requests (pulls and pushes): while held,
 * they wait there until released or until their own abort signal fires, so a test can look
 * at a sync that is in the middle of talking to the server.
 */
function gatedFetch() {
  let holding = false;
  let open: () => void = () => undefined;
  let opened = Promise.resolve();
  let arrive: () => void = () => undefined;
  let arrival = Promise.resolve();
  const aborted = (signal: AbortSignal | null | undefined) =>
    new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
  return {
    /** Hold the entries requests from now on; resolves when the first one waits at the gate. */
    hold(): Promise<void> {
      holding = true;
      opened = new Promise<void>((resolve) => (open = resolve));
      arrival = new Promise<void>((resolve) => (arrive = resolve));
      return arrival;
    },
    release(): void {
      holding = false;
      open();
    },
    fetch: (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      if (holding && String(input instanceof Request ? input.url : input).includes('/entries')) {
        arrive();
        await Promise.race([opened, aborted(init?.signal)]);
      }
      return fetch(input, init);
    }) as typeof fetch,
  };
}

/** A file name as a sync report shows it: the GitHub token in it masked (its first 4 characters kept). */
const shownName = (name: string): string => name.replace(/ghp_[A-Za-z0-9]{36}/, `ghp_${'*'.repeat(12)}`);

async function ok<T>(api: Dispatcher, name: string, input: unknown): Promise<T> {
  const r = await api.call(name, input);
  if (!r.ok) throw new Error(`${name}: ${r.error.code}: ${r.error.message}`);
  return r.result as T;
}

describe('team sync in the app', () => {
  let a: Awaited<ReturnType<typeof machine>>;
  let b: Awaited<ReturnType<typeof machine>>;
  beforeAll(async () => {
    a = await machine('a');
    b = await machine('b');
  });
  afterAll(async () => {
    await a.ctx.close();
    await b.ctx.close();
  });

  it('refuses a bad connection in words: not a token, another team, plain http to another host, no server', async () => {
    await createTeam(store, 'other');
    const otherToken = (await issueToken(store, 'other', 'x')).token;
    const base = { dir: '-work-app', server: server.url, team: server.team };
    expect(await a.api.call('team.connect', { ...base, token: 'hunter2' })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', message: expect.stringContaining('not a Memdir team token') },
    });
    expect(await a.api.call('team.connect', { ...base, token: otherToken })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', message: 'This token belongs to team "other", not "platform". Use a token issued for platform, or connect to other.' },
    });
    // A token of someone's personal space never reaches a team: said as such, not as a team named "~ann".
    await createPersonal(store, 'ann');
    const personalToken = (await issuePersonalToken(store, 'ann', 'laptop')).token;
    expect(await a.api.call('team.connect', { ...base, token: personalToken })).toMatchObject({
      ok: false,
      error: {
        code: 'invalid-input',
        message:
          'This is a token of ann\'s personal space; team sync needs a token of team "platform" (memdir server admin issue-token platform --member <name>).',
      },
    });
    expect(await a.api.call('team.connect', { ...base, server: 'http://sync.example.com', token: server.tokens[0] })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', message: expect.stringContaining('unencrypted') },
    });
    expect(await a.api.call('team.connect', { ...base, server: 'http://127.0.0.1:1', token: server.tokens[0] })).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: expect.stringContaining('Cannot reach the sync server') },
    });
    expect(await a.api.call('team.connect', { ...base, team: 'Not A Team', token: server.tokens[0] })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input' },
    });
    expect((await ok<{ connection: unknown; state: string }>(a.api, 'team.status', { dir: '-work-app' })).state).toBe('not-connected');
  });

  it('connects: the token goes to the credential store only, never into the connection file or the status', async () => {
    const status = await ok<{ connection: { member: string; tokenStored: boolean; tokenId: string }; state: string }>(a.api, 'team.connect', {
      dir: '-work-app',
      server: server.url,
      team: server.team,
      token: server.tokens[0],
    });
    expect(status.connection).toMatchObject({ member: 'member-0', tokenStored: true });
    expect(status.state).toBe('synced');
    expect(JSON.stringify(status)).not.toContain(server.tokens[0]!.slice(21));
    const connections = await fs.readFile(path.join(a.ctx.dataDir, 'team', 'connections.json'), 'utf8');
    expect(connections).not.toContain(server.tokens[0]!.slice(21));
    expect(await a.ctx.credentials.list()).toEqual([expect.stringMatching(/^team-token-[0-9a-f]{16}$/)]);
    await ok(b.api, 'team.connect', { dir: '-work-app', server: server.url, team: server.team, token: server.tokens[1] });
  });

  it('moves a memory to the team (its index line too, one history entry) — never a user memory', async () => {
    expect(await a.api.call('team.move', { dir: '-work-app', file: 'user_me.md', to: 'team' })).toMatchObject({
      ok: false,
      error: { code: 'scope-refused', message: expect.stringContaining('always stays private') },
    });
    const moved = await ok<{ file: string; scope: string; rev: string }>(a.api, 'team.move', { dir: '-work-app', file: 'project_deploys.md', to: 'team' });
    expect(moved).toMatchObject({ file: 'project_deploys.md', scope: 'team' });
    // MEMORY.md's pointer now names team/project_deploys.md, in place: the one index Claude Code loads.
    expect(await fs.readFile(path.join(a.memoryDir, 'MEMORY.md'), 'utf8')).toBe(
      '- [Me](user_me.md) — who I am\n- [Deploys](team/project_deploys.md) — deploy rules\n',
    );
    expect(await fs.readFile(path.join(a.memoryDir, 'team', 'MEMORY.md'), 'utf8')).toBe('- [Deploys](project_deploys.md) — deploy rules\n');
    const [entry] = await listHistory(a.memoryDir, { dataDir: a.ctx.dataDir, limit: 1 });
    expect(entry).toMatchObject({ source: 'manual', summary: 'Move project_deploys.md to the team memory' });
    const report = await ok<{ push: { uploaded: string[] } }>(a.api, 'team.sync', { dir: '-work-app' });
    expect(report.push.uploaded.sort()).toEqual(['MEMORY.md', 'project_deploys.md']);
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    expect(await fs.readFile(path.join(b.memoryDir, 'team', 'project_deploys.md'), 'utf8')).toContain('No deploys on Fridays.');
  });

  it('refuses to move a shared memory back to private (deletions never propagate: it would come back); one never pushed moves', async () => {
    const refused = await a.api.call('team.move', { dir: '-work-app', file: 'project_deploys.md', to: 'private' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'scope-refused', message: expect.stringContaining('already shared with the team') } });
    expect(refused).toMatchObject({ ok: false, error: { message: expect.stringContaining('copy') } });
    expect(await fs.readFile(path.join(a.memoryDir, 'team', 'project_deploys.md'), 'utf8')).toContain('No deploys on Fridays.');
    expect(await fs.readFile(path.join(a.memoryDir, 'team', 'MEMORY.md'), 'utf8')).toBe('- [Deploys](project_deploys.md) — deploy rules\n');
    await fs.writeFile(path.join(a.memoryDir, 'team', 'project_draft.md'), topic('Draft', 'project', 'Not shared yet.'));
    // The Team sync view offers the move only where it can work, and says why not elsewhere.
    const { movable } = await ok<{ movable: { file: string; scope: string; refusal: string | null }[] }>(a.api, 'team.status', { dir: '-work-app' });
    expect(movable.find((m) => m.scope === 'team' && m.file === 'project_deploys.md')?.refusal).toContain('already shared with the team');
    expect(movable.find((m) => m.scope === 'team' && m.file === 'project_draft.md')?.refusal).toBeNull();
    expect(await ok(a.api, 'team.move', { dir: '-work-app', file: 'project_draft.md', to: 'private' })).toMatchObject({
      file: 'project_draft.md',
      scope: 'private',
    });
    expect(await fs.readFile(path.join(a.memoryDir, 'project_draft.md'), 'utf8')).toContain('Not shared yet.');
  });

  it('refuses to delete or rename a memory the server holds, alone or in bulk, and says how to retire it (it would come back, its index lines gone); one never pushed goes', async () => {
    const mainBefore = await fs.readFile(path.join(a.memoryDir, 'MEMORY.md'), 'utf8');
    const teamIndexBefore = await fs.readFile(path.join(a.memoryDir, 'team', 'MEMORY.md'), 'utf8');
    const deleted = await a.api.call('memories.delete', { dir: '-work-app', scope: 'team', file: 'project_deploys.md' });
    expect(deleted).toMatchObject({ ok: false, error: { code: 'scope-refused', message: expect.stringContaining('the next sync would bring it back') } });
    expect(deleted).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('Instead, retire it (Retire in the app, or `memdir team retire team/project_deploys.md`)') },
    });
    const renamed = await a.api.call('memories.rename', { dir: '-work-app', scope: 'team', from: 'project_deploys.md', to: 'project_deploy_rules.md' });
    expect(renamed).toMatchObject({ ok: false, error: { code: 'scope-refused', message: expect.stringContaining('keeps its name') } });
    await fs.writeFile(path.join(a.memoryDir, 'team', 'project_scratch.md'), topic('Scratch', 'project', 'Not shared yet.'));
    const bulk = await ok<{ done: unknown[]; refused: { file: string; reason: string }[] }>(a.api, 'memories.bulk', {
      dir: '-work-app',
      action: { kind: 'delete' },
      items: [
        { scope: 'team', file: 'project_deploys.md' },
        { scope: 'team', file: 'project_scratch.md' },
      ],
    });
    expect(bulk.done).toEqual([{ scope: 'team', file: 'project_scratch.md' }]);
    expect(bulk.refused).toEqual([
      { scope: 'team', file: 'project_deploys.md', reason: expect.stringContaining('the next sync would bring it back'), heldByServer: true },
    ]);
    // Nothing of the shared memory moved: its file, its name and both index lines are as they were.
    expect(await fs.readdir(path.join(a.memoryDir, 'team'))).toEqual(['MEMORY.md', 'project_deploys.md']);
    expect(await fs.readFile(path.join(a.memoryDir, 'MEMORY.md'), 'utf8')).toBe(mainBefore);
    expect(await fs.readFile(path.join(a.memoryDir, 'team', 'MEMORY.md'), 'utf8')).toBe(teamIndexBefore);
  });

  it('shows a conflict with both sides and resolves it with a merge', async () => {
    await fs.writeFile(path.join(a.memoryDir, 'team', 'project_deploys.md'), topic('Deploys', 'project', 'No deploys on Fridays.\nAlso not on holidays.'));
    await fs.writeFile(
      path.join(b.memoryDir, 'team', 'project_deploys.md'),
      topic('Deploys', 'project', 'No deploys on Fridays.\nRollbacks need two reviewers.'),
    );
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    b.events.length = 0;
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    // The desktop app notifies this one (src/main/desktop/notifications.ts).
    expect(b.events).toContainEqual({ type: 'team-changed', dir: '-work-app', newConflicts: ['project_deploys.md'] });
    const status = await ok<{ state: string; conflicts: { id: string; key: string }[] }>(b.api, 'team.status', { dir: '-work-app' });
    expect(status.state).toBe('conflicts');
    const [conflict] = status.conflicts;
    const detail = await ok<{ mine: string; theirs: string; theirsSha: string }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id });
    expect(detail.mine).toContain('Rollbacks need two reviewers.');
    expect(detail.theirs).toContain('Also not on holidays.');
    const merged = topic('Deploys', 'project', 'No deploys on Fridays.\nAlso not on holidays.\nRollbacks need two reviewers.');
    const result = await ok<{ conflict: { status: string }; report: { push: { uploaded: string[] } } }>(b.api, 'team.resolve', {
      dir: '-work-app',
      id: conflict!.id,
      take: 'merge',
      text: merged,
      theirsSha: detail.theirsSha,
    });
    expect(result.conflict.status).toBe('resolved');
    expect(result.report.push.uploaded).toEqual(['project_deploys.md']);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    expect(await fs.readFile(path.join(a.memoryDir, 'team', 'project_deploys.md'), 'utf8')).toBe(merged);
    expect((await ok<{ state: string }>(b.api, 'team.status', { dir: '-work-app' })).state).toBe('synced');
  });

  it("the Undo of a conflict's resolution opens the conflict again (the team's version on disk, mine kept); its Redo resolves it again", async () => {
    const mine = topic('Deploys', 'project', 'No deploys on Fridays.\nRollbacks need two reviewers.\nB: never on red CI.');
    const theirs = topic('Deploys', 'project', 'No deploys on Fridays.\nRollbacks need two reviewers.\nA: one from security for auth code.');
    await fs.writeFile(path.join(a.memoryDir, 'team', 'project_deploys.md'), theirs);
    await fs.writeFile(path.join(b.memoryDir, 'team', 'project_deploys.md'), mine);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    const [conflict] = (await ok<{ conflicts: { id: string }[] }>(b.api, 'team.status', { dir: '-work-app' })).conflicts;
    const resolved = await ok<{ rev: string }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'mine' });
    const file = path.join(b.memoryDir, 'team', 'project_deploys.md');
    expect(await fs.readFile(file, 'utf8')).toBe(mine);

    const undone = await ok<{ entry: { rev: string } }>(b.api, 'history.undo', { dir: '-work-app', rev: resolved.rev });
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    // Before: the conflict stayed "resolved (took mine)" and the state said synced: the choice was gone.
    const reopened = await ok<{ state: string; conflicts: { id: string }[]; resolved: { id: string }[] }>(b.api, 'team.status', { dir: '-work-app' });
    expect(reopened.state).toBe('conflicts');
    expect(reopened.conflicts.map((c) => c.id)).toEqual([conflict!.id]);
    expect(reopened.resolved.map((c) => c.id)).not.toContain(conflict!.id);
    const detail = await ok<{ mine: string; theirs: string }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id });
    expect(detail).toMatchObject({ mine, theirs });

    // Redo (the undo of the undo): mine is back on disk, and the conflict is resolved again.
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: undone.entry.rev });
    expect(await fs.readFile(file, 'utf8')).toBe(mine);
    const redone = await ok<{ conflicts: { id: string }[]; resolved: { id: string; resolution: string }[] }>(b.api, 'team.status', { dir: '-work-app' });
    expect(redone.conflicts).toEqual([]);
    expect(redone.resolved).toContainEqual(expect.objectContaining({ id: conflict!.id, resolution: 'mine' }));
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    expect(await fs.readFile(path.join(a.memoryDir, 'team', 'project_deploys.md'), 'utf8')).toBe(mine);

    // History's "Restore this version" from before the resolution does what its Undo does: the team's version
    // on disk and the conflict open again (before: the file went back and the conflict stayed resolved).
    await ok(b.api, 'history.restore', { dir: '-work-app', rev: `${resolved.rev}~1` });
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    const restored = await ok<{ state: string; conflicts: { id: string; reopened: { take: string } | null }[] }>(b.api, 'team.status', { dir: '-work-app' });
    expect(restored.state).toBe('conflicts');
    expect(restored.conflicts).toEqual([expect.objectContaining({ id: conflict!.id, reopened: expect.objectContaining({ take: 'mine' }) })]);
    // The team's earlier bytes on disk are no edit of this machine's: not pushed back over the resolution.
    const quiet = await ok<{ push: { uploaded: string[] } }>(b.api, 'team.sync', { dir: '-work-app' });
    expect(quiet.push.uploaded).toEqual([]);
    // A newer team version goes over them as any pull's would (no second conflict); the choice is still open.
    const newer = topic('Deploys', 'project', 'No deploys on Fridays.\nRollbacks need two reviewers.\nB: never on red CI.\nA: and a changelog.');
    await fs.writeFile(path.join(a.memoryDir, 'team', 'project_deploys.md'), newer);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    const pulled = await ok<{ pull: { written: string[]; conflicts: string[] } }>(b.api, 'team.sync', { dir: '-work-app' });
    expect(pulled.pull).toMatchObject({ written: ['project_deploys.md'], conflicts: [] });
    expect(await fs.readFile(file, 'utf8')).toBe(newer);
    expect((await ok<{ conflicts: { id: string }[] }>(b.api, 'team.status', { dir: '-work-app' })).conflicts.map((c) => c.id)).toEqual([conflict!.id]);
    await ok(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'server' });
    expect((await ok<{ state: string }>(b.api, 'team.status', { dir: '-work-app' })).state).toBe('synced');
  });

  it("keeping the team's version is one history entry the app's Undo takes back: mine on disk byte for byte, the conflict open, nothing pushed", async () => {
    const base = topic('Release', 'project', 'Tag on main.');
    const theirs = topic('Release', 'project', 'Tag on main.\nA: sign the tag.');
    const mine = Buffer.from(topic('Release', 'project', 'Tag on main.\r\nB: after QA   ').replace(/\n$/, ''), 'utf8');
    await fs.writeFile(path.join(a.memoryDir, 'team', 'project_release.md'), base);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    await fs.writeFile(path.join(a.memoryDir, 'team', 'project_release.md'), theirs);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    const file = path.join(b.memoryDir, 'team', 'project_release.md');
    await fs.writeFile(file, mine);
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    const conflict = (await ok<{ conflicts: { id: string; key: string }[] }>(b.api, 'team.status', { dir: '-work-app' })).conflicts.find(
      (c) => c.key === 'project_release.md',
    );
    // Before: rev null, so the app's notice had no Undo.
    const resolved = await ok<{ rev: string | null }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'server' });
    expect(resolved.rev).toEqual(expect.any(String));
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: resolved.rev });
    expect(await fs.readFile(file)).toEqual(mine);
    expect((await ok<{ conflicts: { id: string }[] }>(b.api, 'team.status', { dir: '-work-app' })).conflicts.map((c) => c.id)).toContain(conflict!.id);
    expect((await ok<{ push: { uploaded: string[] } }>(b.api, 'team.sync', { dir: '-work-app' })).push.uploaded).toEqual([]);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    expect(await fs.readFile(path.join(a.memoryDir, 'team', 'project_release.md'), 'utf8')).toBe(theirs);
    // The conflict as the merge editor opens it again: the team's version as the team's side (the sync's cached copy),
    // yours as yours, "keep both" holding both — not yours twice until a newer team version arrives.
    const reopened = await ok<{ mine: string; theirs: string; theirsSha: string; both: string }>(b.api, 'team.conflict', {
      dir: '-work-app',
      id: conflict!.id,
    });
    expect(reopened.theirs).toBe(theirs);
    expect(reopened.mine).toBe(mine.toString('utf8'));
    expect(reopened.both).toContain('A: sign the tag.');
    expect(reopened.both).toContain('B: after QA');
    // The sync's copy of the team's version lost (bases/ is a cache): the team's side is not claimed for yours, and
    // keeping both or a merge is refused as keeping theirs is — sync first (review s45-2 #4).
    const sha = createHash('sha256').update(theirs).digest('hex');
    const cached = (await fs.readdir(b.ctx.dataDir, { recursive: true })).filter((f) => f.endsWith(path.join('bases', sha)));
    expect(cached.length).toBeGreaterThan(0);
    for (const f of cached) await fs.rm(path.join(b.ctx.dataDir, f));
    const lost = await ok<{ theirsFrom: string }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id });
    expect(lost.theirsFrom).toBe('lost');
    for (const take of ['both', 'merge'] as const) {
      const refused = await b.api.call('team.resolve', { dir: '-work-app', id: conflict!.id, take, text: reopened.both });
      expect(refused).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('Sync first') } });
    }
    expect(await fs.readFile(file)).toEqual(mine);
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    expect(await ok<{ theirs: string; theirsFrom: string }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id })).toMatchObject({
      theirs,
      theirsFrom: 'last-synced',
    });
    await ok(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'server', theirsSha: reopened.theirsSha });
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    expect((await ok<{ state: string }>(b.api, 'team.status', { dir: '-work-app' })).state).toBe('synced');
  });

  /** A conflict on B over `team/<key>`: `base` synced to both, A's `theirs` pushed, then B's `mine` synced into it. */
  async function openConflict(key: string, texts: { base: string; theirs: string; mine: string }) {
    const onA = path.join(a.memoryDir, 'team', key);
    const file = path.join(b.memoryDir, 'team', key);
    await fs.writeFile(onA, texts.base);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    await fs.writeFile(onA, texts.theirs);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    await fs.writeFile(file, texts.mine);
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    const { conflicts } = await ok<{ conflicts: { id: string; key: string }[] }>(b.api, 'team.status', { dir: '-work-app' });
    const conflict = conflicts.find((c) => c.key === key);
    expect(conflict, `a conflict over ${key}`).toBeDefined();
    return { onA, file, conflict: conflict! };
  }

  it("after take mine → Undo → keep the team's → Undo, the conflict shows the team's version (not your pushed one) and keep both pushes both to the other machine (review s45-2 #3)", async () => {
    const base = topic('Tags', 'project', 'Tag on main.');
    const theirs = topic('Tags', 'project', 'Tag on main.\nA: sign the tag.');
    const mine = topic('Tags', 'project', 'Tag on main.\nB: after QA.');
    const { file, conflict } = await openConflict('project_tags.md', { base, theirs, mine });
    // Take mine (pushed: the server now holds yours), then its Undo; keep the team's, then its Undo.
    const tookMine = await ok<{ rev: string }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'mine' });
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: tookMine.rev });
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    const keptTeams = await ok<{ rev: string }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'server' });
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: keptTeams.rev });
    expect(await fs.readFile(file, 'utf8')).toBe(mine);
    const reopened = await ok<{ mine: string; theirs: string; theirsFrom: string }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id });
    expect(reopened).toMatchObject({ mine, theirs, theirsFrom: 'last-synced' });
    await ok(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'both' });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    const onA = await fs.readFile(path.join(a.memoryDir, 'team', 'project_tags.md'), 'utf8');
    expect(onA).toContain('A: sign the tag.');
    expect(onA).toContain('B: after QA.');
  });

  // Review s45-7 #1: with an open conflict, a newer team version pulled over the team's side must become that side:
  // keep the team's → Undo showed the older one, and keep both / keep the team's then pushed it over a teammate's edit.
  it("a newer team version pulled while a conflict is open is its team side: keep both after keep the team's → Undo keeps the teammate's newer line", async () => {
    const base = topic('Releases', 'project', 'Release on Tuesday.');
    const theirs = topic('Releases', 'project', 'Release on Tuesday.\nA: tag first.');
    const newer = topic('Releases', 'project', 'Release on Tuesday.\nA: tag first.\nA2: and push it.');
    const mine = topic('Releases', 'project', 'Release on Tuesday.\nB: after QA.');
    const { onA, file, conflict } = await openConflict('project_releases.md', { base, theirs, mine });
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    // The teammate goes on while B's conflict is open; B's sync writes the newer version over the team's side.
    await fs.writeFile(onA, newer);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    expect(await fs.readFile(file, 'utf8')).toBe(newer);
    const kept = await ok<{ rev: string }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'server' });
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: kept.rev });
    const reopened = await ok<{ theirs: string; theirsFrom: string }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id });
    expect(reopened).toMatchObject({ theirs: newer, theirsFrom: 'last-synced' });
    await ok(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'both' });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    const now = await fs.readFile(onA, 'utf8');
    expect(now).toContain('A2: and push it.');
    expect(now).toContain('B: after QA.');
  });

  // Review s45-7 #3: the sync's clean-up of cached versions kept an open conflict's base but not the team's side it
  // stands against, so after take mine → Undo and a sync past the clean-up's 10-minute gate, keep the team's → Undo
  // reopened it with that side lost, for good (the server holds yours): only "take mine" was left.
  it("a conflict's team side survives the sync's clean-up of cached versions: keep the team's → Undo still shows it", async () => {
    const base = topic('Tags2', 'project', 'Tag on main.');
    const theirs = topic('Tags2', 'project', 'Tag on main.\nA: sign the tag.');
    const mine = topic('Tags2', 'project', 'Tag on main.\nB: after QA.');
    const { onA, conflict } = await openConflict('project_tags2.md', { base, theirs, mine });
    const tookMine = await ok<{ rev: string }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'mine' });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: tookMine.rev });
    // Eleven minutes on (the clean-up runs at most every 10 minutes), a sync that writes something cleans up.
    const realNow = Date.now.bind(Date);
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 11 * 60_000);
    try {
      await fs.writeFile(onA.replace('project_tags2.md', 'project_other2.md'), topic('Other2', 'project', 'Another note.'));
      await ok(a.api, 'team.sync', { dir: '-work-app' });
      await ok(b.api, 'team.sync', { dir: '-work-app' });
    } finally {
      clock.mockRestore();
    }
    const kept = await ok<{ rev: string }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'server' });
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: kept.rev });
    const reopened = await ok<{ theirs: string; theirsFrom: string; base: string | null }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id });
    expect(reopened).toMatchObject({ theirs, theirsFrom: 'last-synced' });
    // Its base too (review s45-9 #2): without it there is no three-way proposal and keep both takes the union.
    expect(reopened.base).toBe(base);
  });

  // Review s45-9 #1: a conflict resolved by keeping the team's version, whose team side a pull then moved on, was
  // reopened (Undo anyway) with the older version as its side, and keep both pushed it over the teammate's edit.
  it("a resolved conflict whose team side a pull moved on reopens with the newer version: keep both keeps the teammate's line", async () => {
    const base = topic('Tags3', 'project', 'Tag on main.');
    const theirs = topic('Tags3', 'project', 'Tag on main.\nA: sign the tag.');
    const newer = topic('Tags3', 'project', 'Tag on main.\nA: sign the tag.\nA2: and push it.');
    const mine = topic('Tags3', 'project', 'Tag on main.\nB: after QA.');
    const { onA, file, conflict } = await openConflict('project_tags3.md', { base, theirs, mine });
    const kept = await ok<{ rev: string }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'server' });
    await fs.writeFile(onA, newer);
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    expect(await fs.readFile(file, 'utf8')).toBe(newer);
    // The pull changed the file since: the Undo goes on only "anyway".
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: kept.rev, overwriteChanged: true });
    const reopened = await ok<{ theirs: string; theirsSha: string }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id });
    expect(reopened.theirs).toBe(newer);
    await ok(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'both', theirsSha: reopened.theirsSha });
    await ok(b.api, 'team.sync', { dir: '-work-app' });
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    const now = await fs.readFile(onA, 'utf8');
    expect(now).toContain('A2: and push it.');
    expect(now).toContain('B: after QA.');
  });

  // Review s45-9 #2: the clean-up kept a resolved conflict's team side but not its base: its Undo had no proposal.
  it("a conflict resolved before the sync's clean-up reopens with its base", async () => {
    const base = topic('Tags4', 'project', 'Tag on main.');
    const theirs = topic('Tags4', 'project', 'Tag on main.\nA: sign the tag.');
    const mine = topic('Tags4', 'project', 'Tag on main.\nB: after QA.');
    const { onA, conflict } = await openConflict('project_tags4.md', { base, theirs, mine });
    const kept = await ok<{ rev: string }>(b.api, 'team.resolve', { dir: '-work-app', id: conflict!.id, take: 'server' });
    // Past the clean-up's gate, also past the clean-up the test before ran 11 minutes on.
    const realNow = Date.now.bind(Date);
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 25 * 60_000);
    try {
      await fs.writeFile(onA.replace('project_tags4.md', 'project_other4.md'), topic('Other4', 'project', 'Another note.'));
      await ok(a.api, 'team.sync', { dir: '-work-app' });
      await ok(b.api, 'team.sync', { dir: '-work-app' });
    } finally {
      clock.mockRestore();
    }
    await ok(b.api, 'history.undo', { dir: '-work-app', rev: kept.rev });
    const reopened = await ok<{ base: string | null; theirs: string }>(b.api, 'team.conflict', { dir: '-work-app', id: conflict!.id });
    expect(reopened).toMatchObject({ base, theirs });
  });

  it('raises a secret alert (event included), then redacts it in place with a history entry, and the file goes up', async () => {
    a.events.length = 0;
    await fs.writeFile(path.join(a.memoryDir, 'team', 'reference_ci.md'), topic('CI', 'reference', `The CI bot token is ${GITHUB_TOKEN} for now.`));
    const report = await ok<{ waiting: { key: string; reason: string }[] }>(a.api, 'team.sync', { dir: '-work-app' });
    expect(report.waiting).toEqual([expect.objectContaining({ key: 'reference_ci.md', reason: 'secret' })]);
    expect(a.events).toContainEqual({
      type: 'alert',
      alert: expect.objectContaining({ kind: 'secret', dir: '-work-app', title: 'A secret kept team/reference_ci.md from being shared' }),
    });
    expect(a.events).toContainEqual({ type: 'alerts-changed', open: 1 });
    const list = await ok<{
      alerts: { id: string; kind: string; findings: { fingerprint: string; match: string; line: number; rule: string }[] }[];
      open: number;
    }>(a.api, 'alerts.list', {});
    expect(list.open).toBe(1);
    const alert = list.alerts[0]!;
    expect(alert.findings).toEqual([expect.objectContaining({ line: 7, rule: expect.stringContaining('github'), match: expect.stringMatching(/^ghp_\*+$/) })]);
    expect(JSON.stringify(list)).not.toContain(GITHUB_TOKEN);

    const redacted = await ok<{ alert: { status: string; resolution: string }; rev: string }>(a.api, 'alerts.redact', {
      id: alert.id,
      fingerprint: alert.findings[0]!.fingerprint,
    });
    expect(redacted.alert).toMatchObject({ status: 'resolved', resolution: 'redacted' });
    expect(await fs.readFile(path.join(a.memoryDir, 'team', 'reference_ci.md'), 'utf8')).toContain('The CI bot token is [REDACTED] for now.');
    const [entry] = await listHistory(a.memoryDir, { dataDir: a.ctx.dataDir, limit: 1 });
    expect(entry).toMatchObject({ source: 'manual', summary: 'Redact a secret in team/reference_ci.md', rev: redacted.rev });
    const after = await ok<{ push: { uploaded: string[] } }>(a.api, 'team.sync', { dir: '-work-app' });
    expect(after.push.uploaded).toEqual(['reference_ci.md']);
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))['reference_ci.md']).not.toContain(GITHUB_TOKEN);
  });

  it('allows a finding with who and why; that exact match no longer blocks, a new one still does', async () => {
    await fs.writeFile(path.join(a.memoryDir, 'team', 'reference_demo.md'), topic('Demo', 'reference', `Revoked demo token from the docs: ${GITHUB_TOKEN}`));
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    const { alerts } = await ok<{ alerts: { id: string; status: string; file: string; findings: { fingerprint: string }[] }[] }>(a.api, 'alerts.list', {});
    const alert = alerts.find((x) => x.status === 'open' && x.file === 'team/reference_demo.md')!;
    expect(await a.api.call('alerts.allow', { id: alert.id, fingerprint: alert.findings[0]!.fingerprint, why: '' })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input' },
    });
    const allowed = await ok<{ alert: { status: string }; allowed: { who: string; why: string } }>(a.api, 'alerts.allow', {
      id: alert.id,
      fingerprint: alert.findings[0]!.fingerprint,
      why: 'revoked token quoted from the public docs',
    });
    expect(allowed.alert.status).toBe('resolved');
    expect(allowed.allowed).toMatchObject({ who: expect.stringContaining('(member-0)'), why: 'revoked token quoted from the public docs' });
    expect((await ok<{ push: { uploaded: string[] } }>(a.api, 'team.sync', { dir: '-work-app' })).push.uploaded).toEqual(['reference_demo.md']);
    const list = await ok<{ allowed: { file: string }[] }>(a.api, 'alerts.list', {});
    expect(list.allowed[0]).toMatchObject({ file: 'team/reference_demo.md' });
    // Another token in the same file is another match: it blocks again.
    await fs.appendFile(path.join(a.memoryDir, 'team', 'reference_demo.md'), `And a live one: ${OTHER_GITHUB_TOKEN}\n`);
    const blocked = await ok<{ push: { uploaded: string[] }; waiting: { key: string; reason: string }[] }>(a.api, 'team.sync', { dir: '-work-app' });
    expect(blocked.push.uploaded).toEqual([]);
    expect(blocked.waiting).toEqual([expect.objectContaining({ key: 'reference_demo.md', reason: 'secret' })]);
  });

  it('a secret in a file name is not "redacted": redact refuses in words, rename (undoable) clears it and the file goes up', async () => {
    const named = `reference_${NAME_GITHUB_TOKEN}.md`;
    await fs.writeFile(path.join(a.memoryDir, 'team', named), topic('Bot', 'reference', 'The CI bot is named after its token.'));
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    type Listed = { id: string; status: string; file: string; findings: { fingerprint: string; where?: string }[] };
    const find = async () => (await ok<{ alerts: Listed[] }>(a.api, 'alerts.list', {})).alerts.filter((x) => x.file === `team/${named}`);
    const [alert] = await find();
    const finding = alert!.findings.find((f) => f.where === 'name')!;
    expect(finding).toBeDefined();
    const refused = await a.api.call('alerts.redact', { id: alert!.id, fingerprint: finding.fingerprint });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid-input', message: expect.stringMatching(/in the name of .*rename the file/) } });
    // The sentence names the file with the token masked, as the alert does.
    expect(JSON.stringify(refused)).not.toContain(NAME_GITHUB_TOKEN);
    // Nothing changed: the file is there under its name, the alert still open.
    expect(await fs.readFile(path.join(a.memoryDir, 'team', named), 'utf8')).toContain('The CI bot is named after its token.');
    expect((await find()).map((x) => x.status)).toEqual(['open']);
    // A new name that still holds the token is refused before anything moves, by the rename's guard: masked.
    const stillNamed = await a.api.call('alerts.rename', { id: alert!.id, fingerprint: finding.fingerprint, to: `ci_${NAME_GITHUB_TOKEN}.md` });
    expect(stillNamed).toMatchObject({
      ok: false,
      error: {
        code: 'invalid-input',
        message: expect.stringMatching(/^Nothing was saved: team\/ci_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name/),
      },
    });
    expect(JSON.stringify(stillNamed)).not.toContain(NAME_GITHUB_TOKEN.slice(6));
    expect(await fs.readFile(path.join(a.memoryDir, 'team', named), 'utf8')).toContain('The CI bot is named after its token.');

    const renamed = await ok<{ alert: { status: string; resolution: string }; file: string; rev: string }>(a.api, 'alerts.rename', {
      id: alert!.id,
      fingerprint: finding.fingerprint,
      to: 'reference_ci_bot.md',
    });
    expect(renamed).toMatchObject({ file: 'team/reference_ci_bot.md', alert: { status: 'resolved', resolution: 'renamed to team/reference_ci_bot.md' } });
    await expect(fs.stat(path.join(a.memoryDir, 'team', named))).rejects.toThrow();
    const [entry] = await listHistory(a.memoryDir, { dataDir: a.ctx.dataDir, limit: 1 });
    expect(entry).toMatchObject({ rev: renamed.rev, summary: expect.stringContaining('Rename') });
    const after = await ok<{ push: { uploaded: string[] } }>(a.api, 'team.sync', { dir: '-work-app' });
    expect(after.push.uploaded).toEqual(['reference_ci_bot.md']);
    // The alert does not come back.
    expect(
      (await ok<{ alerts: Listed[] }>(a.api, 'alerts.list', {})).alerts.filter(
        (x) => x.status === 'open' && [`team/${named}`, 'team/reference_ci_bot.md'].includes(x.file),
      ),
    ).toEqual([]);
  });

  it('a secret in a file name allowed on purpose stays masked: in the alert left for its text, and in the allowed list', async () => {
    const named = `reference_${ALLOWED_NAME_TOKEN}.md`;
    await fs.writeFile(path.join(a.memoryDir, 'team', named), topic('Key', 'reference', `The key is ${TEXT_GITHUB_TOKEN} for now.`));
    await ok(a.api, 'team.sync', { dir: '-work-app' });
    type Listed = { id: string; status: string; file: string; title: string; message: string; findings: { fingerprint: string; where?: string }[] };
    const open = async () => (await ok<{ alerts: Listed[] }>(a.api, 'alerts.list', {})).alerts.filter((x) => x.status === 'open' && x.file === `team/${named}`);
    const [alert] = await open();
    expect(alert!.findings.map((f) => f.where).sort()).toEqual(['content', 'name']);
    await ok(a.api, 'alerts.allow', {
      id: alert!.id,
      fingerprint: alert!.findings.find((f) => f.where === 'name')!.fingerprint,
      why: 'a revoked key, on purpose',
    });
    // The next sync still holds it back for its text: the alert, the waiting list and the findings name it masked.
    const held = await ok<{ waiting: { key: string; detail: string }[] }>(a.api, 'team.sync', { dir: '-work-app' });
    expect(held.waiting.find((w) => w.key.startsWith('reference_ghp_*'))).toBeDefined();
    const [left] = await open();
    expect(left!.findings.map((f) => f.where)).toEqual(['content']);
    await ok(a.api, 'alerts.allow', { id: left!.id, fingerprint: left!.findings[0]!.fingerprint, why: 'a revoked key, on purpose' });
    const list = await ok<{ alerts: Listed[]; allowed: { file: string }[] }>(a.api, 'alerts.list', {});
    expect(list.allowed.slice(0, 2).map((x) => x.file)).toEqual([
      expect.stringMatching(/^team\/reference_ghp_\*+\.md$/),
      expect.stringMatching(/^team\/reference_ghp_\*+\.md$/),
    ]);
    // An alert's `file` is the real path, only to open the file (shared/alert-file.ts); everything said in words is masked.
    const said = { allowed: list.allowed, alerts: list.alerts.map(({ file: _file, ...words }) => words), held };
    expect(JSON.stringify(said)).not.toContain(ALLOWED_NAME_TOKEN.slice(6));
    // Sent on purpose, and still named masked in the report.
    expect((await ok<{ push: { uploaded: string[] } }>(a.api, 'team.sync', { dir: '-work-app' })).push.uploaded).toEqual([shownName(named)]);
  });

  it('a memory moved to the team anyway, its name holding a secret, is shared by the next sync: the move asked, Alerts does not ask again', async () => {
    const named = `reference_${MOVED_NAME_TOKEN}.md`;
    await fs.writeFile(path.join(a.memoryDir, named), topic('Bot', 'reference', 'The deploy bot is named after its token.'));
    const refused = await a.api.call('team.move', { dir: '-work-app', file: named, to: 'team' });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', secrets: [expect.objectContaining({ match: expect.stringMatching(/^ghp_\*+$/) })] },
    });
    const allowSecrets = (refused as { error: { secrets: { fingerprint: string }[] } }).error.secrets.map((s) => s.fingerprint);
    await ok(a.api, 'team.move', { dir: '-work-app', file: named, to: 'team', allowSecrets });
    // Its name is in the file's key and in team/MEMORY.md's new pointer: both go up, nothing waits for it, no alert asks again.
    const report = await ok<{ push: { uploaded: string[] }; waiting: { key: string }[] }>(a.api, 'team.sync', { dir: '-work-app' });
    expect(report.push.uploaded.sort()).toEqual(['MEMORY.md', shownName(named)]);
    expect(report.waiting.filter((w) => w.key === 'MEMORY.md' || w.key.startsWith('reference_ghp_'))).toEqual([]);
    const list = await ok<{ alerts: { status: string; file: string }[]; allowed: { file: string; who: string; why: string }[] }>(a.api, 'alerts.list', {});
    expect(list.alerts.filter((x) => x.status === 'open' && [`team/${named}`, 'team/MEMORY.md'].includes(x.file))).toEqual([]);
    // Recorded once, where the Alerts page lists what was allowed: who, why, and the file named masked.
    expect(list.allowed[0]).toMatchObject({
      file: expect.stringMatching(/^team\/reference_ghp_\*+\.md$/),
      who: expect.stringContaining('(member-0)'),
      why: 'moved to the team anyway, on purpose',
    });
    expect(JSON.stringify(list.allowed)).not.toContain(MOVED_NAME_TOKEN.slice(6));
    expect(Object.keys(await serverEntries(server.url, server.team, server.tokens[0]!))).toContain(named);
  });

  it("a move anyway allows that file's name and its pointer only: the same token in its text or in another team file still waits", async () => {
    const token = ['ghp_', 'Pq3Nd8Qs', 'Tf6Lb1Xk', 'Vr9Mc4Zp', 'Ey2Ug7Ja', 'i5Kz'].join('');
    const named = `reference_${token}.md`;
    await fs.writeFile(path.join(a.memoryDir, named), topic('Bot', 'reference', `The token is ${token} itself.`));
    await fs.writeFile(path.join(a.memoryDir, 'team', 'ops_notes.md'), topic('Ops', 'project', `Use ${token} for deploys.`));
    const refused = await a.api.call('team.move', { dir: '-work-app', file: named, to: 'team' });
    const allowSecrets = (refused as { error: { secrets: { fingerprint: string }[] } }).error.secrets.map((s) => s.fingerprint);
    await ok(a.api, 'team.move', { dir: '-work-app', file: named, to: 'team', allowSecrets });
    const report = await ok<{ push: { uploaded: string[] }; waiting: { key: string; reason: string }[] }>(a.api, 'team.sync', { dir: '-work-app' });
    // The pointer naming it goes up; its text and ops_notes.md's were not part of the question.
    expect(report.push.uploaded).toEqual(['MEMORY.md']);
    expect(report.waiting.filter((w) => w.reason === 'secret').map((w) => w.key)).toEqual(
      expect.arrayContaining(['ops_notes.md', expect.stringMatching(/^reference_ghp_\*+\.md$/)]),
    );
    const entries = await serverEntries(server.url, server.team, server.tokens[0]!);
    expect(
      Object.entries(entries)
        .filter(([, text]) => text.includes(token))
        .map(([key]) => key),
    ).toEqual(['MEMORY.md']);
    // Its text cleaned, the file goes up under its allowed name; ops_notes.md cleaned goes too.
    await fs.writeFile(path.join(a.memoryDir, 'team', named), topic('Bot', 'reference', 'The token is in the vault.'));
    await fs.writeFile(path.join(a.memoryDir, 'team', 'ops_notes.md'), topic('Ops', 'project', 'Use the vault for deploys.'));
    const after = await ok<{ push: { uploaded: string[] } }>(a.api, 'team.sync', { dir: '-work-app' });
    expect(after.push.uploaded.sort()).toEqual(['ops_notes.md', shownName(named)]);
  });

  it('lists connected projects for the dashboard, and disconnects (files stay, token deleted)', async () => {
    const { projects } = await ok<{ projects: { dir: string; state: string; connected: boolean }[] }>(a.api, 'team.overview', {});
    // The demo file with a live token is still held back: the project is not fully shared.
    expect(projects).toEqual([expect.objectContaining({ dir: '-work-app', connected: true, state: 'pending', waiting: 1, conflicts: 0 })]);
    expect(await ok(b.api, 'team.disconnect', { dir: '-work-app' })).toEqual({ disconnected: true });
    expect(await b.ctx.credentials.list()).toEqual([]);
    expect(await fs.readFile(path.join(b.memoryDir, 'team', 'project_deploys.md'), 'utf8')).toContain('Rollbacks');
    expect((await ok<{ state: string }>(b.api, 'team.status', { dir: '-work-app' })).state).toBe('not-connected');
  });
});

describe('undoing a move to the team anyway', () => {
  it('withdraws the allow the move recorded: moved to the team again by undoing that undo, the name waits and the alert asks again', async () => {
    // Its team sync runs only when told (see machine): a sync between the move and its undo would share the name, as allowed then.
    const u = await machine('u');
    const service = u.ctx.team;
    try {
      await service.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[1]! });
      const token = ['ghp_', 'Ud7Nq2Ws', 'Kf4Lb8Xm', 'Tr1Mc6Zp', 'Ey3Vg9Ja', 'h5Ko'].join('');
      const named = `reference_${token}.md`;
      await fs.writeFile(path.join(u.memoryDir, named), topic('Undo bot', 'reference', 'The undo bot is named after its token.'));
      const refused = await service.move('-work-app', named, 'team').then(
        () => null,
        (e: unknown) => e as { secrets?: { fingerprint: string }[] },
      );
      const fingerprint = refused!.secrets![0]!.fingerprint;
      const moved = await service.move('-work-app', named, 'team', [fingerprint]);
      const allowedNow = async () =>
        (await ok<{ allowed: { fingerprint: string }[] }>(u.api, 'alerts.list', {})).allowed.filter((x) => x.fingerprint === fingerprint);
      expect(await allowedNow()).toHaveLength(1);

      const undone = await ok<{ entry: { rev: string }; notes: string[] }>(u.api, 'history.undo', { dir: '-work-app', rev: moved.rev });
      await fs.access(path.join(u.memoryDir, named));
      expect(await allowedNow()).toEqual([]);
      // The person is told, the name masked.
      expect(undone.notes).toContainEqual(expect.stringMatching(/^Team sync asks again before sharing team\/reference_ghp_\*+\.md/));
      expect(undone.notes.join('\n')).not.toContain(token.slice(6));

      // Undoing the undo moves it to the team again; the allow is not back, so sync holds it and asks.
      await ok(u.api, 'history.undo', { dir: '-work-app', rev: undone.entry.rev });
      await fs.access(path.join(u.memoryDir, 'team', named));
      const report = await service.syncNow('-work-app');
      expect(report.push.uploaded).not.toContain(named);
      expect(report.waiting).toContainEqual(expect.objectContaining({ key: expect.stringMatching(/^reference_ghp_\*+\.md$/), reason: 'secret' }));
      // Asked about the file and about its pointer in team/MEMORY.md.
      const alerts = await ok<{ alerts: { status: string; file: string; findings: { fingerprint: string }[] }[] }>(u.api, 'alerts.list', {});
      expect(alerts.alerts.filter((x) => x.status === 'open' && x.findings.some((f) => f.fingerprint === fingerprint)).map((x) => x.file)).toEqual(
        expect.arrayContaining([`team/${named}`, 'team/MEMORY.md']),
      );
      const entries = await serverEntries(server.url, server.team, server.tokens[0]!);
      expect(Object.entries(entries).filter(([key, text]) => key.includes(token) || text.includes(token))).toEqual([]);
    } finally {
      await u.ctx.close();
    }
  });
});

describe('team sync in the running app', () => {
  it('an edit in the team folder is pushed by itself, shortly after (watcher → debounced sync)', async () => {
    const c = await machine('c', true);
    try {
      await ok(c.api, 'team.connect', { dir: '-work-app', server: server.url, team: server.team, token: server.tokens[2] });
      await fs.writeFile(path.join(c.memoryDir, 'team', 'project_watch.md'), topic('Watch', 'project', 'Pushed without asking.'));
      const pushed = await waitFor(
        async () => (await serverEntries(server.url, server.team, server.tokens[0]!))['project_watch.md'],
        15_000,
        'project_watch.md to reach the server',
      );
      expect(pushed).toContain('Pushed without asking.');
      expect(c.events).toContainEqual(expect.objectContaining({ type: 'team-changed', dir: '-work-app' }));
    } finally {
      await c.ctx.close();
    }
  });

  it("Memdir's own pull writes and private memory edits set off no sync; a team edit still does", async () => {
    const f = await machine('f', true);
    // A service of its own with a short debounce, on the app's events and watcher.
    await f.ctx.team.close();
    const service = new TeamService(f.ctx, { debounceMs: 100, tickMs: 600_000 });
    await service.start();
    try {
      await service.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[2]! });
      expect(f.events).toContainEqual({ type: 'projects-changed', dirs: ['-work-app'], external: false });
      const syncs = () => f.events.filter((e) => e.type === 'team-changed').length;
      const afterConnect = syncs();
      await sleep(1_500);
      expect(syncs()).toBe(afterConnect);
      await fs.writeFile(path.join(f.memoryDir, 'project_private.md'), topic('Private', 'project', 'Only mine.'));
      await sleep(1_500);
      expect(syncs()).toBe(afterConnect);
      await fs.writeFile(path.join(f.memoryDir, 'team', 'project_from_f.md'), topic('From f', 'project', 'Shared by itself.'));
      await waitFor(() => syncs() > afterConnect, 10_000, 'a sync set off by the team edit');
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['project_from_f.md']).toContain('Shared by itself.');
    } finally {
      await service.close();
      await f.ctx.close();
    }
  }, 30_000);
});

describe('a disconnect by another process while the app runs', () => {
  it('`memdir team disconnect` while the app syncs: the app stops the engine and tells the Team sync view', async () => {
    const g = await machine('g', true);
    await g.ctx.team.close();
    const service = new TeamService(g.ctx, { tickMs: 100 });
    await service.start();
    try {
      await service.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[2]! });
      const seen = g.events.length;
      // What `memdir team disconnect` does, in a process of its own: stores of its own on the same data dir.
      const { connection } = await disconnectTeam(g.memoryDir, {
        connections: new ConnectionStore(g.ctx.dataDir),
        credentials: new FileCredentialStore(g.ctx.dataDir),
      });
      expect(connection).toMatchObject({ dir: '-work-app' });
      const told = () => g.events.slice(seen).some((e) => e.type === 'team-changed' && e.dir === '-work-app');
      await within(
        (async () => {
          while (!told()) await sleep(50);
        })(),
        10_000,
        'the team-changed event after a disconnect by another process',
      );
      expect(await service.status('-work-app')).toMatchObject({ state: 'not-connected' });
    } finally {
      await service.close();
      await g.ctx.close();
    }
  }, 30_000);
});

describe('one sync engine per project', () => {
  it('calls that arrive together share one engine: while it syncs, the status says so', async () => {
    const e = await machine('e');
    await ok(e.api, 'team.connect', { dir: '-work-app', server: server.url, team: server.team, token: server.tokens[0] });
    try {
      // Which call finishes opening its engine last is up to timing: the app starts several times.
      for (let start = 0; start < 5; start++) {
        const gate = gatedFetch();
        const service = new TeamService(e.ctx, { fetch: gate.fetch });
        try {
          const held = gate.hold();
          // The app starting: the first tick's sync, the dashboard and the Team sync view at once.
          const syncing = service.syncNow('-work-app');
          const others = [service.status('-work-app'), service.overview(), service.status('-work-app')];
          await held;
          expect(await within(service.status('-work-app'), 5_000, 'the status')).toMatchObject({ state: 'syncing', syncing: true });
          gate.release();
          expect((await syncing).error).toBeNull();
          await Promise.all(others);
          expect((await service.status('-work-app')).lastCheckAt).not.toBeNull();
        } finally {
          gate.release();
          await service.close();
        }
      }
    } finally {
      await e.ctx.close();
    }
  }, 60_000);

  it('a reconnect cancels the sync of the engine it replaces, and quitting cancels one at once (no waiting out the server)', async () => {
    const e = await machine('e2');
    const gate = gatedFetch();
    const service = new TeamService(e.ctx, { fetch: gate.fetch });
    try {
      await service.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      let held = gate.hold();
      const old = service.syncNow('-work-app');
      await held;
      const reconnected = service.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[1]! });
      expect((await within(old, 5_000, 'the old sync')).error).toMatchObject({ code: 'cancelled' });
      gate.release();
      expect(await within(reconnected, 10_000, 'the reconnect')).toMatchObject({ connection: { member: 'member-1' }, state: 'synced' });

      held = gate.hold();
      const last = service.syncNow('-work-app');
      await held;
      await within(service.close(), 5_000, 'closing');
      expect((await last).error).toMatchObject({ code: 'cancelled' });
    } finally {
      gate.release();
      await service.close();
      await e.ctx.close();
    }
  }, 30_000);
});

describe('reconnecting to another team', () => {
  it('starts the sync state over: a file unchanged since the old team is kept as a conflict, not silently replaced', async () => {
    await createTeam(store, 'design');
    const g = await machine('g');
    const h = await machine('h');
    try {
      await ok(g.api, 'team.connect', { dir: '-work-app', server: server.url, team: 'design', token: (await issueToken(store, 'design', 'gil')).token });
      await fs.writeFile(path.join(g.memoryDir, 'team', 'project_style.md'), topic('Style', 'project', 'Design team: tabs.'));
      await ok(g.api, 'team.sync', { dir: '-work-app' });

      await ok(h.api, 'team.connect', { dir: '-work-app', server: server.url, team: server.team, token: server.tokens[1] });
      await fs.writeFile(path.join(h.memoryDir, 'team', 'project_style.md'), topic('Style', 'project', 'Platform team: spaces.'));
      expect((await ok<{ push: { uploaded: string[] } }>(h.api, 'team.sync', { dir: '-work-app' })).push.uploaded).toContain('project_style.md');

      const status = await ok<{ connection: { team: string }; conflicts: { id: string; key: string }[] }>(h.api, 'team.connect', {
        dir: '-work-app',
        server: server.url,
        team: 'design',
        token: (await issueToken(store, 'design', 'hal')).token,
      });
      expect(status.connection.team).toBe('design');
      expect(status.conflicts).toEqual([expect.objectContaining({ key: 'project_style.md' })]);
      expect(await fs.readFile(path.join(h.memoryDir, 'team', 'project_style.md'), 'utf8')).toContain('Design team: tabs.');
      const detail = await ok<{ mine: string }>(h.api, 'team.conflict', { dir: '-work-app', id: status.conflicts[0]!.id });
      expect(detail.mine).toContain('Platform team: spaces.');
    } finally {
      await g.ctx.close();
      await h.ctx.close();
    }
  });
});

describe('a sync that fails with an edit waiting (review x3 F3)', () => {
  it('lists the edit as waiting, in the sync report and the status: not "everything is on the server"', async () => {
    const ownStore = await openSqliteStore(path.join(root, 'down.sqlite'));
    const own = await startTestServer(ownStore, 1, 'down');
    const m = await machine('down');
    try {
      await ok(m.api, 'team.connect', { dir: '-work-app', server: own.url, team: own.team, token: own.tokens[0] });
      const file = path.join(m.memoryDir, 'team', 'project_style.md');
      await fs.writeFile(file, topic('Style', 'project', 'Tabs.'));
      expect((await ok<{ push: { uploaded: string[] } }>(m.api, 'team.sync', { dir: '-work-app' })).push.uploaded).toContain('project_style.md');
      await own.server.close();
      await fs.appendFile(file, 'Also: no trailing spaces.\n');
      const report = await ok<{ error: { message: string } | null; waiting: { key: string }[] }>(m.api, 'team.sync', { dir: '-work-app' });
      expect(report.error?.message).toContain('Cannot reach the sync server');
      expect(report.waiting.map((w) => w.key)).toEqual(['project_style.md']);
      const status = await ok<{ state: string; waiting: { key: string }[] }>(m.api, 'team.status', { dir: '-work-app' });
      expect(status.state).toBe('error');
      expect(status.waiting.map((w) => w.key)).toEqual(['project_style.md']);
    } finally {
      await m.ctx.close();
      await own.server.close().catch(() => undefined);
      await ownStore.close();
    }
  });
});

describe('the last sync error, one source for the app and the CLI (review s44 #7)', () => {
  it("the app's status shows what the CLI's last sync said: cleared by a CLI sync that got through, and a CLI failure shown", async () => {
    const ownStore = await openSqliteStore(path.join(root, 'last-error.sqlite'));
    let own = await startTestServer(ownStore, 1, 'lasterr');
    const m = await machine('last-error');
    const status = () => ok<{ state: string; error: { message: string } | null }>(m.api, 'team.status', { dir: '-work-app' });
    /** `memdir team sync` in another process: its own client of the same connection and state. */
    const cliSync = async (token: string) => {
      const [connection] = await new ConnectionStore(m.ctx.dataDir).list();
      const sync = await TeamSync.open({
        connection: connection!,
        token,
        dataDir: m.ctx.dataDir,
        dir: connection!.dir,
        alerts: new AlertCenter(m.ctx.dataDir),
      });
      return sync.sync();
    };
    try {
      await ok(m.api, 'team.connect', { dir: '-work-app', server: own.url, team: own.team, token: own.tokens[0] });
      const port = new URL(own.url).port;
      await own.server.close();
      // The app's sync cannot reach the server.
      expect((await ok<{ error: { message: string } | null }>(m.api, 'team.sync', { dir: '-work-app' })).error?.message).toContain(
        'Cannot reach the sync server',
      );
      expect(await status()).toMatchObject({ state: 'error', error: { message: expect.stringContaining('Cannot reach the sync server') } });
      // The server is back; `memdir team sync` gets through: the app no longer says it cannot reach it.
      const server2 = await startServer({
        store: ownStore,
        port: Number(port),
        closeStore: false,
        limits: { rateLimit: { burst: 100_000, perSecond: 100_000 } },
      });
      own = { ...own, server: server2 };
      expect((await cliSync(own.tokens[0]!)).error).toBeNull();
      expect(await status()).toMatchObject({ error: null });
      expect((await status()).state).not.toBe('error');
      // `memdir team sync` fails (a revoked token): the app shows that failure.
      const failed = await cliSync('mdt_not-a-valid-token');
      expect(failed.error).not.toBeNull();
      expect(await status()).toMatchObject({ state: 'error', error: { message: failed.error!.message } });
    } finally {
      await m.ctx.close();
      await own.server.close().catch(() => undefined);
      await ownStore.close();
    }
  });
});

describe('a merge retires a team memory the server holds (R-SYNC: deletions do not propagate)', () => {
  it('Make room empties a merged-away shared memory and drops its pointers, the next sync shares that, one never pushed is deleted, and undo brings all back', async () => {
    const r = await machine('retire-r');
    const t = await machine('retire-t');
    try {
      await r.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      await t.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[1]! });
      const team = (f: string) => path.join(r.memoryDir, 'team', f);
      const ci = topic('CI', 'project', 'CI runs on every push.');
      const runs = topic('CI runs', 'project', 'CI runs on every push.\n\nFlaky jobs are retried once.');
      await fs.writeFile(team('project_ci.md'), ci);
      await fs.writeFile(team('project_ci_runs.md'), runs);
      await fs.writeFile(team('MEMORY.md'), '- [CI](project_ci.md) — how CI runs\n- [CI runs](project_ci_runs.md) — retries\n');
      const mainIndex = await fs.readFile(path.join(r.memoryDir, 'MEMORY.md'), 'utf8');
      await fs.writeFile(
        path.join(r.memoryDir, 'MEMORY.md'),
        `${mainIndex}- [CI](team/project_ci.md) — how CI runs\n- [CI runs](team/project_ci_runs.md) — retries\n`,
      );
      expect((await ok<{ push: { uploaded: string[] } }>(r.api, 'team.sync', { dir: '-work-app' })).push.uploaded).toContain('project_ci_runs.md');
      // Written after the sync: never pushed, so the server does not hold it.
      await fs.writeFile(team('project_ci_draft.md'), topic('CI draft', 'project', 'CI draft: cache node_modules.'));
      await fs.appendFile(team('MEMORY.md'), '- [CI draft](project_ci_draft.md) — cache\n');
      await fs.appendFile(path.join(r.memoryDir, 'MEMORY.md'), '- [CI draft](team/project_ci_draft.md) — cache\n');
      const teamIndexBefore = await fs.readFile(team('MEMORY.md'), 'utf8');
      const mainBefore = await fs.readFile(path.join(r.memoryDir, 'MEMORY.md'), 'utf8');

      const room = await ok<{ rev: string; notes: string[]; retired: string | null }>(r.api, 'index.makeRoom', {
        dir: '-work-app',
        scope: 'team',
        baseText: teamIndexBefore,
        actions: [
          { kind: 'merge', line: 2, into: 1 },
          { kind: 'merge', line: 3, into: 1 },
        ],
      });
      // Retired, not deleted: the server holds it, a deleted one would come back with the next sync.
      expect(await fs.readFile(team('project_ci_runs.md'), 'utf8')).toBe('');
      await expect(fs.access(team('project_ci_draft.md'))).rejects.toThrow();
      expect(await fs.readFile(team('project_ci.md'), 'utf8')).toContain('Flaky jobs are retried once.');
      expect(room.retired).toContain('Retired team/project_ci_runs.md instead of deleting it');
      expect(room.retired).not.toContain('project_ci_draft.md');
      // No pointer names it in either index: Claude Code, which loads MEMORY.md, sees no pointer to an empty file.
      expect(await fs.readFile(team('MEMORY.md'), 'utf8')).toBe('- [CI](project_ci.md) — how CI runs\n');
      const mainAfter = await fs.readFile(path.join(r.memoryDir, 'MEMORY.md'), 'utf8');
      expect(mainAfter).toContain('(team/project_ci.md)');
      expect(mainAfter).not.toMatch(/team\/project_ci_(runs|draft)\.md/);

      // The next sync shares the retirement, and the memory does not come back with text.
      const pushed = await ok<{ push: { uploaded: string[] } }>(r.api, 'team.sync', { dir: '-work-app' });
      expect(pushed.push.uploaded).toEqual(expect.arrayContaining(['project_ci_runs.md', 'MEMORY.md']));
      expect(await fs.readFile(team('project_ci_runs.md'), 'utf8')).toBe('');
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['project_ci_runs.md']).toBe('');
      // The teammate had pointed at it from their own MEMORY.md: that pointer now dangles, and Health offers to drop it.
      await fs.appendFile(path.join(t.memoryDir, 'MEMORY.md'), '- [CI runs](team/project_ci_runs.md) — retries\n');
      await ok(t.api, 'team.sync', { dir: '-work-app' });
      expect(await fs.readFile(path.join(t.memoryDir, 'team', 'project_ci_runs.md'), 'utf8')).toBe('');
      const own = await ok<{ problems: { code: string; fix: string | null; target?: string }[] }>(t.api, 'projects.get', { dir: '-work-app' });
      expect(own.problems).toContainEqual(
        expect.objectContaining({
          code: 'dangling-link',
          fix: 'drop-pointer',
          target: 'team/project_ci_runs.md',
          // The sentence is true: the file is there, retired, not missing.
          message: expect.stringContaining('points at team/project_ci_runs.md, a retired team memory (its text emptied)'),
        }),
      );
      // A retired memory is no memory in Memdir: not listed, no Health problem offering a pointer to it, not recalled by Memdir's recall (Claude Code's still offers its path: recall-retired.test.ts).
      for (const m of [r, t]) {
        const scan = await ok<{ team: { memories: { file: string }[]; problems: { file: string | null }[] } }>(m.api, 'projects.get', { dir: '-work-app' });
        expect(scan.team.memories.map((x) => x.file)).not.toContain('project_ci_runs.md');
        expect(scan.team.problems.filter((p) => p.file === 'project_ci_runs.md')).toEqual([]);
      }

      // The merge's undo brings its text and pointers back (and the never-pushed one), and the next sync shares that.
      await ok(r.api, 'history.undo', { dir: '-work-app', rev: room.rev });
      expect(await fs.readFile(team('project_ci_runs.md'), 'utf8')).toBe(runs);
      expect(await fs.readFile(team('project_ci_draft.md'), 'utf8')).toContain('cache node_modules');
      expect(await fs.readFile(team('MEMORY.md'), 'utf8')).toBe(teamIndexBefore);
      expect(await fs.readFile(path.join(r.memoryDir, 'MEMORY.md'), 'utf8')).toBe(mainBefore);
      await ok(r.api, 'team.sync', { dir: '-work-app' });
      await ok(t.api, 'team.sync', { dir: '-work-app' });
      expect(await fs.readFile(path.join(t.memoryDir, 'team', 'project_ci_runs.md'), 'utf8')).toBe(runs);

      // Health's merge (the same takeaway as Make room's) retires it too.
      const merged = await mergeMemories(
        { memoryDir: r.memoryDir, scope: 'team', dataDir: r.ctx.dataDir },
        { keeper: 'project_ci.md', others: ['project_ci_runs.md'] },
      );
      expect(merged).toMatchObject({
        retired: ['team/project_ci_runs.md'],
        note: expect.stringContaining('Retired team/project_ci_runs.md instead of deleting it'),
      });
      expect(await fs.readFile(team('project_ci_runs.md'), 'utf8')).toBe('');
      expect(await fs.readFile(path.join(r.memoryDir, 'MEMORY.md'), 'utf8')).not.toContain('team/project_ci_runs.md');
    } finally {
      await r.ctx.close();
      await t.ctx.close();
    }
  });

  it('undoing the creation of a team memory pushed since retires it (its pointers go, the next sync shares it); one never pushed is deleted', async () => {
    const u = await machine('retire-u');
    try {
      await u.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      const create = (file: string, name: string) =>
        ok<{ file: string; rev: string }>(u.api, 'memories.create', {
          dir: '-work-app',
          scope: 'team',
          memoryDir: u.memoryDir,
          fields: { name, description: `${name} in one line`, type: 'project' },
          body: `${name}: tagged on every merge.`,
          file,
        });
      const shared = await create('project_release_tags.md', 'Release tags');
      await ok(u.api, 'team.sync', { dir: '-work-app' });
      const fresh = await create('project_release_notes.md', 'Release notes');
      const team = (f: string) => path.join(u.memoryDir, 'team', f);
      expect(await fs.readFile(path.join(u.memoryDir, 'MEMORY.md'), 'utf8')).toContain('team/project_release_tags.md');

      const undone = await ok<{ notes: string[] }>(u.api, 'history.undo', { dir: '-work-app', rev: shared.rev });
      expect(await fs.readFile(team('project_release_tags.md'), 'utf8')).toBe('');
      expect(undone.notes.join('\n')).toContain('Retired team/project_release_tags.md instead of deleting it');
      expect(await fs.readFile(path.join(u.memoryDir, 'MEMORY.md'), 'utf8')).not.toContain('project_release_tags.md');
      expect(await fs.readFile(team('MEMORY.md'), 'utf8')).not.toContain('project_release_tags.md');
      await ok(u.api, 'history.undo', { dir: '-work-app', rev: fresh.rev });
      await expect(fs.access(team('project_release_notes.md'))).rejects.toThrow();

      await ok(u.api, 'team.sync', { dir: '-work-app' });
      expect(await fs.readFile(team('project_release_tags.md'), 'utf8')).toBe('');
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['project_release_tags.md']).toBe('');
    } finally {
      await u.ctx.close();
    }
  });
});

describe('Retire: the one action that retires a team memory (app and `memdir team retire`)', () => {
  it('empties the file, takes its pointers out of both indexes as one history entry, the next sync shares it, and one undo brings all back', async () => {
    const v = await machine('retire-v');
    try {
      await v.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      const { rev: created } = await ok<{ rev: string }>(v.api, 'memories.create', {
        dir: '-work-app',
        scope: 'team',
        memoryDir: v.memoryDir,
        fields: { name: 'Staging', description: 'staging resets nightly', type: 'project' },
        body: 'Staging is reset every night at 02:00.',
        file: 'project_staging.md',
      });
      expect(created).toBeTruthy();
      await ok(v.api, 'team.sync', { dir: '-work-app' });
      const team = (f: string) => path.join(v.memoryDir, 'team', f);
      const text = await fs.readFile(team('project_staging.md'), 'utf8');
      const mainBefore = await fs.readFile(path.join(v.memoryDir, 'MEMORY.md'), 'utf8');
      const teamIndexBefore = await fs.readFile(team('MEMORY.md'), 'utf8');
      expect(mainBefore).toContain('(team/project_staging.md)');
      expect(teamIndexBefore).toContain('(project_staging.md)');
      // The refusal names the action that works.
      const deleted = await v.api.call('memories.delete', { dir: '-work-app', scope: 'team', file: 'project_staging.md' });
      expect(deleted).toMatchObject({ ok: false, error: { message: expect.stringContaining('`memdir team retire team/project_staging.md`') } });

      const entriesBefore = (await listHistory(v.memoryDir, { dataDir: v.ctx.dataDir })).length;
      const retired = await ok<{ file: string; rev: string }>(v.api, 'memories.retire', { dir: '-work-app', scope: 'team', file: 'project_staging.md' });
      expect(retired.file).toBe('project_staging.md');
      // 0 bytes: no frontmatter left for recall to offer it by.
      expect(await fs.readFile(team('project_staging.md'), 'utf8')).toBe('');
      expect(await fs.readFile(path.join(v.memoryDir, 'MEMORY.md'), 'utf8')).not.toContain('project_staging.md');
      expect(await fs.readFile(team('MEMORY.md'), 'utf8')).not.toContain('project_staging.md');
      const entries = await listHistory(v.memoryDir, { dataDir: v.ctx.dataDir });
      expect(entries.length).toBe(entriesBefore + 1);
      expect(entries[0]).toMatchObject({ rev: retired.rev, summary: 'Retire team/project_staging.md' });
      const scan = await ok<{ team: { memories: { file: string }[] } }>(v.api, 'projects.get', { dir: '-work-app' });
      expect(scan.team.memories.map((m) => m.file)).not.toContain('project_staging.md');

      // Retired once is enough; a private memory is deleted, not retired.
      const again = await v.api.call('memories.retire', { dir: '-work-app', scope: 'team', file: 'project_staging.md' });
      expect(again).toMatchObject({ ok: false, error: { message: 'team/project_staging.md is already retired (its text is empty).' } });
      const priv = await v.api.call('memories.retire', { dir: '-work-app', scope: 'private', file: 'project_deploys.md' });
      expect(priv).toMatchObject({ ok: false, error: { message: expect.stringContaining('Delete a private memory instead') } });

      await ok(v.api, 'team.sync', { dir: '-work-app' });
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['project_staging.md']).toBe('');
      expect(await fs.readFile(team('project_staging.md'), 'utf8')).toBe('');

      // One undo brings the text and both pointers back, byte for byte.
      await ok(v.api, 'history.undo', { dir: '-work-app', rev: retired.rev });
      expect(await fs.readFile(team('project_staging.md'), 'utf8')).toBe(text);
      expect(await fs.readFile(path.join(v.memoryDir, 'MEMORY.md'), 'utf8')).toBe(mainBefore);
      expect(await fs.readFile(team('MEMORY.md'), 'utf8')).toBe(teamIndexBefore);
    } finally {
      await v.ctx.close();
    }
  });
});

describe('every way a held team memory could leave asks the one shared-key rule (R-SYNC)', () => {
  const write = (m: { memoryDir: string }, file: string, name: string) =>
    fs.writeFile(path.join(m.memoryDir, 'team', file), topic(name, 'project', `${name}: said once, shared.`));

  it('the read answer says whether the server holds a team memory: Retire for a pushed one, a plain delete for one never pushed; bulk refusals say so too', async () => {
    const w = await machine('held-w');
    try {
      await w.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      await write(w, 'project_pushed.md', 'Pushed');
      await ok(w.api, 'team.sync', { dir: '-work-app' });
      await write(w, 'project_local.md', 'Local');
      const read = (file: string, scope = 'team') => ok<{ heldByServer: boolean }>(w.api, 'memories.read', { dir: '-work-app', scope, file });
      expect((await read('project_pushed.md')).heldByServer).toBe(true);
      expect((await read('project_local.md')).heldByServer).toBe(false);
      expect((await read('project_deploys.md', 'private')).heldByServer).toBe(false);
      // Retire answers as the read does: one never pushed is refused with how to delete it, nothing written.
      const localText = await fs.readFile(path.join(w.memoryDir, 'team', 'project_local.md'), 'utf8');
      for (const call of [
        () => w.api.call('memories.retire', { dir: '-work-app', scope: 'team', file: 'project_local.md' }),
        () => w.api.call('memories.bulk', { dir: '-work-app', action: { kind: 'retire' }, items: [{ scope: 'team', file: 'project_local.md' }] }),
      ]) {
        expect(JSON.stringify(await call())).toContain('team/project_local.md was never shared with the team (the sync server does not hold it)');
      }
      expect(await fs.readFile(path.join(w.memoryDir, 'team', 'project_local.md'), 'utf8')).toBe(localText);
      const bulk = await ok<{ done: unknown[]; refused: { file: string; heldByServer?: boolean }[] }>(w.api, 'memories.bulk', {
        dir: '-work-app',
        action: { kind: 'delete' },
        items: [
          { scope: 'team', file: 'project_pushed.md' },
          { scope: 'team', file: 'project_local.md' },
          { scope: 'team', file: 'project_gone.md' },
        ],
      });
      expect(bulk.done).toEqual([{ scope: 'team', file: 'project_local.md' }]);
      // The refused held one offers Retire; one refused for another reason does not.
      expect(bulk.refused).toEqual([
        expect.objectContaining({ file: 'project_pushed.md', heldByServer: true }),
        expect.not.objectContaining({ heldByServer: true }),
      ]);
    } finally {
      await w.ctx.close();
    }
  });

  it('a whole-snapshot restore to before a held team memory existed retires it instead of deleting it; one never pushed is deleted', async () => {
    const x = await machine('held-x');
    try {
      await x.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      await ok(x.api, 'team.sync', { dir: '-work-app' });
      // A history to restore to, whatever the team held already (run alone, the sync pulls nothing).
      await ok(x.api, 'memories.create', {
        dir: '-work-app',
        scope: 'private',
        memoryDir: x.memoryDir,
        fields: { name: 'Mine', description: 'Mine in one line', type: 'project' },
        body: 'Mine: before the team memories.',
        file: 'project_mine.md',
      });
      const before = (await listHistory(x.memoryDir, { dataDir: x.ctx.dataDir }))[0]!.rev;
      const create = (file: string, name: string) =>
        ok<{ rev: string }>(x.api, 'memories.create', {
          dir: '-work-app',
          scope: 'team',
          memoryDir: x.memoryDir,
          fields: { name, description: `${name} in one line`, type: 'project' },
          body: `${name}: tagged on every merge.`,
          file,
        });
      await create('project_held.md', 'Held');
      await ok(x.api, 'team.sync', { dir: '-work-app' });
      await create('project_fresh.md', 'Fresh');
      const team = (f: string) => path.join(x.memoryDir, 'team', f);

      // What the app shows before the restore is confirmed says so.
      const plan = await ok<{ changes: { path: string; status: string }[] }>(x.api, 'history.plan', { dir: '-work-app', rev: before });
      expect(plan.changes).toContainEqual({ path: 'team/project_fresh.md', status: 'deleted' });
      expect(plan.changes).toContainEqual({ path: 'team/project_held.md', status: 'retired' });

      const restored = await ok<{ notes: string[] }>(x.api, 'history.restore', { dir: '-work-app', rev: before });
      expect(await fs.readFile(team('project_held.md'), 'utf8')).toBe('');
      await expect(fs.access(team('project_fresh.md'))).rejects.toThrow();
      expect(restored.notes.join('\n')).toContain('Retired team/project_held.md instead of deleting it');
      expect(await fs.readFile(path.join(x.memoryDir, 'MEMORY.md'), 'utf8')).not.toContain('project_held.md');
      // Retired already: a second restore leaves it as it is.
      const again = await ok<{ changes: { path: string }[] }>(x.api, 'history.plan', { dir: '-work-app', rev: before });
      expect(again.changes).not.toContainEqual(expect.objectContaining({ path: 'team/project_held.md' }));

      await ok(x.api, 'team.sync', { dir: '-work-app' });
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['project_held.md']).toBe('');
      expect(await fs.readFile(team('project_held.md'), 'utf8')).toBe('');
    } finally {
      await x.ctx.close();
    }
  });

  it('`memdir merge undo` of a merge whose team memory was pushed since retires it instead of deleting it', async () => {
    const y = await machine('held-y');
    try {
      const old = path.join(path.dirname(path.dirname(y.memoryDir)), '-work-old', 'memory');
      await fs.mkdir(path.join(old, 'team'), { recursive: true });
      await fs.writeFile(path.join(old, 'team', 'project_moved.md'), topic('Moved', 'project', 'Moved: came with the merge.'));
      await fs.writeFile(path.join(old, 'team', 'MEMORY.md'), '- [Moved](project_moved.md) — came with the merge\n');
      await fs.writeFile(path.join(old, 'project_old.md'), topic('Old', 'project', 'Old: private.'));
      await y.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      const merged = await ok<{ id: string }>(y.api, 'identity.merge', { from: '-work-old', into: '-work-app', force: true });
      const team = (f: string) => path.join(y.memoryDir, 'team', f);
      expect(await fs.readFile(team('project_moved.md'), 'utf8')).toContain('came with the merge');
      await ok(y.api, 'team.sync', { dir: '-work-app' });

      const undone = await ok<{ notes: string[] }>(y.api, 'identity.undo', { id: merged.id });
      expect(await fs.readFile(team('project_moved.md'), 'utf8')).toBe('');
      expect(undone.notes.join('\n')).toContain('Retired team/project_moved.md instead of deleting it');
      // Back where it came from, and the next sync does not bring the text back here.
      expect(await fs.readFile(path.join(old, 'team', 'project_moved.md'), 'utf8')).toContain('came with the merge');
      await ok(y.api, 'team.sync', { dir: '-work-app' });
      expect(await fs.readFile(team('project_moved.md'), 'utf8')).toBe('');
      // The team index the merge created and the sync pushed loses the merge's line here and on the
      // server: removed, the next sync would pull it back, pointing the agent at the emptied memory.
      expect(await fs.readFile(team('MEMORY.md'), 'utf8')).not.toContain('project_moved.md');
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['MEMORY.md']).not.toContain('project_moved.md');
    } finally {
      await y.ctx.close();
    }
  });

  it("a merge's undo goes ahead when a sync already pulled the team memory back into the old folder with the very bytes the undo would write", async () => {
    const w = await machine('held-w');
    try {
      const old = path.join(path.dirname(path.dirname(w.memoryDir)), '-work-old', 'memory');
      await fs.mkdir(path.join(old, 'team'), { recursive: true });
      const moved = topic('Shared', 'project', 'Shared: in both folders of the team.');
      await fs.writeFile(path.join(old, 'team', 'project_shared.md'), moved);
      await fs.writeFile(path.join(old, 'project_old.md'), topic('Old', 'project', 'Old: private.'));
      // Both folders sync the one team: the old one has shared its memory.
      await w.ctx.team.connect('-work-old', { server: server.url, team: server.team, token: server.tokens[0]! });
      await w.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      await ok(w.api, 'team.sync', { dir: '-work-old' });
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['project_shared.md']).toBe(moved);
      const merged = await ok<{ id: string }>(w.api, 'identity.merge', { from: '-work-old', into: '-work-app', force: true });
      await expect(fs.access(path.join(old, 'team', 'project_shared.md'))).rejects.toThrow();
      // Deletions never propagate: the old folder's next sync pulls the team's memory back, the very bytes it had.
      await ok(w.api, 'team.sync', { dir: '-work-old' });
      expect(await fs.readFile(path.join(old, 'team', 'project_shared.md'), 'utf8')).toBe(moved);

      // Before: refused, "changed there since — … Put it back first": nothing was lost, the bytes are the ones it would write.
      const r = await w.api.call('identity.undo', { id: merged.id });
      expect(r.ok ? null : r.error.message).toBeNull();
      expect(await fs.readFile(path.join(old, 'team', 'project_shared.md'), 'utf8')).toBe(moved);
      expect(await fs.readFile(path.join(old, 'project_old.md'), 'utf8')).toContain('Old: private.');
    } finally {
      await w.ctx.close();
    }
  });

  it("a merge's undo leaves the team its memory when the old and new folders sync the same team: the next syncs keep its text on the server and in both folders", async () => {
    const v = await machine('held-v');
    try {
      await createTeam(store, 'keepers');
      const token = (await issueToken(store, 'keepers', 'vic')).token;
      const old = path.join(path.dirname(path.dirname(v.memoryDir)), '-work-old', 'memory');
      await fs.mkdir(path.join(old, 'team'), { recursive: true });
      const kept = topic('Kept', 'project', "Kept: the team's, before any merge.");
      const index = "- [Kept](project_kept.md) — the team's\n";
      await fs.writeFile(path.join(old, 'team', 'project_kept.md'), kept);
      await fs.writeFile(path.join(old, 'team', 'MEMORY.md'), index);
      await fs.writeFile(path.join(old, 'project_old.md'), topic('Old', 'project', 'Old: private.'));
      // Connecting syncs: the team has the memory from the old folder before the merge.
      await v.ctx.team.connect('-work-old', { server: server.url, team: 'keepers', token });
      const onServer = () => serverEntries(server.url, 'keepers', token);
      expect((await onServer())['project_kept.md']).toBe(kept);

      // The merge brings it into the new folder, which then joins the same team: the server holds it there too.
      const merged = await ok<{ id: string; plan: { files: { area: string; file: string; action: string }[] } }>(v.api, 'identity.merge', {
        from: '-work-old',
        into: '-work-app',
        force: true,
      });
      expect(merged.plan.files).toContainEqual({ area: 'team', file: 'project_kept.md', action: 'add' });
      await v.ctx.team.connect('-work-app', { server: server.url, team: 'keepers', token });
      await ok(v.api, 'team.sync', { dir: '-work-old' });
      const undone = await ok<{ notes: string[] }>(v.api, 'identity.undo', { id: merged.id });
      // Before: "Retired team/project_kept.md instead of deleting it", and the syncs below emptied it for the whole team.
      expect(undone.notes.join('\n')).not.toContain('Retired team/project_kept.md');
      expect(undone.notes.join('\n')).toContain("team/project_kept.md is the team's");
      expect(await fs.readFile(path.join(old, 'team', 'project_kept.md'), 'utf8')).toBe(kept);
      expect(await fs.readFile(path.join(old, 'project_old.md'), 'utf8')).toContain('Old: private.');
      await expect(fs.access(path.join(v.memoryDir, 'project_old.md'))).rejects.toThrow();

      for (let round = 0; round < 2; round++) {
        await ok(v.api, 'team.sync', { dir: '-work-app' });
        await ok(v.api, 'team.sync', { dir: '-work-old' });
      }
      const entries = await onServer();
      expect(entries['project_kept.md']).toBe(kept);
      expect(entries['MEMORY.md']).toContain('project_kept.md');
      expect(await fs.readFile(path.join(old, 'team', 'project_kept.md'), 'utf8')).toBe(kept);
      expect(await fs.readFile(path.join(old, 'team', 'MEMORY.md'), 'utf8')).toContain('project_kept.md');
      // The new folder syncs the same team: the team's memory comes to it as to any of the team's folders.
      expect(await fs.readFile(path.join(v.memoryDir, 'team', 'project_kept.md'), 'utf8')).toBe(kept);
    } finally {
      await v.ctx.close();
    }
  });

  it('a whole-snapshot restore to before such a merge leaves the team its memory too (plan, restore, next syncs)', async () => {
    const w = await machine('held-w');
    try {
      await createTeam(store, 'restorers');
      const token = (await issueToken(store, 'restorers', 'wen')).token;
      const old = path.join(path.dirname(path.dirname(w.memoryDir)), '-work-old', 'memory');
      await fs.mkdir(path.join(old, 'team'), { recursive: true });
      const kept = topic('Kept', 'project', "Kept: the team's, before any merge.");
      await fs.writeFile(path.join(old, 'team', 'project_kept.md'), kept);
      await fs.writeFile(path.join(old, 'project_old.md'), topic('Old', 'project', 'Old: private.'));
      await w.ctx.team.connect('-work-old', { server: server.url, team: 'restorers', token });
      await ok(w.api, 'memories.create', {
        dir: '-work-app',
        scope: 'private',
        memoryDir: w.memoryDir,
        fields: { name: 'Mine', description: 'Mine in one line', type: 'project' },
        body: 'Mine: before the merge.',
        file: 'project_mine.md',
      });
      const before = (await listHistory(w.memoryDir, { dataDir: w.ctx.dataDir }))[0]!.rev;
      await ok(w.api, 'identity.merge', { from: '-work-old', into: '-work-app', force: true });
      await w.ctx.team.connect('-work-app', { server: server.url, team: 'restorers', token });
      await ok(w.api, 'team.sync', { dir: '-work-old' });

      const plan = await ok<{ changes: { path: string; status: string }[] }>(w.api, 'history.plan', { dir: '-work-app', rev: before });
      expect(plan.changes).toContainEqual({ path: 'team/project_kept.md', status: 'deleted' });
      const restored = await ok<{ notes: string[] }>(w.api, 'history.restore', { dir: '-work-app', rev: before });
      // Before: "Retired team/project_kept.md", and the next syncs emptied it for the whole team.
      expect(restored.notes.join('\n')).not.toContain('Retired team/project_kept.md');
      expect(restored.notes.join('\n')).toContain("team/project_kept.md is the team's");
      await expect(fs.access(path.join(w.memoryDir, 'project_old.md'))).rejects.toThrow();

      for (let round = 0; round < 2; round++) {
        await ok(w.api, 'team.sync', { dir: '-work-app' });
        await ok(w.api, 'team.sync', { dir: '-work-old' });
      }
      expect((await serverEntries(server.url, 'restorers', token))['project_kept.md']).toBe(kept);
      expect(await fs.readFile(path.join(old, 'team', 'project_kept.md'), 'utf8')).toBe(kept);
      expect(await fs.readFile(path.join(w.memoryDir, 'team', 'project_kept.md'), 'utf8')).toBe(kept);
    } finally {
      await w.ctx.close();
    }
  });

  it("a merge's undo still retires what the merge pushed to the new folder's team when the old folder syncs another team", async () => {
    const u = await machine('held-u');
    try {
      await createTeam(store, 'olders');
      await createTeam(store, 'newers');
      const oldToken = (await issueToken(store, 'olders', 'uma')).token;
      const newToken = (await issueToken(store, 'newers', 'uma')).token;
      const old = path.join(path.dirname(path.dirname(u.memoryDir)), '-work-old', 'memory');
      await fs.mkdir(path.join(old, 'team'), { recursive: true });
      const carried = topic('Carried', 'project', "Carried: the old team's.");
      await fs.writeFile(path.join(old, 'team', 'project_carried.md'), carried);
      await fs.writeFile(path.join(old, 'project_old.md'), topic('Old', 'project', 'Old: private.'));
      await u.ctx.team.connect('-work-old', { server: server.url, team: 'olders', token: oldToken });
      await u.ctx.team.connect('-work-app', { server: server.url, team: 'newers', token: newToken });
      await ok(u.api, 'team.sync', { dir: '-work-old' });

      const merged = await ok<{ id: string }>(u.api, 'identity.merge', { from: '-work-old', into: '-work-app', force: true });
      await ok(u.api, 'team.sync', { dir: '-work-app' });
      expect((await serverEntries(server.url, 'newers', newToken))['project_carried.md']).toBe(carried);
      const undone = await ok<{ notes: string[] }>(u.api, 'identity.undo', { id: merged.id });
      expect(undone.notes.join('\n')).toContain('Retired team/project_carried.md instead of deleting it');
      await ok(u.api, 'team.sync', { dir: '-work-app' });
      await ok(u.api, 'team.sync', { dir: '-work-old' });
      // The new team had it only from the merge: emptied there. The old team keeps it.
      expect((await serverEntries(server.url, 'newers', newToken))['project_carried.md']).toBe('');
      expect((await serverEntries(server.url, 'olders', oldToken))['project_carried.md']).toBe(carried);
      expect(await fs.readFile(path.join(old, 'team', 'project_carried.md'), 'utf8')).toBe(carried);
    } finally {
      await u.ctx.close();
    }
  });

  it('a merge undo killed right after it retired a held team memory is put back whole: the memory has its text again, as the merge left it', async () => {
    const z = await machine('held-z');
    try {
      const old = path.join(path.dirname(path.dirname(z.memoryDir)), '-work-old', 'memory');
      await fs.mkdir(path.join(old, 'team'), { recursive: true });
      await fs.writeFile(path.join(old, 'team', 'project_carried.md'), topic('Carried', 'project', 'Carried: came with the merge.'));
      await fs.writeFile(path.join(old, 'team', 'MEMORY.md'), '- [Carried](project_carried.md) — came with the merge\n');
      await fs.writeFile(path.join(old, 'project_old.md'), topic('Old', 'project', 'Old: private.'));
      await z.ctx.team.connect('-work-app', { server: server.url, team: server.team, token: server.tokens[0]! });
      const merged = await ok<{ id: string }>(z.api, 'identity.merge', { from: '-work-old', into: '-work-app', force: true });
      await ok(z.api, 'team.sync', { dir: '-work-app' });
      const tree = async (dir: string) =>
        Object.fromEntries(
          await Promise.all(
            (await fs.readdir(dir, { recursive: true, withFileTypes: true }))
              .filter((e) => e.isFile())
              .map(async (e) => [path.relative(dir, path.join(e.parentPath, e.name)), await fs.readFile(path.join(e.parentPath, e.name), 'utf8')] as const),
          ),
        );
      const asMerged = { app: await tree(z.memoryDir), old: await tree(old).catch(() => ({})) };
      const moved = path.join(z.memoryDir, 'team', 'project_carried.md');
      expect(asMerged.app['team/project_carried.md']).toContain('came with the merge');

      // A real `memdir merge undo` in another process, SIGKILLed the moment it has retired the held memory (emptied it).
      const worker = await startWorker(await bundleWorker('src/main/relink/test-support/merge-worker.ts'), [
        'undo',
        z.ctx.dataDir,
        merged.id,
        '--kill-after-writing',
        moved,
      ]);
      worker.child.stdin?.end('go\n');
      const [, signal] = await worker.exit;
      expect(signal, worker.stderr()).toBe('SIGKILL');
      expect(await fs.readFile(moved, 'utf8')).toBe('');

      // What the next command or the app's start does first: the undo is put back, the merge stands as it was.
      const told = await finishUnfinishedTurn(z.ctx.dataDir);
      expect(told).toMatch(/^Memdir was stopped while undoing /);
      expect(told).not.toContain('changed since');
      expect({ app: await tree(z.memoryDir), old: await tree(old).catch(() => ({})) }).toEqual(asMerged);
    } finally {
      await z.ctx.close();
    }
  });
});
