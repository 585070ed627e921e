/**
 * R-TEAM, R-SYNC, R-SYNC-SECURITY against the real Claude Code: its team memory store really
 * synced, offline (test-support/claude-code-stores-cases.ts says what that takes). What it sent,
 * what it wrote under the memory folder and what the server held after each session must equal
 * the recording (test/fixtures/claude-code-stores/), which claude-code-stores.test.ts holds
 * Memdir's model to without the binary. `MEMDIR_RECORD_STORES_FIXTURE=1` rewrites the recording.
 * Skipped, with the reason, when the pinned Claude Code or openssl is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layOutExtractHome, normalizeObserved } from '../extract/test-support/claude-code-extract-cases.js';
import { type FakeAnthropic, makeFakeCertificate, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { createFakeMemoryStores } from '../llm/test-support/fake-memory-stores.js';
import { EMBEDDED_SESSION_ENV, REAL_CLAUDE_CODE, debugLogIn, runClaudeCode, runClaudeCodeTurns } from '../llm/test-support/real-claude-code.js';
import { markersIn } from '../../../test/fidelity/team-index-case.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import {
  FAKE_GITHUB_TOKEN,
  HELD_DELETE_FIXTURE,
  HELD_DELETE_HOW,
  HELD_DELETE_SCENARIO,
  type HeldDeleteSession,
  LOADED_FILES,
  LOADED_FIXTURE,
  LOADED_HOW,
  type LoadedRecording,
  type LoadedRun,
  RO_FIXTURE,
  RO_HOW,
  RO_MOUNT,
  RO_SCENARIO,
  RO_STORE,
  RW_MOUNT,
  type RoRecording,
  type RoSession,
  RW_STORE,
  SIDECARS,
  SIDECAR_FOLDERS,
  USER_STORE,
  STORES_FIXTURE,
  STORES_HOW,
  STORE_SCENARIO,
  SYNC_STORES,
  type StoreSession,
  type StoresRecording,
  normalizeSidecar,
  storeSyncEnv,
  trustProject,
} from './test-support/claude-code-stores-cases.js';

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-stores-live-')));
const certificate = REAL_CLAUDE_CODE.found ? makeFakeCertificate(scratch) : { reason: REAL_CLAUDE_CODE.reason };
const skip = 'reason' in certificate ? certificate.reason : null;
const record = process.env.MEMDIR_RECORD_STORES_FIXTURE === '1';

/** Ids, times and the made-up token made constant, so that runs compare. */
const constant = (text: string) => normalizeSidecar(text).replaceAll(FAKE_GITHUB_TOKEN, '<github-token>');

function walk(dir: string, rel = ''): string[] {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const r = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? walk(dir, r) : e.isFile() ? [r] : [];
  });
}

