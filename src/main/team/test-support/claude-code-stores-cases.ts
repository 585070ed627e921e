/**
 * R-TEAM, R-SYNC, R-SYNC-SECURITY against Claude Code 2.1.332's own team memory: a `scope: "team"`
 * store in `CLAUDE_MEMORY_STORES`, really synced, offline. What it takes (read from the bundle and
 * seen in claude-code-stores-interop.test.ts):
 *   - a claude.ai login with the `user:inference` and `user:profile` scopes (`CLAUDE_CODE_OAUTH_TOKEN`
 *     and `CLAUDE_CODE_OAUTH_SCOPES`; an API key alone never syncs: "no_token");
 *   - the first-party API (`_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL`, since `ANTHROPIC_BASE_URL` is
 *     the loopback fake), non-essential traffic allowed, the project trusted, and the org policy
 *     allowing memory sync (a 404 from `/api/claude_code/policy_limits` means no restrictions);
 *   - the memory calls go to `https://api.anthropic.com{store.path}/memories…` (the
 *     `CLAUDE_CODE_MEMORY_API_BASE_URL` override is compiled out of the release), so the fake is
 *     also the client's HTTPS proxy, with a certificate made for the run and trusted through
 *     `NODE_EXTRA_CA_CERTS`.
 * A store entry needs only `path` (its URL prefix; no id field exists): the team store mounts at
 * `memory/team/<last path segment>/`, a `scope: "user"` store at the memory dir itself.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The recording. */
export const STORES_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-stores/observed-2.1.332.json');

/** The stores of the runs: the user's own, and two team stores, one read-write, one read-only. */
export const USER_STORE = '/v1/memory_stores/memstore_me';
export const RW_STORE = '/v1/memory_stores/memstore_team';
export const RO_STORE = '/v1/memory_stores/memstore_ro';
export const SYNC_STORES = JSON.stringify([
  { path: USER_STORE, scope: 'user', mode: 'rw' },
  { path: RW_STORE, scope: 'team', mode: 'rw' },
  { path: RO_STORE, scope: 'team', mode: 'ro' },
]);

/** Where the client mounts the two stores, relative to the memory dir. */
export const RW_MOUNT = 'team/memstore_team';
export const RO_MOUNT = 'team/memstore_ro';

/** A GitHub token made up for the runs (split so no scanner of this repository takes it for one). */
export const FAKE_GITHUB_TOKEN = `ghp_${'a1B2c3D4e5F6g7H8i9J0'}${'k1L2m3N4o5P6q7R8'}`;

/** Path keys on the server that try to lead out of the mount, and other names a store may hold. */
export const HOSTILE_KEYS: Record<string, string> = {
  dotdot: '/../escape.md',
  percent: '/%2e%2e/pct.md',
  fullWidth: '/\uff0e\uff0e/fw.md',
  backslash: '/a\\b.md',
  hidden: '/.hidden.md',
  notMarkdown: '/notes.txt',
  deep: '/ok/deep/er.md',
};

/**
 * The scenario, in two sessions of the client on one home. Before the first: the server holds
 * `/server.md` and {@link HOSTILE_KEYS}, the read-only store `/ro-server.md`, the user's store
 * `/mine.md`; the disk holds the home's seed (MEMORY.md, build.md, two links) and
 * `local.md`, `gone.md` and `secret.md` (a token) in the read-write mount and `ro-local.md` in
 * the read-only one. Before the second: a teammate changed `/server.md` and added
 * `/new-remote.md` while the disk changed `server.md` too (a conflict) and lost `gone.md`.
 */
export const STORE_SCENARIO = {
  server1: {
    [USER_STORE]: { '/mine.md': 'mine from the server\n' },
    [RW_STORE]: { '/server.md': 'server v1\n', ...Object.fromEntries(Object.values(HOSTILE_KEYS).map((k) => [k, `${k}\n`])) },
    [RO_STORE]: { '/ro-server.md': 'ro from server\n' },
  },
  disk1: {
    [`${RW_MOUNT}/local.md`]: 'local v1\n',
    [`${RW_MOUNT}/gone.md`]: 'gone v1\n',
    [`${RW_MOUNT}/secret.md`]: `deploy token ${FAKE_GITHUB_TOKEN}\n`,
    [`${RO_MOUNT}/ro-local.md`]: 'ro local\n',
  },
  server2: { [RW_STORE]: { '/server.md': 'server v2 from a teammate\n', '/new-remote.md': 'new remote\n' } },
  disk2: { [`${RW_MOUNT}/server.md`]: 'server v1 edited locally\n' },
  deleted2: [`${RW_MOUNT}/gone.md`],
} as const;

