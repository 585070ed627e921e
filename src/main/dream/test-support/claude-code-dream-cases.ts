/**
 * R-DREAM-GATE against Claude Code's own dream: homes laid out the same way for the real client
 * (gates/claude-code-interop.test.ts, which records what it did) and for Memdir (the recorded
 * outcomes in test/fixtures/claude-code-dream/, replayed by test/fidelity/dream-gate.test.ts).
 *
 * What Claude Code 2.1.332 does, read from its bundle and seen in these runs: after each turn of
 * a session (not in `claude -p`, whose entry point `sdk-cli` never dreams, nor from the SDKs) it
 * dreams when its cached flag `tengu_onyx_plover` and `autoDreamEnabled` allow it (the rule in
 * claude-code-dream.ts), ≥ minHours since the lock's mtime, ≥ minSessions transcripts newer than
 * that in the launch directory's transcript folder (its own session left out), and it can take
 * `.consolidate-lock`. It says which gate stopped it only in its debug log (`[autoDream] …`), and
 * lists the sessions it counted in the dream prompt.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sanitizeDirName } from '../../../shared/sanitize.js';
import { locateProject } from '../../memdir/projects.js';
import { claudeCodeDreamStatus } from '../gates/claude-code-dream.js';
import { checkDreamGates } from '../gates/dream-gates.js';
import { SessionScanCache } from '../gates/session-scan.js';

/** The recorded outcomes, one per case. */
export const DREAM_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-dream/observed-2.1.332.json');

const HOUR = 3_600_000;

/** One home to dream in. */
export interface DreamCase {
  name: string;
  /** The cached `tengu_onyx_plover` flag in `<config>/.claude.json`; absent: no flag. */
  flag?: Record<string, unknown>;
  /** Where the flag is cached; default `cachedFeatureFlags`. */
  flagKey?: 'cachedFeatureFlags' | 'cachedGrowthBookFeatures';
  /** The user's settings.json. */
  settings?: Record<string, unknown>;
  /** `.consolidate-lock`: its mtime this many hours ago, holding a dead PID or a live one (`livePid`). */
  lock?: { hoursAgo: number; holder: 'dead' | 'live' };
  /** `six`: six sessions just now; `edge`: {@link EDGE_SESSIONS} and the files around them. */
  sessions: 'six' | 'edge';
  /**
   * Permission rules written to a settings file (`permissions.deny` / `ask` / `allow`), made from
   * the home's folders: `memory` the memory folder, `outside` a folder elsewhere (absolute paths).
   */
  permissions?: {
    in: 'user' | 'project' | 'local';
    rules: (dirs: { memory: string; outside: string }) => { deny?: string[]; ask?: string[]; allow?: string[] };
  };
  /** A line `{"type":"hybrid-organization","organizationUuid":…}` appended to the first session's transcript. */
  hybridOrganization?: string;
}

/** What the client did, or what Memdir says it would do. */
export interface DreamOutcome {
  /** Whether it started a dream. */
  fired: boolean;
  /**
   * The gate that stopped it where the client says so: the session count, a permission rule that
   * would refuse memory writes, a held lock, or a transcript marked by another organization.
   */
  skipped: 'sessions' | 'permission' | 'lock' | 'hybrid-organization' | null;
  /** Sessions counted, when it fired or the session gate stopped it. */
  sessions: number | null;
  /** The sessions a dream was given to review (its prompt lists them), sorted; null when none fired. */
  listed: string[] | null;
}

/** In the `edge` layout, the session transcripts Claude Code counts. */
export const EDGE_SESSIONS = {
  fresh: ['1b0e6a52-7d1c-4c8e-9f5a-0a1b2c3d4e01', '1b0e6a52-7d1c-4c8e-9f5a-0a1b2c3d4e02', '1b0e6a52-7d1c-4c8e-9f5a-0a1b2c3d4e03'],
  /** Upper-case hex: still a session name. */
  upper: 'A7C3E2D1-5B4F-4A6E-8D9C-0B1A2C3D4E05',
  /** A folder named like a transcript: the client's `stat` succeeds, so it counts. */
  folder: '2c1f7b63-8e2d-4d9f-a06b-1b2c3d4e5f06',
  /** A link to a transcript elsewhere. */
  link: '3d2a8c74-9f3e-4e0a-b17c-2c3d4e5f6a07',
  /** An empty transcript. */
  empty: '4e3b9d85-a04f-4f1b-c28d-3d4e5f6a7b08',
} as const;