describe.skipIf(skip !== null)(`Claude Code's own team memory store sync, recorded for Memdir${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fake: FakeAnthropic;
  afterAll(async () => {
    await fake?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });
  beforeAll(() => undefined);

  it('pull, push, conflict, a local delete, a read-only store, a secret and hostile path keys', async () => {
    const cert = certificate as { cert: string; key: string; certFile: string };
    const stores = createFakeMemoryStores();
    fake = await startFakeAnthropic({ routes: (r) => stores.routes(r), tls: cert });
    const home = layOutExtractHome(path.join(scratch, 'home'));
    trustProject(home.configDir, home.project);
    const debugLog = debugLogIn(path.join(scratch, 'home'));
    const write = (files: Record<string, string>) => {
      for (const [rel, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(home.memoryDir, rel)), { recursive: true });
        fs.writeFileSync(path.join(home.memoryDir, rel), text);
      }
    };
    const serve = (server: Record<string, Record<string, string>>) => {
      for (const [store, files] of Object.entries(server)) {
        stores.provision(store);
        for (const [key, text] of Object.entries(files)) stores.put(store, key, text);
      }
    };
    let logSeen = 0;
    const session = async (): Promise<StoreSession> => {
      const run = await runClaudeCodeTurns(['hello there friend'], debugLog.args, {
        cwd: home.project,
        configDir: home.configDir,
        scratch: path.join(scratch, 'home', 'scratch'),
        baseUrl: fake.url,
        env: { ...EMBEDDED_SESSION_ENV, ...storeSyncEnv(fake.proxyUrl!, cert.certFile) },
        // The client pulls and pushes once at start; the second session's conflict refetch comes just after.
        beforeExit: () => new Promise((resolve) => setTimeout(resolve, 3_000)),
        timeoutMs: 90_000,
      });
      expect(run.code, run.stderr).toBe(0);
      const all = fake.requests.splice(0);
      const requests = all.filter((r) => r.path.includes('/memories'));
      const messages = all.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages'));
      const system = (r: (typeof all)[number]) => ((r.body?.system ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('\n');
      const main = messages.find((r) => system(r).includes('# Memory'));
      const disk: StoreSession['disk'] = {};
      for (const rel of walk(home.memoryDir).sort()) {
        const abs = path.join(home.memoryDir, rel);
        disk[rel] = { mode: (fs.statSync(abs).mode & 0o777).toString(8), content: constant(fs.readFileSync(abs, 'utf8')) };
      }
      const lines = debugLog.read().split('\n');
      const log = lines
        .slice(logSeen)
        .filter((l) => l.includes('multi-store-sync'))
        .map((l) => constant(l.replace(/^\S+ /, '').replace(/\d+(\.\d+)?\s?ms\b/g, '<ms>')))
        .sort();
      logSeen = lines.length;
      return {
        requests: requests.map((r) => constant(`${r.method} ${r.path}${r.rawBody ? ` ${r.rawBody}` : ''}`)).sort(),
        disk,
        server: Object.fromEntries(
          Object.keys({ ...STORE_SCENARIO.server1 }).map((s) => [s, JSON.parse(constant(JSON.stringify(stores.files(s)))) as Record<string, string>]),
        ),
        log,
        memorySection: main ? normalizeObserved(/^# Memory\n[\s\S]*?(?=\n# )/m.exec(system(main))?.[0] ?? '', home, null) : '(no request held one)',
      };
    };

    serve(STORE_SCENARIO.server1);
    write(STORE_SCENARIO.disk1);
    const first = await session();
    serve(STORE_SCENARIO.server2);
    write(STORE_SCENARIO.disk2);
    for (const rel of STORE_SCENARIO.deleted2) fs.rmSync(path.join(home.memoryDir, rel));
    const second = await session();

    // The client keeps its sidecars in every mount it synced.
    for (const mount of ['team/memstore_team', 'team/memstore_ro']) for (const s of SIDECARS) expect(first.disk[`${mount}/${s}`]).toBeDefined();
    const seen: StoresRecording = {
      client: REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.version : null,
      how: STORES_HOW,
      stores: SYNC_STORES,
      scenario: JSON.parse(constant(JSON.stringify(STORE_SCENARIO))) as StoresRecording['scenario'],
      sessions: [first, second],
    };
    if (record) {
      fs.mkdirSync(path.dirname(STORES_FIXTURE), { recursive: true });
      fs.writeFileSync(STORES_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    } else expect(seen).toEqual(JSON.parse(fs.readFileSync(STORES_FIXTURE, 'utf8')));
  }, 240_000);

  // R-INDEX in store mode: the client's Memory section drops "MEMORY.md is loaded each session";
  // what does it load? Seen with 2.1.332: without stores, MEMORY.md (an AutoMem instruction, in
  // the messages, not the system prompt); with stores, no index at all, of any folder.
  it('what it loads at session start, with stores and without', async () => {
    const cert = certificate as { cert: string; key: string; certFile: string };
    /**
     * One `-p` session in the home `name` (laid out with LOADED_FILES the first time), with
     * `stores` as CLAUDE_MEMORY_STORES; `unreachable`: the client's proxy is a closed port, so
     * api.anthropic.com (the stores, the policy) cannot be reached while the model can.
     */
    const run = async (name: string, stores: string | undefined, opts: { unreachable?: boolean } = {}): Promise<LoadedRun> => {
      const memoryStores = createFakeMemoryStores();
      for (const s of [USER_STORE, RW_STORE, RO_STORE]) memoryStores.provision(s);
      const api = await startFakeAnthropic({ routes: (r) => memoryStores.routes(r), tls: cert });
      try {
        const root = path.join(scratch, name);
        const fresh = !fs.existsSync(root);
        const home = fresh ? layOutExtractHome(root) : { root, configDir: path.join(root, 'config'), project: path.join(root, 'project') };
        const memoryDir = path.join(home.configDir, 'projects', sanitizeDirName(home.project), 'memory');
        if (fresh) {
          trustProject(home.configDir, home.project);
          for (const [rel, text] of Object.entries(LOADED_FILES)) {
            fs.mkdirSync(path.dirname(path.join(memoryDir, rel)), { recursive: true });
            fs.writeFileSync(path.join(memoryDir, rel), text);
          }
        }
        const folder = path.dirname(memoryDir);
        for (const f of fs.readdirSync(folder)) if (f.endsWith('.jsonl')) fs.rmSync(path.join(folder, f));
        const proxy = opts.unreachable ? 'http://127.0.0.1:9' : api.proxyUrl!;
        const env = { ...EMBEDDED_SESSION_ENV, ...storeSyncEnv(proxy, cert.certFile), CLAUDE_MEMORY_STORES: stores };
        const done = await runClaudeCode(['-p', 'hello there friend'], {
          cwd: home.project,
          configDir: home.configDir,
          scratch: path.join(root, 'scratch'),
          baseUrl: api.url,
          env,
          timeoutMs: 90_000,
        });
        expect(done.code, done.stderr).toBe(0);
        const transcript = fs.readdirSync(folder).find((f) => f.endsWith('.jsonl'));
        const lines = transcript ? fs.readFileSync(path.join(folder, transcript), 'utf8').split('\n').filter(Boolean) : [];
        const instructions = lines.flatMap((l) => {
          const a = (JSON.parse(l) as { attachment?: { type?: string; files?: { path: string; type: string }[] } }).attachment;
          return a?.type === 'instructions' ? (a.files ?? []).map((f) => `${path.relative(memoryDir, f.path)} (${f.type})`) : [];
        });
        const reached = markersIn(LOADED_FILES, JSON.stringify(api.messageRequests().map((r) => r.body)));
        return {
          instructions,
          reached: Object.entries(reached)
            .filter(([, hit]) => hit)
            .map(([marker]) => marker),
          // The user store's sidecar (the memory folder's own, '') is left out: the client writes it when its
          // background sync of that store ends before `-p` exits, which it did on the clean-clone CI under load
          // and not on a quiet machine (the team mounts' sidecars were there both times).
          sidecars: SIDECAR_FOLDERS.filter((f) => f !== '' && fs.existsSync(path.join(memoryDir, f, '.memory-sync'))),
        };
      } finally {
        await api.close();
      }
    };
    const withStores = await run('loaded-with', SYNC_STORES);
    const seen: LoadedRecording = {
      client: REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.version : null,
      how: LOADED_HOW,
      stores: SYNC_STORES,
      files: LOADED_FILES,
      withoutStores: await run('loaded-without', undefined),
      withStores,
      // The same home again, the setting dropped: the sidecars of the sync before are still there.
      sidecarsWithoutSetting: await run('loaded-with', undefined),
      // The setting, and the stores never reached: no sync, no sidecar.
      settingNeverSynced: await run('loaded-unsynced', SYNC_STORES, { unreachable: true }),
    };
    if (record) fs.writeFileSync(LOADED_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(fs.readFileSync(LOADED_FIXTURE, 'utf8')));
  }, 240_000);

  /**
   * A fresh home whose stores hold `server` (store path → key → text) and the fake serving them;
   * `session()` runs one session of the client there and hands back the memory-store calls it made.
   */
  async function storeHome(name: string, server: Record<string, Record<string, string>>) {
    const cert = certificate as { cert: string; key: string; certFile: string };
    const stores = createFakeMemoryStores();
    for (const s of [USER_STORE, RW_STORE, RO_STORE]) stores.provision(s);
    for (const [store, files] of Object.entries(server)) for (const [key, text] of Object.entries(files)) stores.put(store, key, text);
    const api = await startFakeAnthropic({ routes: (r) => stores.routes(r), tls: cert });
    const home = layOutExtractHome(path.join(scratch, name));
    trustProject(home.configDir, home.project);
    const session = async (store: string) => {
      const done = await runClaudeCodeTurns(['hello there friend'], [], {
        cwd: home.project,
        configDir: home.configDir,
        scratch: path.join(scratch, name, 'scratch'),
        baseUrl: api.url,
        env: { ...EMBEDDED_SESSION_ENV, ...storeSyncEnv(api.proxyUrl!, cert.certFile) },
        beforeExit: () => new Promise((resolve) => setTimeout(resolve, 3_000)),
        timeoutMs: 90_000,
      });
      expect(done.code, done.stderr).toBe(0);
      return api.requests
        .splice(0)
        .filter((r) => r.path.startsWith(`${store}/`) && r.method !== 'GET')
        .map((r) => constant(`${r.method} ${r.path}`));
    };
    return { stores, api, home, session };
  }

  // A read-only store: an edit on disk is never pushed, kept while the store's copy stays, and
  // replaced (no copy kept) when it changes; a file deleted on disk comes back.
  it('what becomes of a local edit and a local delete in a read-only store', async () => {
    const { stores, api, home, session: run } = await storeHome('ro', { [RO_STORE]: RO_SCENARIO.server });
    try {
      const folder = path.join(home.memoryDir, RO_MOUNT);
      const session = async (): Promise<RoSession> => {
        const writes = await run(RO_STORE);
        return {
          disk: Object.fromEntries(
            fs
              .readdirSync(folder)
              .sort()
              .map((f) => [f, constant(fs.readFileSync(path.join(folder, f), 'utf8'))]),
          ),
          server: stores.files(RO_STORE),
          writes,
        };
      };
      const first = await session();
      fs.writeFileSync(path.join(folder, RO_SCENARIO.edited.file), RO_SCENARIO.edited.content);
      fs.rmSync(path.join(folder, RO_SCENARIO.deleted));
      const second = await session();
      stores.put(RO_STORE, `/${RO_SCENARIO.edited.file}`, RO_SCENARIO.serverChange);
      const third = await session();
      const seen: RoRecording = {
        client: REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.version : null,
        how: RO_HOW,
        stores: SYNC_STORES,
        ...JSON.parse(JSON.stringify(RO_SCENARIO)),
        sessions: [first, second, third],
      } as RoRecording;
      if (record) fs.writeFileSync(RO_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
      else expect(seen).toEqual(JSON.parse(fs.readFileSync(RO_FIXTURE, 'utf8')));
    } finally {
      await api.close();
    }
  }, 240_000);

  // R-SYNC says a pull restores a file deleted locally; the client holds the delete in its basis instead.
  it('a local delete in a read-write store', async () => {
    const { stores, api, home, session: run } = await storeHome('held', { [RW_STORE]: HELD_DELETE_SCENARIO.server });
    try {
      const folder = path.join(home.memoryDir, RW_MOUNT);
      const session = async (): Promise<HeldDeleteSession> => {
        const writes = await run(RW_STORE);
        const basis = JSON.parse(fs.readFileSync(path.join(folder, '.memory-sync-basis'), 'utf8')) as { deletes: [string, number, number][] };
        return {
          files: fs.readdirSync(folder).sort(),
          deletes: basis.deletes.map(([p, , n]) => [p, n]),
          server: Object.keys(stores.files(RW_STORE)).sort(),
          writes,
        };
      };
      const sessions = [await session()];
      fs.rmSync(path.join(folder, HELD_DELETE_SCENARIO.deleted));
      sessions.push(await session(), await session());
      stores.put(RW_STORE, `/${HELD_DELETE_SCENARIO.deleted}`, HELD_DELETE_SCENARIO.changed);
      sessions.push(await session());
      const seen = {
        client: REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.version : null,
        how: HELD_DELETE_HOW,
        stores: SYNC_STORES,
        ...HELD_DELETE_SCENARIO,
        sessions,
      };
      if (record) fs.writeFileSync(HELD_DELETE_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
      else expect(JSON.parse(JSON.stringify(seen))).toEqual(JSON.parse(fs.readFileSync(HELD_DELETE_FIXTURE, 'utf8')));
    } finally {
      await api.close();
    }
  }, 240_000);
});