export const STORES_HOW =
  "src/main/team/claude-code-stores-interop.test.ts: two `-p` sessions of the real client on one home with `CLAUDE_MEMORY_STORES` = `stores`, a claude.ai OAuth login, and the loopback fake serving both the Messages API and (as its HTTPS proxy) api.anthropic.com's memory-store endpoints (fake-memory-stores.ts). `scenario` is what the server and disk held before each session. Per session: `requests` (memory-store calls, ids as <id>, sorted: the stores sync concurrently), `disk` (every regular file under the memory dir: mode and content, sidecars with ids and times made constant), `server` (each store's files after), `log` (the client's multi-store-sync debug lines, sorted), `memorySection` (the '# Memory' section of the first main request's system prompt).";

/** What one session did. */
export interface StoreSession {
  requests: string[];
  disk: Record<string, { mode: string; content: string }>;
  server: Record<string, Record<string, string>>;
  log: string[];
  /** The '# Memory' section of the first main request's system prompt (`$MEM`: the memory dir). */
  memorySection: string;
}

/** What {@link STORES_FIXTURE} holds. */
export interface StoresRecording {
  client: string | null;
  how: string;
  stores: string;
  scenario: typeof STORE_SCENARIO;
  sessions: StoreSession[];
}

/** The variables that make the offline client sync its stores through the fake (see the file comment). */
export function storeSyncEnv(proxyUrl: string, certFile: string): NodeJS.ProcessEnv {
  return {
    CLAUDE_MEMORY_STORES: SYNC_STORES,
    ANTHROPIC_API_KEY: undefined,
    CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-fake-token-for-interop-tests',
    CLAUDE_CODE_OAUTH_SCOPES: 'user:inference user:profile',
    _CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined,
    HTTPS_PROXY: proxyUrl,
    NO_PROXY: '127.0.0.1,localhost',
    NODE_EXTRA_CA_CERTS: certFile,
  };
}