/** In the `edge` layout, what is not a session of this launch folder, or not newer than the lock. */
const EDGE_OTHERS = {
  old: '5f4cae96-b15a-4a2c-d39e-4e5f6a7b8c09',
  subagentParent: '6a5dbfa7-c26b-4b3d-e4af-5f6a7b8c9d10',
  dangling: '7b6ec0b8-d37c-4c4e-f5b0-6a7b8c9d0e11',
  sibling: ['8c7fd1c9-e48d-4d5f-a6c1-7b8c9d0e1f12', '8c7fd1c9-e48d-4d5f-a6c1-7b8c9d0e1f13'],
};

const six = ['9d80e2da-f59e-4e6a-b7d2-8c9d0e1f2a14', ...Array.from({ length: 5 }, (_, i) => `9d80e2da-f59e-4e6a-b7d2-8c9d0e1f2a2${i}`)];

/** The cases the client was run on. */
export const DREAM_CASES: DreamCase[] = [
  { name: 'counts the edge layout', flag: { enabled: true, minSessions: 1000 }, lock: { hoursAgo: 48, holder: 'dead' }, sessions: 'edge' },
  { name: 'lists the edge layout', flag: { enabled: true, minSessions: 1 }, lock: { hoursAgo: 48, holder: 'dead' }, sessions: 'edge' },
  { name: 'never consolidated', flag: { enabled: true }, sessions: 'six' },
  { name: 'lock 23 h old', flag: { enabled: true }, lock: { hoursAgo: 23, holder: 'dead' }, sessions: 'six' },
  { name: 'lock 25 h old', flag: { enabled: true }, lock: { hoursAgo: 25, holder: 'dead' }, sessions: 'six' },
  { name: 'live holder, 30 min', flag: { enabled: true, minHours: 0.1 }, lock: { hoursAgo: 0.5, holder: 'live' }, sessions: 'six' },
  { name: 'live holder, 70 min', flag: { enabled: true, minHours: 0.1 }, lock: { hoursAgo: 70 / 60, holder: 'live' }, sessions: 'six' },
  { name: 'dead holder, 30 min', flag: { enabled: true, minHours: 0.1 }, lock: { hoursAgo: 0.5, holder: 'dead' }, sessions: 'six' },
  { name: 'no flag, setting on', settings: { autoDreamEnabled: true }, sessions: 'six' },
  { name: 'flag neither enabled nor available, setting on', flag: { enabled: false, available: false }, settings: { autoDreamEnabled: true }, sessions: 'six' },
  { name: 'flag available, setting unset', flag: { available: true }, sessions: 'six' },
  { name: 'flag available, setting on', flag: { available: true }, settings: { autoDreamEnabled: true }, sessions: 'six' },
  { name: 'flag enabled, setting off', flag: { enabled: true }, settings: { autoDreamEnabled: false }, sessions: 'six' },
  { name: 'flag enabled under the older key', flag: { enabled: true }, flagKey: 'cachedGrowthBookFeatures', sessions: 'six' },
  { name: 'flag enabled, auto memory off', flag: { enabled: true }, settings: { autoMemoryEnabled: false }, sessions: 'six' },
  // Gate 5 (after the session gate, before the lock): a rule that would refuse writing MEMORY.md.
  { name: 'Write denied in the user settings', flag: { enabled: true }, sessions: 'six', permissions: { in: 'user', rules: () => ({ deny: ['Write'] }) } },
  { name: 'Edit asked in the local settings', flag: { enabled: true }, sessions: 'six', permissions: { in: 'local', rules: () => ({ ask: ['Edit'] }) } },
  {
    name: 'editing the memory folder denied in the project settings',
    flag: { enabled: true },
    sessions: 'six',
    permissions: { in: 'project', rules: ({ memory }) => ({ deny: [`Edit(/${memory}/**)`] }) },
  },
  {
    name: 'writing MEMORY.md asked by a Write rule',
    flag: { enabled: true },
    sessions: 'six',
    permissions: { in: 'user', rules: ({ memory }) => ({ ask: [`Write(/${memory}/MEMORY.md)`] }) },
  },
  {
    name: 'writing the memory folder denied by a Write rule',
    flag: { enabled: true },
    sessions: 'six',
    permissions: { in: 'user', rules: ({ memory }) => ({ deny: [`Write(/${memory}/**)`] }) },
  },
  {
    name: 'editing MEMORY.md asked',
    flag: { enabled: true },
    sessions: 'six',
    permissions: { in: 'user', rules: ({ memory }) => ({ ask: [`Edit(/${memory}/MEMORY.md)`] }) },
  },
  {
    name: 'editing a topic file denied, not MEMORY.md',
    flag: { enabled: true },
    sessions: 'six',
    permissions: { in: 'user', rules: ({ memory }) => ({ deny: [`Edit(/${memory}/build.md)`] }) },
  },
  {
    name: 'rules that do not cover the memory',
    flag: { enabled: true },
    sessions: 'six',
    permissions: { in: 'user', rules: ({ outside }) => ({ deny: [`Edit(/${outside}/**)`, 'Read', 'Bash'], allow: ['Write'] }) },
  },
  // Gate 7 (after the lock): a transcript of the launch folder marked by an organization sign-in.
  { name: 'a session marked by an organization', flag: { enabled: true }, sessions: 'six', hybridOrganization: '5e0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b' },
  { name: 'a session marked by no valid organization', flag: { enabled: true }, sessions: 'six', hybridOrganization: 'not-an-organization' },
];

