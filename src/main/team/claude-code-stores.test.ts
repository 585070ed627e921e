/**
 * R-TEAM, R-SYNC, R-SYNC-SECURITY: Memdir beside a folder Claude Code 2.1.332 syncs itself, held to
 * the recording of what the client really did (test/fixtures/claude-code-stores/, made by
 * claude-code-stores-interop.test.ts). Always runs: no binary needed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexStatesOf } from '../../shared/index-state.js';
import { resolvedInClaudeCodeStore } from '../../shared/sync-waiting.js';
import { sanitizePathKey } from '../../shared/path-key.js';
import { scanProject } from '../memdir/index.js';
import { listMemoryFiles } from '../memdir/list-memory-files.js';
import { agentIndexView } from '../transcripts/index.js';
import { runCli } from '../../cli/main.js';
import { scanText } from '../secrets/scanner.js';
import { PERSONAL_SPACE } from './sync-space.js';
import { TeamPathError, checkTeamDir, claudeCodeStoreRefusal, listTeamFiles } from './team-paths.js';
import { makeClient, serverEntries } from './test-support/team-fixture.js';
import { useSharedTeamServer } from './test-support/shared-server.js';
import {
  FAKE_GITHUB_TOKEN,
  HELD_DELETE_FIXTURE,
  type HeldDeleteSession,
  HOSTILE_KEYS,
  LOADED_FIXTURE,
  RO_FIXTURE,
  type RoRecording,
  type LoadedRecording,
  RW_MOUNT,
  RO_STORE,
  RW_STORE,
  SIDECARS,
  STORES_FIXTURE,
  type StoresRecording,
} from './test-support/claude-code-stores-cases.js';
import { STORES_SETTING_FIXTURE } from '../recall/test-support/claude-code-stores-recall-cases.js';

const recording = JSON.parse(await fs.readFile(STORES_FIXTURE, 'utf8')) as StoresRecording;
const [first, last] = [recording.sessions[0]!, recording.sessions.at(-1)!];
const real = (text: string) => text.replaceAll('<github-token>', FAKE_GITHUB_TOKEN);
const loaded = JSON.parse(await fs.readFile(LOADED_FIXTURE, 'utf8')) as LoadedRecording;
const readOnly = JSON.parse(await fs.readFile(RO_FIXTURE, 'utf8')) as RoRecording;
const held = JSON.parse(await fs.readFile(HELD_DELETE_FIXTURE, 'utf8')) as { deleted: string; changed: string; sessions: HeldDeleteSession[] };
const h = useSharedTeamServer();

/** The memory dir as the client left it, under `memoryDir`. */
async function layOutAsSynced(memoryDir: string): Promise<void> {
  for (const [rel, { content }] of Object.entries(last.disk)) {
    await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
    await fs.writeFile(path.join(memoryDir, rel), real(content));
  }
}

describe('what the client refuses, Memdir refuses too', () => {
  it('every path key the client would not write is one Memdir refuses', () => {
    const written = new Set(Object.keys(first.disk).map((rel) => `/${path.posix.relative(RW_MOUNT, rel)}`));
    const notWritten = Object.keys(first.server[RW_STORE]!).filter((key) => !written.has(key));
    // The recording: the traversals and the hidden name never reached the disk; three of them were refused aloud.
    expect(notWritten.sort()).toEqual([HOSTILE_KEYS.percent, HOSTILE_KEYS.dotdot, HOSTILE_KEYS.hidden, HOSTILE_KEYS.backslash, HOSTILE_KEYS.fullWidth].sort());
    expect(first.log.filter((l) => l.includes('refusing to write escaping path')).length).toBe(3);
    for (const key of notWritten) expect(sanitizePathKey(key.slice(1)).ok, key).toBe(false);
  });

  it('the file the client would not push for a secret is one Memdir finds a secret in', async () => {
    const skipped = first.log.flatMap((l) => /skipping (\S+) \(secret detected\)/.exec(l)?.[1] ?? []);
    expect(skipped).toEqual(['/secret.md']);
    expect(Object.keys(first.server[RW_STORE]!)).not.toContain('/secret.md');
    const findings = await scanText(real(first.disk[`${RW_MOUNT}/secret.md`]!.content));
    expect(findings.length).toBeGreaterThan(0);
  });

  it("the client's sidecar files are not memories in Memdir's scan", async () => {
    const memoryDir = path.join(h.root, 'scan', 'memory');
    await layOutAsSynced(memoryDir);
    const listed = listMemoryFiles(path.join(memoryDir, 'team'), { excludeTeam: false }).topics.map((t) => t.file);
    for (const sidecar of SIDECARS) expect(listed.some((f) => f.endsWith(sidecar))).toBe(false);
    expect(listed).toContain('memstore_team/local.md');
  });
});