/** Mark the project trusted in the home's `.claude.json` (sync waits for the trust dialog otherwise). */
export function trustProject(configDir: string, project: string): void {
  const file = path.join(configDir, '.claude.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  config.projects = { [project]: { hasTrustDialogAccepted: true } };
  fs.writeFileSync(file, JSON.stringify(config));
}

/** The sidecar files the client keeps in each store mount. */
export const SIDECARS = ['.memory-sync', '.memory-sync-basis'] as const;

/** Text of one run with its memory ids and times made constant; a basis's entries (written in the order the pulls ended) sorted by path. */
export function normalizeSidecar(text: string): string {
  let out = text;
  try {
    const basis = JSON.parse(text) as { entries?: [string, ...unknown[]][] };
    if (Array.isArray(basis.entries)) out = JSON.stringify({ ...basis, entries: [...basis.entries].sort((a, b) => a[0].localeCompare(b[0])) });
  } catch {
    // Not JSON: only the ids and times.
  }
  return out.replace(/mem_[0-9a-f]{16}/g, '<id>').replace(/\b1\d{12}\b/g, '<ms>');
}

/** What the client loads at session start, with and without stores (test/fixtures/claude-code-stores/). */
export const LOADED_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-stores/loaded-2.1.332.json');

/**
 * The memory folder of the loading runs: MEMORY.md pointing at a private memory and at a file of
 * the team store, `team/MEMORY.md`, an index and a memory in each store folder, and a memory
 * directly in `team/` (no store's). Each line holds a marker, to see what reached the model.
 */
export const LOADED_FILES: Record<string, string> = {
  'MEMORY.md': '- [Build](build.md) — MARKER-MAIN-INDEX\n- [A](team/memstore_team/a.md) — MARKER-MAIN-POINTER\n',
  'build.md': '---\nname: Build\ndescription: MARKER-BUILD-DESC\ntype: project\n---\nMARKER-BUILD-BODY\n',
  'team/MEMORY.md': '- [Loose](loose.md) — MARKER-TEAMROOT-INDEX\n',
  'team/loose.md': '---\nname: Loose\ndescription: MARKER-LOOSE-DESC\ntype: project\n---\nMARKER-LOOSE-BODY\n',
  [`${RW_MOUNT}/MEMORY.md`]: '- [A](a.md) — MARKER-STORE-INDEX\n',
  [`${RW_MOUNT}/a.md`]: '---\nname: A\ndescription: MARKER-STORE-A-DESC\ntype: project\n---\nMARKER-STORE-A-BODY\n',
  [`${RO_MOUNT}/MEMORY.md`]: '- [R](r.md) — MARKER-RO-INDEX\n',
  [`${RO_MOUNT}/r.md`]: '---\nname: R\ndescription: MARKER-RO-DESC\ntype: project\n---\nMARKER-RO-BODY\n',
};

export const LOADED_HOW =
  "src/main/team/claude-code-stores-interop.test.ts ('what it loads'): `files` in the memory folder, one `-p` session each way on a fresh home, both with the claude.ai login and the fake as proxy, `withStores` with `CLAUDE_MEMORY_STORES` = `stores` (synced at start), `withoutStores` without it; `sidecarsWithoutSetting`: the home of `withStores` once more without the setting (its sidecars left); `settingNeverSynced`: a fresh home with the setting while api.anthropic.com is unreachable (the client's HTTPS proxy a closed port). Per run: `instructions` (the transcript's instructions attachment: each file relative to the memory folder and its type), `reached` (the markers of `files` found in any request the client sent the model) and `sidecars` (the folders holding `.memory-sync` after it, '' for the memory folder).";

/** One loading run. */
export interface LoadedRun {
  instructions: string[];
  reached: string[];
  /** The folders of the memory dir ('' for itself) holding the client's `.memory-sync` after the run. */
  sidecars: string[];
}

/** The folders a loading run looks in for the client's sidecars. */
export const SIDECAR_FOLDERS = ['', RW_MOUNT, RO_MOUNT];

/** What {@link LOADED_FIXTURE} holds. */
export interface LoadedRecording {
  client: string | null;
  how: string;
  stores: string;
  files: Record<string, string>;
  withoutStores: LoadedRun;
  withStores: LoadedRun;
  /** The home of `withStores` again, with no `CLAUDE_MEMORY_STORES`: its sidecars left from that sync. */
  sidecarsWithoutSetting: LoadedRun;
  /** A fresh home with the setting but api.anthropic.com unreachable: never synced. */
  settingNeverSynced: LoadedRun;
}

/** What the client does with a read-only store's files edited or deleted on disk (test/fixtures/claude-code-stores/). */
export const RO_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-stores/read-only-2.1.332.json');

export const RO_HOW =
  "src/main/team/claude-code-stores-interop.test.ts ('what becomes of a local edit and a local delete in a read-only store'): the read-only store holds `server` before the first session; three sessions on one home with `CLAUDE_MEMORY_STORES` = `stores`: after the first, `edited` is written and `deleted` removed in the store's folder; after the second, the store's copy of `edited` changes to `serverChange`. Per session: `disk` (the folder's files, sidecars with ids made constant), `server` (the store's files), `writes` (requests other than GET to the store).";

/** One session of the read-only run. */
export interface RoSession {
  disk: Record<string, string>;
  server: Record<string, string>;
  writes: string[];
}

/** What {@link RO_FIXTURE} holds. */
export interface RoRecording {
  client: string | null;
  how: string;
  stores: string;
  server: Record<string, string>;
  edited: { file: string; content: string };
  deleted: string;
  serverChange: string;
  sessions: RoSession[];
}

/** The read-only run's scenario. */
export const RO_SCENARIO = {
  server: { '/ro-server.md': 'ro v1\n', '/gone.md': 'gone v1\n' },
  edited: { file: 'ro-server.md', content: 'ro edited locally\n' },
  deleted: 'gone.md',
  serverChange: 'ro v2 from the store\n',
} as const;

/** What the client does with a file deleted on disk in a read-write store (test/fixtures/claude-code-stores/). */
export const HELD_DELETE_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-stores/held-delete-2.1.332.json');

export const HELD_DELETE_HOW =
  "src/main/team/claude-code-stores-interop.test.ts ('a local delete in a read-write store'): the read-write store holds `server` before the first session; four sessions on one home with `CLAUDE_MEMORY_STORES` = `stores`: before the second `deleted` is removed from the store's folder; before the fourth a teammate changes it in the store to `changed`. Per session: `files` (the folder's files), `deletes` (the basis's held deletes: path and the number it ends with; its time left out), `server` (the store's paths), `writes` (requests other than GET to the store).";

/** The held-delete run's scenario. */
export const HELD_DELETE_SCENARIO = {
  server: { '/gone.md': 'gone v1\n', '/kept.md': 'kept v1\n' },
  deleted: 'gone.md',
  changed: 'gone v2 from a teammate\n',
} as const;

/** One session of the held-delete run. */
export interface HeldDeleteSession {
  files: string[];
  deletes: [string, number][];
  server: string[];
  writes: string[];
}