/** A laid-out home. */
export interface DreamHome {
  configDir: string;
  /** The launch directory. */
  project: string;
  /** Its transcript folder. */
  folder: string;
  memoryDir: string;
}

const line = (id: string, cwd: string) =>
  `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' }, sessionId: id, cwd, version: '2.1.332' })}\n`;

function touch(file: string, ms: number): void {
  fs.lutimesSync(file, ms / 1000, ms / 1000);
}

/**
 * Lays `c` out under `root` (which must exist and be a real path): `config/` (the Claude Code
 * home), `project/` (the launch directory, with a `sub/` launch directory beside it in the same
 * memory) and `outside/`. `livePid` is a live process other than this one, to hold the lock of a
 * `live` case (Memdir knows its own process's locks). `apiKeySuffix`, when given, is approved for
 * the client's API key.
 */
export function layOutDreamCase(root: string, c: DreamCase, options: { livePid: number; apiKeySuffix?: string; now?: number }): DreamHome {
  const now = options.now ?? Date.now();
  const configDir = path.join(root, 'config');
  const project = path.join(root, 'project');
  const outside = path.join(root, 'outside');
  const folder = path.join(configDir, 'projects', sanitizeDirName(project));
  const memoryDir = path.join(folder, 'memory');
  for (const dir of [memoryDir, path.join(project, 'sub'), outside]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(memoryDir, 'MEMORY.md'), '- [Build](build.md) — how the project builds\n');
  fs.writeFileSync(path.join(memoryDir, 'build.md'), '---\nname: Build\ndescription: how the project builds\ntype: project\n---\nnpm run build\n');

  const config: Record<string, unknown> = {};
  if (c.flag) config[c.flagKey ?? 'cachedFeatureFlags'] = { tengu_onyx_plover: c.flag };
  if (options.apiKeySuffix) config.customApiKeyResponses = { approved: [options.apiKeySuffix], rejected: [] };
  fs.writeFileSync(path.join(configDir, '.claude.json'), JSON.stringify(config));
  const userSettings: Record<string, unknown> = { ...c.settings };
  if (c.permissions) {
    const permissions = c.permissions.rules({ memory: memoryDir, outside });
    if (c.permissions.in === 'user') userSettings.permissions = permissions;
    else {
      fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
      const file = c.permissions.in === 'project' ? 'settings.json' : 'settings.local.json';
      fs.writeFileSync(path.join(project, '.claude', file), JSON.stringify({ permissions }));
    }
  }
  if (Object.keys(userSettings).length > 0) fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify(userSettings));

  const transcript = (dir: string, id: string, ms = now - 60_000) => {
    const file = path.join(dir, `${id}.jsonl`);
    fs.writeFileSync(file, line(id, dir === folder ? project : path.join(project, 'sub')));
    touch(file, ms);
  };
  if (c.sessions === 'six') {
    for (const id of six) transcript(folder, id);
    if (c.hybridOrganization) {
      const file = path.join(folder, `${six[0]}.jsonl`);
      fs.appendFileSync(file, `${JSON.stringify({ type: 'hybrid-organization', organizationUuid: c.hybridOrganization, sessionId: six[0] })}\n`);
      touch(file, now - 60_000);
    }
  } else {
    for (const id of EDGE_SESSIONS.fresh) transcript(folder, id);
    transcript(folder, EDGE_SESSIONS.upper);
    transcript(folder, EDGE_OTHERS.old, now - 72 * HOUR);
    fs.writeFileSync(path.join(folder, 'notes.jsonl'), line('notes', project));
    fs.mkdirSync(path.join(folder, `${EDGE_SESSIONS.folder}.jsonl`));
    const subagents = path.join(folder, EDGE_OTHERS.subagentParent, 'subagents');
    fs.mkdirSync(subagents, { recursive: true });
    fs.writeFileSync(path.join(subagents, 'agent-a1.jsonl'), line(EDGE_OTHERS.subagentParent, project));
    fs.writeFileSync(path.join(outside, 'elsewhere.jsonl'), line(EDGE_SESSIONS.link, project));
    fs.symlinkSync(path.join(outside, 'elsewhere.jsonl'), path.join(folder, `${EDGE_SESSIONS.link}.jsonl`));
    fs.symlinkSync(path.join(outside, 'missing.jsonl'), path.join(folder, `${EDGE_OTHERS.dangling}.jsonl`));
    fs.writeFileSync(path.join(folder, `${EDGE_SESSIONS.empty}.jsonl`), '');
    const sibling = path.join(configDir, 'projects', sanitizeDirName(path.join(project, 'sub')));
    fs.mkdirSync(sibling, { recursive: true });
    for (const id of EDGE_OTHERS.sibling) transcript(sibling, id);
  }
  if (c.lock) {
    const lock = path.join(memoryDir, '.consolidate-lock');
    // A PID no process has (above Linux's largest pid_max), or a live one.
    fs.writeFileSync(lock, String(c.lock.holder === 'live' ? options.livePid : 4_194_999));
    touch(lock, now - c.lock.hoursAgo * HOUR);
  }
  return { configDir, project, folder, memoryDir };
}