describe("Memdir's team sync leaves a folder Claude Code syncs to Claude Code", () => {
  it('pushes none of its files, pulls nothing into it, and says why', async () => {
    h.n++;
    const a = await makeClient(h.root, `a${h.n}`, h.server, h.server.tokens[0]!);
    const b = await makeClient(h.root, `b${h.n}`, h.server, h.server.tokens[1]!);
    await layOutAsSynced(a.memoryDir);
    await a.write('deploy.md', '---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\nmake deploy\n');
    const pushed = await a.sync.sync();
    expect(pushed.error).toBeNull();
    expect(pushed.push.uploaded).toEqual(['deploy.md']);
    const held = pushed.waiting.filter((w) => w.reason === 'claude-code-store');
    expect(held.map((w) => w.key).sort()).toEqual(['memstore_ro', 'memstore_team']);
    expect(held[0]!.detail).toMatch(/Claude Code syncs .*itself.*Memdir's team sync leaves it alone/);
    // Only what is true for every store: a read-only store's local files, and those the client skips, reach no one.
    expect(held[0]!.detail).toMatch(
      /Memdir's server gets none of its files; whether Claude Code's own sync sends them is up to it \(a read-only store sends none/,
    );
    expect(held[0]!.detail).not.toMatch(/reach Claude Code's store/);

    // Another machine, with no such folder, shares a file under the same name: it stays out of the client's folder.
    await b.write('memstore_team/server.md', 'from a Memdir teammate\n');
    expect((await b.sync.sync()).push.uploaded).toEqual(['memstore_team/server.md']);
    const pulled = await a.sync.sync();
    expect(pulled.pull.written).toEqual([]);
    expect(pulled.pull.refused.map((r) => r.key)).toEqual(['memstore_team/server.md']);
    expect(await a.read('memstore_team/server.md')).toBe(real(last.disk[`${RW_MOUNT}/server.md`]!.content));
  });
});

describe("Memdir's personal sync leaves a memory folder Claude Code syncs as the user's own store to Claude Code", () => {
  it('lists nothing of it to upload, says why, and writes nothing into it', async () => {
    const memoryDir = path.join(h.root, 'personal', 'memory');
    await layOutAsSynced(memoryDir);
    // The recording: a `scope: "user"` store is the memory folder itself, its manifest at the top.
    expect(last.disk['.memory-sync']).toBeDefined();
    const space = await checkTeamDir(memoryDir, PERSONAL_SPACE);
    const listing = listTeamFiles(space);
    expect([...listing.files.keys()]).toEqual([]);
    expect(listing.problems.map((p) => [p.key, p.reason])).toEqual([['.', 'claude-code-store']]);
    expect(listing.problems[0]!.detail).toMatch(/^This memory folder is a folder Claude Code syncs itself/);
    const refused = claudeCodeStoreRefusal(space, 'mine.md');
    expect(refused).toBeInstanceOf(TeamPathError);
    expect(refused!.reason).toBe('claude-code-store');
    expect(refused!.message).toBe('mine.md was not written here: this memory folder is a folder Claude Code syncs itself.');
  });
});

/** Claude Code starts syncing `team/<folder>/` on machine `c` (its manifest appears). */
async function becomesStore(c: { teamDir: string }, folder: string): Promise<void> {
  await fs.mkdir(path.join(c.teamDir, folder), { recursive: true });
  await fs.writeFile(path.join(c.teamDir, folder, '.memory-sync'), '{"v":1,"partition":"/x/store"}');
}

describe('a folder that becomes a store', () => {
  it('a conflict opened before it did is shown and resolved here, kept local, and not pushed to Memdir', async () => {
    h.n++;
    const f = `store${h.n}`;
    const a = await makeClient(h.root, `a${h.n}`, h.server, h.server.tokens[0]!);
    const b = await makeClient(h.root, `b${h.n}`, h.server, h.server.tokens[1]!);
    await a.write(`${f}/x.md`, 'v1\n');
    await a.sync.sync();
    await b.sync.sync();
    await b.write(`${f}/x.md`, 'v1\nfrom b\n');
    await b.sync.sync();
    await a.write(`${f}/x.md`, 'MY EDIT\n');
    const opened = await a.sync.sync();
    expect(opened.pull.conflicts).toEqual([`${f}/x.md`]);
    await becomesStore(a, f);

    const [x] = (await a.sync.inspect()).conflicts;
    const detail = await a.sync.conflictDetail(x!.id);
    expect(detail.mine).toBe('MY EDIT\n');
    expect(detail.theirs).toBe('v1\nfrom b\n');
    const mine = await a.sync.resolve(x!.id, 'mine');
    expect(mine.conflict.status).toBe('resolved');
    expect(await a.read(`${f}/x.md`)).toBe('MY EDIT\n');
    expect(mine.report!.push.uploaded).toEqual([]);
    expect(mine.report!.waiting.find((w) => w.reason === 'claude-code-store')?.key).toBe(f);
    // What the app's toast and `team resolve` say after it.
    expect(resolvedInClaudeCodeStore(x!.key, mine.report!.waiting, 'team/')).toBe(
      `team/${f}/x.md is saved here but not sent to Memdir's server: team/${f}/ is a folder Claude Code syncs itself, so its own sync takes it from there.`,
    );
    // Memdir's server still holds b's versions: a store folder's files are Claude Code's to sync.
    const server = await serverEntries(h.server.url, h.server.team, h.server.tokens[1]!);
    expect(server[`${f}/x.md`]).toBe('v1\nfrom b\n');
    expect((await a.sync.inspect()).conflicts).toEqual([]);
  });

  it('a sync with nothing changed costs one 304, and the refusal is said once', async () => {
    h.n++;
    const f = `store${h.n}`;
    const a = await makeClient(h.root, `a${h.n}`, h.server, h.server.tokens[0]!);
    const b = await makeClient(h.root, `b${h.n}`, h.server, h.server.tokens[1]!);
    // A key synced before the folder became a store (the usual migration), and one new to a.
    await a.write(`${f}/old.md`, 'old\n');
    await a.sync.sync();
    await becomesStore(a, f);
    await b.sync.sync();
    await b.write(`${f}/server.md`, 'from a Memdir teammate\n');
    await b.sync.sync();
    const first = await a.sync.sync();
    expect(first.pull.refused.map((r) => r.key)).toEqual([`${f}/server.md`]);
    for (let i = 0; i < 3; i++) {
      a.requests.length = 0;
      const again = await a.sync.sync();
      expect(again.error).toBeNull();
      expect(a.requests.map((q) => `${q.method} ${q.status}`)).toEqual(['GET 304']);
      expect(again.pull.refused).toEqual([]);
    }
    const pulls = (await a.alerts.list()).alerts.filter((x) => x.title === 'Some team memory entries were not written');
    expect(pulls.map((x) => x.count)).toEqual([1]);
    expect(await a.read(`${f}/server.md`)).toBeNull();

    // Claude Code stops syncing the folder: the teammate's file is missing here again, so the next sync brings it.
    await fs.rm(path.join(a.teamDir, f, '.memory-sync'));
    const after = await a.sync.sync();
    expect(after.pull.written).toContain(`${f}/server.md`);
    expect(await a.read(`${f}/server.md`)).toBe('from a Memdir teammate\n');
    expect((await a.alerts.list()).alerts.find((x) => x.title === 'Some team memory entries were not written')?.status).toBe('resolved');
  });

  it('a store folder made between the plan and the write still gets no pulled file', async () => {
    h.n++;
    const f = `store${h.n}`;
    const b = await makeClient(h.root, `b${h.n}`, h.server, h.server.tokens[1]!);
    let teamDir = '';
    const a = await makeClient(h.root, `a${h.n}`, h.server, h.server.tokens[0]!, {
      beforeWriteKey: async (key) => {
        if (key === `${f}/server.md`) await becomesStore({ teamDir }, f);
      },
    });
    teamDir = a.teamDir;
    await a.write(`${f}/other.md`, 'already here\n');
    await a.sync.sync();
    await b.write(`${f}/server.md`, 'from a Memdir teammate\n');
    await b.sync.sync();
    const r = await a.sync.sync();
    expect(r.pull.written).toEqual([]);
    expect(r.pull.refused.map((x) => x.key)).toEqual([`${f}/server.md`]);
    expect((await fs.readdir(path.join(a.teamDir, f))).sort()).toEqual(['.memory-sync', 'other.md']);
  });
});

describe('what Memdir says the agent sees, in a project whose memory Claude Code syncs with its stores', () => {
  it('no index reaches the agent, so Health offers no pointer and says why once', async () => {
    // The recording: with stores set the client loads no index at all, without them MEMORY.md.
    expect(loaded.withoutStores.instructions).toEqual(['MEMORY.md (AutoMem)']);
    expect(loaded.withStores.instructions).toEqual([]);
    expect(loaded.withStores.reached).not.toContain('MARKER-MAIN-INDEX');
    expect(loaded.withStores.reached).toContain('MARKER-STORE-A-DESC');

    const home = path.join(h.root, 'loaded-home');
    const memoryDir = path.join(home, 'projects', '-work-stores', 'memory');
    for (const [rel, text] of Object.entries(loaded.files)) {
      await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
      await fs.writeFile(path.join(memoryDir, rel), text);
    }
    // The manifests as the client wrote them after its first sync.
    for (const rel of Object.keys(first.disk).filter((r) => r.endsWith('.memory-sync')))
      await fs.writeFile(path.join(memoryDir, rel), first.disk[rel]!.content);

    const scan = await scanProject(home, '-work-stores', { env: { CLAUDE_MEMORY_STORES: loaded.stores } });
    const all = [...scan.problems, ...scan.team!.problems];
    expect(all.filter((p) => p.fix === 'add-to-index')).toEqual([]);
    expect(all.filter((p) => /not listed in MEMORY\.md|never sees it at session start/.test(p.message))).toEqual([]);
    const said = all.filter((p) => p.code === 'no-index-loaded');
    expect(said.map((p) => [p.file, p.severity])).toEqual([[null, 'hint']]);
    expect(said[0]!.message).toMatch(
      /Claude Code syncs this memory folder, team\/memstore_ro\/, team\/memstore_team\/ itself.*loads no MEMORY\.md at session start/,
    );
    expect(scan.index.loaded).toEqual([]);
    expect(scan.index.loadedLines).toBe(0);
    const stateOf = indexStatesOf(scan);
    expect(stateOf({ scope: 'private', file: 'build.md' })).toBe('no-index');
    expect(stateOf({ scope: 'team', file: 'memstore_team/a.md' })).toBe('no-index');

    // `memdir show --loaded`: the text the agent gets of MEMORY.md is none, and why.
    const view = await agentIndexView({ transcriptDirs: [], memoryDir, settings: scan.settings });
    expect(view.text).toBe('');
    expect(view.storesLoadNoIndex).toBe(said[0]!.message);
  });
});

/** A home laid out with the loading runs' files, and the client's manifests in `sidecars` (as it wrote them). */
async function loadedHome(name: string, sidecars: readonly string[]): Promise<{ home: string; memoryDir: string }> {
  const home = path.join(h.root, name);
  const memoryDir = path.join(home, 'projects', '-work-stores', 'memory');
  for (const [rel, text] of Object.entries(loaded.files)) {
    await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
    await fs.writeFile(path.join(memoryDir, rel), text);
  }
  for (const folder of sidecars) await fs.writeFile(path.join(memoryDir, folder, '.memory-sync'), first.disk[`${folder}/.memory-sync`]!.content);
  return { home, memoryDir };
}

describe('store mode is what CLAUDE_MEMORY_STORES says, not what sidecars are left', () => {
  it('the setting dropped, its sidecars left: MEMORY.md loads again, and Memdir says so', async () => {
    // Recorded: the same home, synced before, with the setting gone, loads MEMORY.md as before stores.
    expect(loaded.sidecarsWithoutSetting.sidecars).toEqual(loaded.withStores.sidecars);
    expect(loaded.sidecarsWithoutSetting.instructions).toEqual(['MEMORY.md (AutoMem)']);
    expect(loaded.sidecarsWithoutSetting.reached).toEqual(loaded.withoutStores.reached);

    const { home, memoryDir } = await loadedHome('stale-sidecars', loaded.sidecarsWithoutSetting.sidecars);
    const scan = await scanProject(home, '-work-stores', { env: {} });
    const all = [...scan.problems, ...scan.team!.problems];
    expect(all.filter((p) => p.code === 'no-index-loaded')).toEqual([]);
    expect(scan.index.loadedLines).toBe(2);
    const view = await agentIndexView({ transcriptDirs: [], memoryDir, settings: scan.settings });
    expect(view.storesLoadNoIndex).toBeNull();
    expect(view.text).toBe(loaded.files['MEMORY.md']!.trimEnd());
  });

  it('the setting in a settings file, never synced (no sidecar yet): no index loads, and Memdir says so from the first session', async () => {
    // Recorded: with the setting and the stores unreachable, nothing synced and no index loaded.
    expect(loaded.settingNeverSynced.sidecars).toEqual([]);
    expect(loaded.settingNeverSynced.instructions).toEqual([]);
    expect(loaded.settingNeverSynced.reached).toEqual(loaded.withStores.reached);

    const { home, memoryDir } = await loadedHome('never-synced', []);
    const settings = path.join(home, 'settings.json');
    await fs.writeFile(settings, JSON.stringify({ env: { CLAUDE_MEMORY_STORES: loaded.stores } }));
    const scan = await scanProject(home, '-work-stores', { env: {} });
    const all = [...scan.problems, ...scan.team!.problems];
    expect(all.filter((p) => p.fix === 'add-to-index')).toEqual([]);
    const said = all.filter((p) => p.code === 'no-index-loaded');
    expect(said.map((p) => p.message)).toEqual([
      `CLAUDE_MEMORY_STORES is set (in the env block of ${settings}), so Claude Code syncs this memory folder, team/memstore_ro/, team/memstore_team/ itself with its memory stores, and Claude Code 2.1.332 then loads no MEMORY.md at session start, synced yet or not: a pointer in an index brings nothing to the agent, which is offered memories by their descriptions instead.`,
    ]);
    expect(indexStatesOf(scan)({ scope: 'private', file: 'build.md' })).toBe('no-index');
    const view = await agentIndexView({ transcriptDirs: [], memoryDir, settings: scan.settings });
    expect(view.text).toBe('');
    expect(view.storesLoadNoIndex).toBe(said[0]!.message);
  });
});

describe('a CLAUDE_MEMORY_STORES the client cannot use as a store list', () => {
  it('still loads no index, but syncs nothing: Memdir names no store folder and says the value is unusable', async () => {
    // Recorded with 2.1.332 (test/fixtures/claude-code/stores-setting-2.1.332.json): `notjson`, `[]`
    // and `{}` load no MEMORY.md and turn recall on; blanks are as if unset.
    const settingRuns = JSON.parse(await fs.readFile(STORES_SETTING_FIXTURE, 'utf8')) as { shell: Record<string, { instructions: string[] }> };
    for (const value of ['notjson', '[]', '{}']) expect(settingRuns.shell[value]!.instructions, value).toEqual([]);
    expect(settingRuns.shell['   ']!.instructions).toEqual(['MEMORY.md (AutoMem)']);

    // Sidecars of an earlier sync are left in the folders; the client syncs none of them now.
    const { home } = await loadedHome('unusable-setting', loaded.withStores.sidecars);
    const cases: [string, string][] = [
      ['notjson', 'it is not valid JSON'],
      ['{}', 'it is not a list of stores'],
      // One bad entry makes the client refuse the whole list, the good store too.
      [JSON.stringify([RW_STORE, { path: 'no-slash', scope: 'team' }]), "entry 2 has no path starting with / (on the store's host)"],
      [JSON.stringify([RW_STORE, RW_STORE]), 'two stores mount at memstore_team'],
    ];
    for (const [value, why] of cases) {
      const scan = await scanProject(home, '-work-stores', { env: { CLAUDE_MEMORY_STORES: value } });
      const all = [...scan.problems, ...scan.team!.problems];
      expect(
        all.filter((p) => p.fix === 'add-to-index'),
        value,
      ).toEqual([]);
      expect(
        all.filter((p) => p.code === 'no-index-loaded').map((p) => p.message),
        value,
      ).toEqual([
        `CLAUDE_MEMORY_STORES is set (in the environment) but Claude Code cannot use it as a list of memory stores (${why}), so Claude Code syncs nothing; Claude Code 2.1.332 still loads no MEMORY.md at session start while it is set: a pointer in an index brings nothing to the agent, which is offered memories by their descriptions instead. Fix the value or remove it.`,
      ]);
      // No folder is a store's, so no team memory is "outside" one.
      expect(
        all.filter((p) => p.code === 'outside-store'),
        value,
      ).toEqual([]);
    }
    const empty = await scanProject(home, '-work-stores', { env: { CLAUDE_MEMORY_STORES: '[]' } });
    expect([...empty.problems, ...empty.team!.problems].filter((p) => p.code === 'no-index-loaded').map((p) => p.message)).toEqual([
      'CLAUDE_MEMORY_STORES is set (in the environment) but it names no memory store, so Claude Code syncs nothing; Claude Code 2.1.332 still loads no MEMORY.md at session start while it is set: a pointer in an index brings nothing to the agent, which is offered memories by their descriptions instead. Fix the value or remove it.',
    ]);
  });
});

describe("a read-only store's files, edited in Memdir", () => {
  it('are flagged where the file is shown: the edit stays on this machine and the store replaces it', async () => {
    // The recording: an edit on disk is never pushed, kept while the store's copy stays, then replaced by it.
    const [, edited, changed] = readOnly.sessions;
    expect(edited!.writes).toEqual([]);
    expect(edited!.disk[readOnly.edited.file]).toBe(readOnly.edited.content);
    expect(edited!.server[`/${readOnly.edited.file}`]).not.toBe(readOnly.edited.content);
    expect(changed!.disk[readOnly.edited.file]).toBe(readOnly.serverChange);
    // The manifest says nothing of the mode: only the stores setting does.
    expect(JSON.parse(edited!.disk['.memory-sync']!)).toEqual({ v: 1, partition: RO_STORE });

    const home = path.join(h.root, 'ro-home');
    const memoryDir = path.join(home, 'projects', '-work-ro', 'memory');
    await layOutAsSynced(memoryDir);
    const settings = path.join(home, 'settings.json');
    await fs.writeFile(settings, JSON.stringify({ env: { CLAUDE_MEMORY_STORES: recording.stores } }));
    const scan = await scanProject(home, '-work-ro', { env: {} });
    const flagged = scan.team!.problems.filter((p) => p.code === 'read-only-store');
    expect(flagged.map((p) => p.file).sort()).toEqual(['memstore_ro/ro-local.md', 'memstore_ro/ro-server.md']);
    expect(flagged[0]!.message).toMatch(
      /^team\/memstore_ro\/ro-\w+\.md is in a read-only memory store .*CLAUDE_MEMORY_STORES in the env block of .*settings\.json.*Claude Code never uploads an edit of it.*replaces it with the store's copy/,
    );
    expect(scan.problems.filter((p) => p.code === 'read-only-store')).toEqual([]);
    // `memdir show <project> <file> --json` gives the same sentence with the file's facts.
    let out = '';
    const cli = (file: string) =>
      runCli(['show', '-work-ro', file, '--json'], {
        out: (t) => (out = t),
        err: () => undefined,
        env: { CLAUDE_CONFIG_DIR: home, MEMDIR_DATA_DIR: path.join(h.root, 'ro-data') },
        cwd: h.root,
      });
    expect(await cli('team/memstore_ro/ro-server.md')).toBe(0);
    expect((JSON.parse(out) as { readOnlyStore: string | null }).readOnlyStore).toBe(flagged.find((p) => p.file === 'memstore_ro/ro-server.md')!.message);
    expect(await cli('team/memstore_team/local.md')).toBe(0);
    expect((JSON.parse(out) as { readOnlyStore: string | null }).readOnlyStore).toBeNull();

    // Without the setting Memdir cannot know the mode, and says nothing.
    await fs.rm(settings);
    const unknown = await scanProject(home, '-work-ro', { env: {} });
    expect(unknown.team!.problems.filter((p) => p.code === 'read-only-store')).toEqual([]);
  });
});

describe('team memories in no store folder, with a team store', () => {
  it('Health names them once and says to move them into the store folder', async () => {
    const home = path.join(h.root, 'outside-home');
    const memoryDir = path.join(home, 'projects', '-work-outside', 'memory');
    const files = { ...loaded.files, 'team/notes/plan.md': '---\nname: Plan\ndescription: the plan\ntype: project\n---\nthe plan\n' };
    for (const [rel, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
      await fs.writeFile(path.join(memoryDir, rel), text);
    }
    for (const rel of Object.keys(first.disk).filter((r) => r.endsWith('.memory-sync')))
      await fs.writeFile(path.join(memoryDir, rel), first.disk[rel]!.content);
    const scan = await scanProject(home, '-work-outside', { env: { CLAUDE_MEMORY_STORES: loaded.stores } });
    const said = [...scan.problems, ...scan.team!.problems].filter((p) => p.code === 'outside-store');
    expect(said.map((p) => [p.file, p.severity])).toEqual([[null, 'warning']]);
    expect(said[0]!.message).toBe(
      "team/loose.md and team/notes/plan.md are in team/ but in no folder Claude Code syncs with a team store (team/memstore_ro/, team/memstore_team/): Claude Code tells the agent to write team memories to team/, yet shares only those folders, so no teammate gets these unless Memdir's team sync is connected for this project. Move them into team/memstore_team/ to share them through Claude Code.",
    );

    // All in store folders: nothing to say.
    await fs.rm(path.join(memoryDir, 'team', 'loose.md'));
    await fs.rm(path.join(memoryDir, 'team', 'notes'), { recursive: true });
    const clean = await scanProject(home, '-work-outside', { env: { CLAUDE_MEMORY_STORES: loaded.stores } });
    expect(clean.team!.problems.filter((p) => p.code === 'outside-store')).toEqual([]);
  });
});

describe('a file deleted in a store folder, which Claude Code holds back', () => {
  it('Health says the store still has it and it comes back when a teammate changes it', async () => {
    // The recording: the delete is held (never sent), the file not restored, until the store's copy changes.
    const [, second, third, fourth] = held.sessions;
    expect(second!.deletes).toEqual([[`/${held.deleted}`, 1]]);
    expect(third!.deletes).toEqual([[`/${held.deleted}`, 2]]);
    expect([second!.writes, third!.writes]).toEqual([[], []]);
    expect(third!.files).not.toContain(held.deleted);
    expect(fourth!.files).toContain(held.deleted);
    expect(fourth!.deletes).toEqual([]);

    const home = path.join(h.root, 'held-home');
    const memoryDir = path.join(home, 'projects', '-work-held', 'memory');
    const folder = path.join(memoryDir, RW_MOUNT);
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, 'kept.md'), '---\nname: Kept\ndescription: kept\ntype: project\n---\nkept\n');
    await fs.writeFile(path.join(folder, '.memory-sync'), JSON.stringify({ v: 1, partition: RW_STORE }));
    // The basis as the client writes it: [path, when (ms), how many syncs saw it].
    const basis = { v: 1, partition: RW_STORE, entries: [], deletes: [[`/${held.deleted}`, 1796545458790, 2]], entriesWereOnDisk: true };
    await fs.writeFile(path.join(folder, '.memory-sync-basis'), JSON.stringify(basis));
    const scan = await scanProject(home, '-work-held', { env: { CLAUDE_MEMORY_STORES: loaded.stores } });
    const said = scan.team!.problems.filter((p) => p.code === 'held-delete');
    expect(said.map((p) => [p.file, p.severity])).toEqual([[null, 'hint']]);
    expect(said[0]!.message).toBe(
      'You deleted team/memstore_team/gone.md, but Claude Code holds the deletion back: the store keeps the file, so teammates still have it, and Claude Code puts it back here when a teammate changes it.',
    );

    // A basis Memdir cannot read as the client's says nothing.
    await fs.writeFile(path.join(folder, '.memory-sync-basis'), '{"v":2,"deletes":"?"}');
    const unknown = await scanProject(home, '-work-held', { env: { CLAUDE_MEMORY_STORES: loaded.stores } });
    expect(unknown.team!.problems.filter((p) => p.code === 'held-delete')).toEqual([]);
  });
});