/** What Memdir says Claude Code does in the home, for a session launched in `home.project`. */
export async function memdirDreamVerdict(home: DreamHome, dataDir: string): Promise<DreamOutcome> {
  const none: DreamOutcome = { fired: false, skipped: null, sessions: null, listed: null };
  const loc = await locateProject(home.configDir, home.project, {});
  const status = await claudeCodeDreamStatus({ home: home.configDir, settings: loc.settings, transcriptDirs: [home.folder], memoryDir: loc.memoryDir });
  // A rule refusing memory writes is checked after the time and session gates, as the client does.
  if (!status.wouldDream && !status.refusedBy) return none;
  const report = await checkDreamGates(
    { memoryDir: home.memoryDir, projectDir: path.dirname(home.memoryDir), transcriptDirs: [home.folder] },
    {
      dataDir,
      sessionCache: new SessionScanCache(),
      ...(status.flag?.minHours ? { minHours: status.flag.minHours } : {}),
      ...(status.flag?.minSessions ? { minSessions: status.flag.minSessions } : {}),
    },
  );
  const [time, sessions, lock] = report.gates;
  if (!time!.passed) return none;
  const count = typeof sessions!.value === 'number' ? sessions!.value : null;
  if (!sessions!.passed) return { ...none, skipped: 'sessions', sessions: count };
  if (status.refusedBy) return { ...none, skipped: 'permission' };
  if (!lock!.passed) return { ...none, skipped: 'lock' };
  // No session here signs in to an organization's own sign-in: a mark of one always stops it.
  if (status.organizationMarks.length > 0) return { ...none, skipped: 'hybrid-organization' };
  return { fired: true, skipped: null, sessions: count, listed: null };
}

/**
 * The outcome as the client tells it: its debug log's `[autoDream]` lines and the dream prompt
 * it sent (null: no dream request).
 */
export function clientDreamOutcome(debugLog: string, dreamPrompt: string | null): DreamOutcome {
  const fired = /\[autoDream\] firing — [\d.]+h since last, (\d+) sessions to review/.exec(debugLog);
  const fewer = /\[autoDream\] skip — (\d+) sessions since last consolidation/.exec(debugLog);
  const held = /\[autoDream\] lock held by live PID/.test(debugLog);
  const refused = /\[autoDream\] skip — .* would refuse memory writes/.test(debugLog);
  const organization = /\[autoDream\] skip — (?:other_hybrid_organization|hybrid_organization_check_failed)/.test(debugLog);
  const listed = dreamPrompt ? [...dreamPrompt.matchAll(/^- ([0-9a-fA-F-]{36})$/gm)].map((m) => m[1]!).sort() : null;
  if (fired) return { fired: true, skipped: null, sessions: Number(fired[1]), listed };
  if (fewer) return { fired: false, skipped: 'sessions', sessions: Number(fewer[1]), listed: null };
  return { fired: false, skipped: refused ? 'permission' : held ? 'lock' : organization ? 'hybrid-organization' : null, sessions: null, listed: null };
}
