/**
 * R-EXTRACT, R-EXCLUSIVE, R-TOPIC against Claude Code's own extraction: the sessions the real
 * client runs offline (extract/claude-code-interop.test.ts, which records what it did into
 * test/fixtures/claude-code-extract/) and the layout both it and the replay
 * (test/fidelity/extract.test.ts) use.
 *
 * What Claude Code 2.1.332 does, read from its bundle and seen in these runs: at the end of each
 * turn of a session (not a sub-agent's) where its cached flag `tengu_passport_quail` is on, it
 * forks an extraction agent that shares the whole conversation and is told to "analyze the most
 * recent ~N messages" (N: the messages since its cursor). Before that it skips the range when the
 * conversation already wrote to memory in it (an `Edit` or `Write` tool call whose `file_path`,
 * as written, is under the memory directory) or when no user message in it has 3 words. The
 * agent may Read/Grep/Glob, run read-only Bash, and Edit/Write `.md` files whose path, as
 * written, is under the memory directory. Every Write or Edit of a personal memory file, by the
 * agent or by the main conversation, is rewritten by the client: see the recording.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sanitizeDirName } from '../../../shared/sanitize.js';

/** The recording. */
export const EXTRACT_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-extract/observed-2.1.332.json');

/** MEMORY.md as a home starts with ({@link SEED_FILES}). */
const SEED_FILES_INDEX = '- [Build](build.md) — how the project builds\n';

/** The recording of what the extraction agent is told with team memory on (claude-code-interop.test.ts, 'team'). */
export const TEAM_EXTRACT_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-extract/observed-team-2.1.332.json');

/**
 * Team memory on, as 2.1.332 turns it on: a `scope: "team"` store in `CLAUDE_MEMORY_STORES`
 * (beside the user's own, so the private folder stays), which makes the client's Memory section
 * the two-folder one (`team/` beside the private folder). Offline the stores never sync; the
 * prompts do not depend on it.
 */
export const TEAM_STORES = JSON.stringify([
  { path: '/personal', scope: 'user', mode: 'rw' },
  { path: '/team', scope: 'team', mode: 'rw' },
]);

/** A team memory, pointed at from MEMORY.md as `team/deploy.md` and listed in team/MEMORY.md. */
export const TEAM_SEED: Record<string, string> = {
  'MEMORY.md': `${SEED_FILES_INDEX}- [Deploy](team/deploy.md) — how the team deploys\n`,
  'team/MEMORY.md': '- [Deploy](deploy.md) — how the team deploys\n',
  'team/deploy.md': '---\nname: Deploy\ndescription: how the team deploys\ntype: project\n---\nmake deploy\n',
};

export const TEAM_EXTRACT_HOW =
  "src/main/extract/claude-code-interop.test.ts ('team'): a home laid out as for 'writes', with `seed` written over it, `stores` as CLAUDE_MEMORY_STORES, two prompts against the loopback fake Messages API. `instruction`: the extraction agent's instruction (the last user message of its first request); `memorySection`: the '# Memory' section of that request's system prompt.";

/** What {@link TEAM_EXTRACT_FIXTURE} holds. */
export interface TeamExtractRecording {
  client: string | null;
  how: string;
  stores: string;
  seed: Record<string, string>;
  instruction: string;
  memorySection: string;
}

/** The first words of the extraction agent's instruction (the last user message of its first request). */
export const EXTRACT_MARKER = 'You are now acting as the memory extraction subagent';

/** A laid-out home: `$ROOT` holds `config/` (the Claude Code home), `project/`, `outside/` and `memlink` (a link to the memory dir). */
export interface ExtractHome {
  root: string;
  configDir: string;
  project: string;
  memoryDir: string;
  outside: string;
}

/** What a home starts with in its memory dir (besides the links). */
export const SEED_FILES: Record<string, string> = {
  'MEMORY.md': SEED_FILES_INDEX,
  // As Memdir writes a memory: flat frontmatter, a title for a name.
  'build.md': '---\nname: Build\ndescription: how the project builds\ntype: project\n---\nnpm run build\n',
};

/** The cached feature flags that turn the client's extraction on (`kEn`): `tengu_passport_quail`, and outside an interactive session `tengu_slate_thimble`. */
export const EXTRACT_FLAGS = { tengu_passport_quail: true, tengu_slate_thimble: true };

/**
 * Lays a home out under `root` (a real path): the memory dir with {@link SEED_FILES}, the links
 * `memory/linked` → `outside/`, `memory/filelink.md` → `outside/target.md` and `memlink` → the
 * memory dir, and `.claude.json` with `flags` cached and the API key's last 20 characters
 * approved.
 */
export function layOutExtractHome(root: string, options: { flags?: Record<string, unknown>; apiKeySuffix?: string } = {}): ExtractHome {
  const configDir = path.join(root, 'config');
  const project = path.join(root, 'project');
  const outside = path.join(root, 'outside');
  const memoryDir = path.join(configDir, 'projects', sanitizeDirName(project), 'memory');
  for (const dir of [memoryDir, project, outside]) fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(SEED_FILES)) fs.writeFileSync(path.join(memoryDir, file), text);
  fs.writeFileSync(path.join(outside, 'target.md'), 'outside the memory dir\n');
  // The client lists existing memories newest first; files written in one clock tick tie, and
  // the tie broke either way (a recorded instruction differed by order only). The link target is
  // a minute older than the seed files, so the order is the recorded one on every run.
  const minuteAgo = new Date(Date.now() - 60_000);
  fs.utimesSync(path.join(outside, 'target.md'), minuteAgo, minuteAgo);
  fs.symlinkSync(outside, path.join(memoryDir, 'linked'));
  fs.symlinkSync(path.join(outside, 'target.md'), path.join(memoryDir, 'filelink.md'));
  fs.symlinkSync(memoryDir, path.join(root, 'memlink'));
  const config: Record<string, unknown> = { cachedFeatureFlags: options.flags ?? EXTRACT_FLAGS };
  if (options.apiKeySuffix) config.customApiKeyResponses = { approved: [options.apiKeySuffix], rejected: [] };
  fs.writeFileSync(path.join(configDir, '.claude.json'), JSON.stringify(config));
  return { root, configDir, project, memoryDir, outside };
}

/** `$MEM`, `$ROOT` and `$PROJ` in a tool call's input, for this home. */
export function placeInput<T>(value: T, home: ExtractHome): T {
  return JSON.parse(JSON.stringify(value).replaceAll('$MEM', home.memoryDir).replaceAll('$PROJ', home.project).replaceAll('$ROOT', home.root)) as T;
}

/** The reverse of {@link placeInput} for text the client produced, with its session id and the times it stamped made constant. */
export function normalizeObserved(text: string, home: ExtractHome, sessionId: string | null): string {
  let out = text.replaceAll(home.memoryDir, '$MEM').replaceAll(home.project, '$PROJ').replaceAll(home.root, '$ROOT');
  if (sessionId) out = out.replaceAll(sessionId, '<session>');
  return out.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\b/g, (time) => (time === SEEDED_TIME ? time : '<time>'));
}

/** The `modified` a scripted memory already carries: kept as it is in the recording, so that whether the client replaced it shows. */
export const SEEDED_TIME = '2026-01-02T03:04:05.000Z';

/** A tool call the fake model makes. */
export interface ScriptedCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

const frontmatter = (lines: string[]) => `---\n${lines.join('\n')}\n---\n`;

/**
 * The extraction agent's answers in the `writes` session: its first request writes (and reads
 * what it will edit), its second edits, its third ends. `$MEM`, `$ROOT`, `$PROJ` are placed.
 */
export const WRITES_SCRIPT: ScriptedCall[][] = [
  [
    // As the client's own system prompt shows the format.
    {
      id: 'toolu_client_format',
      name: 'Write',
      input: {
        file_path: '$MEM/no-orm.md',
        content: `${frontmatter(['name: no-orm', 'description: never use an ORM; write SQL', 'metadata:', '  type: feedback'])}\nNever use an ORM.\n\n**Why:** the user said so.\n`,
      },
    },
    // As Memdir writes a new memory: flat, a title for a name, no blank line after the fence.
    {
      id: 'toolu_memdir_format',
      name: 'Write',
      input: {
        file_path: '$MEM/feedback_flat.md',
        content: `${frontmatter(['name: No ORM, SQL only', 'description: never use an ORM; write SQL', 'type: feedback'])}Write SQL by hand.\n`,
      },
    },
    // Values YAML must quote, and text beyond ASCII.
    {
      id: 'toolu_quoting',
      name: 'Write',
      input: {
        file_path: '$MEM/user_role.md',
        content: `${frontmatter(['name: "Role: data scientist"', "description: 'the user''s role: data scientist — 数据科学家'", 'type: user'])}Data scientist.\n`,
      },
    },
    // Stamped already (another session): only `modified` changes.
    {
      id: 'toolu_stamped_nested',
      name: 'Write',
      input: {
        file_path: '$MEM/stamped_nested.md',
        content: `${frontmatter(['name: Stamped Nested', 'description: already stamped', 'metadata:', '  type: project', '  originSessionId: 11111111-2222-4333-8444-555555555555', `  modified: ${SEEDED_TIME}`])}Kept.\n`,
      },
    },
    {
      id: 'toolu_stamped_flat',
      name: 'Write',
      input: {
        file_path: '$MEM/stamped_flat.md',
        content: `${frontmatter(['name: Stamped Flat', 'description: already stamped, flat', 'type: project', 'originSessionId: 11111111-2222-4333-8444-555555555555'])}Kept too.\n`,
      },
    },
    { id: 'toolu_bare', name: 'Write', input: { file_path: '$MEM/bare.md', content: 'No frontmatter at all.\n' } },
    {
      id: 'toolu_team',
      name: 'Write',
      input: {
        file_path: '$MEM/team/dashboards.md',
        content: `${frontmatter(['name: Dashboards', 'description: "where: grafana # the board"', 'type: reference'])}https://grafana.example\n`,
      },
    },
    // Confinement.
    {
      id: 'toolu_linked_dir',
      name: 'Write',
      input: { file_path: '$MEM/linked/escaped.md', content: `${frontmatter(['name: escaped', 'description: x', 'type: user'])}x\n` },
    },
    { id: 'toolu_outside', name: 'Write', input: { file_path: '$PROJ/outside.md', content: 'x\n' } },
    { id: 'toolu_dotdot', name: 'Write', input: { file_path: '$MEM/../escape.md', content: 'x\n' } },
    { id: 'toolu_through_memlink', name: 'Write', input: { file_path: '$ROOT/memlink/via-link.md', content: 'x\n' } },
    { id: 'toolu_not_md', name: 'Write', input: { file_path: '$MEM/notes.txt', content: 'x\n' } },
    { id: 'toolu_agents', name: 'Write', input: { file_path: '$MEM/agents/helper.md', content: 'x\n' } },
    { id: 'toolu_bash', name: 'Bash', input: { command: 'echo x > $MEM/by-bash.md', description: 'write with the shell' } },
    { id: 'toolu_read_build', name: 'Read', input: { file_path: '$MEM/build.md' } },
    { id: 'toolu_read_index', name: 'Read', input: { file_path: '$MEM/MEMORY.md' } },
    { id: 'toolu_read_filelink', name: 'Read', input: { file_path: '$MEM/filelink.md' } },
  ],
  [
    // An Edit of a file Memdir wrote (no originSessionId yet).
    { id: 'toolu_edit_build', name: 'Edit', input: { file_path: '$MEM/build.md', old_string: 'npm run build', new_string: 'npm run build (Node 22)' } },
    // The index line: the model writes it.
    {
      id: 'toolu_edit_index',
      name: 'Edit',
      input: { file_path: '$MEM/MEMORY.md', old_string: 'how the project builds\n', new_string: 'how the project builds\n- [No ORM](no-orm.md) — write SQL\n' },
    },
    {
      id: 'toolu_filelink',
      name: 'Write',
      input: { file_path: '$MEM/filelink.md', content: `${frontmatter(['name: through a file link', 'description: x', 'type: user'])}x\n` },
    },
  ],
];

/** R-EXCLUSIVE: what the main conversation does in its first turn, one session each. */
export const EXCLUSIVE_CASES: { name: string; call: ScriptedCall }[] = [
  { name: 'Write into the memory dir', call: { id: 'toolu_main', name: 'Write', input: { file_path: '$MEM/main_wrote.md', content: 'x\n' } } },
  {
    name: 'Edit in the memory dir',
    call: { id: 'toolu_main', name: 'Edit', input: { file_path: '$MEM/build.md', old_string: 'npm run build', new_string: 'make' } },
  },
  {
    name: 'an Edit that fails',
    call: { id: 'toolu_main', name: 'Edit', input: { file_path: '$MEM/build.md', old_string: 'no such text', new_string: 'x' } },
  },
  { name: 'Write into the team dir', call: { id: 'toolu_main', name: 'Write', input: { file_path: '$MEM/team/t.md', content: 'x\n' } } },
  { name: 'Write of a non-.md file in the memory dir', call: { id: 'toolu_main', name: 'Write', input: { file_path: '$MEM/notes.txt', content: 'x\n' } } },
  {
    name: 'Write through a link to the memory dir',
    call: { id: 'toolu_main', name: 'Write', input: { file_path: '$ROOT/memlink/via-link.md', content: 'x\n' } },
  },
  { name: 'Write in the project', call: { id: 'toolu_main', name: 'Write', input: { file_path: '$PROJ/notes.md', content: 'x\n' } } },
  { name: 'Bash into the memory dir', call: { id: 'toolu_main', name: 'Bash', input: { command: 'echo x > $MEM/by-bash.md', description: 'write' } } },
];

/** The prompts of an R-EXCLUSIVE session: both long enough for the prose gate. */
export const EXCLUSIVE_PROMPTS = ['Please note this down for the next time', 'Thank you very much for that'];

/**
 * The cadence session: turns with and without 3 words of user prose. The client counts words
 * between white space, so a Chinese sentence written without spaces is one word.
 */
export const CADENCE_PROMPTS = [
  'I prefer short answers without summaries',
  'ok',
  'We deploy to production on Fridays only',
  'thanks',
  '我们每周五部署到生产环境，请记住',
];

/** The flags of the gate cases and whether the client then extracts in a stream-json session. */
export const GATE_CASES: { name: string; flags: Record<string, unknown> }[] = [
  { name: 'both flags', flags: EXTRACT_FLAGS },
  { name: 'tengu_passport_quail only', flags: { tengu_passport_quail: true } },
  { name: 'no flag', flags: {} },
];

/** What a tool call of the extraction agent got back. */
export interface ToolOutcome {
  tool: string;
  isError: boolean;
  /** The tool result's text, normalised, cut at 240 characters. */
  result: string;
}

/** Everything the recording holds. */
export interface ExtractRecording {
  client: string;
  /** The `writes` session: each scripted call's outcome, by id. */
  writes: Record<string, ToolOutcome>;
  /** After it: every file under the memory dir (not through links) and under `outside/`, by `$MEM/…` or `$ROOT/outside/…`, normalised. */
  files: Record<string, string>;
  /** R-EXCLUSIVE: whether the client skipped the first turn's extraction as already written, by case. */
  exclusive: Record<string, { skippedAsWritten: boolean; callFailed: boolean }>;
  /** The cadence session: the extraction's debug events in order; for each pass, the `~N` its instruction names and how many messages of the conversation precede it. */
  cadence: { events: string[]; recentMessages: number[]; contextMessages: number[] };
  /** Whether the client extracted at all, by gate case. */
  gate: Record<string, boolean>;
  /** The extraction agent's first request: its instruction, and the Memory section of its system prompt (normalised). */
  instruction: string;
  memorySection: string;
}

/** The `[extractMemories]` events of a debug log, with the memory dir normalised. */
export function extractionEvents(debugLog: string, home: ExtractHome): string[] {
  return [...debugLog.matchAll(/\[extractMemories\] ((?:starting|skipping|finished|error|extraction in progress|running trailing)[^\n]*)/g)].map((m) =>
    normalizeObserved(m[1]!, home, null)
      .replace(/, memoryDir=\$MEM\/?$/, '')
      .replace(/, cache: .*$/, ''),
  );
}

/** How many extraction passes ended (finished, skipped or failed) in a debug log. */
export function extractionPassesEnded(debugLog: string): number {
  return [...debugLog.matchAll(/\[extractMemories\] (?:finished|skipping|error)/g)].length;
}

/** Every file under `dir`, not through links, by its path relative to `dir`. */
export function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out[child] = fs.readFileSync(path.join(dir, child), 'utf8');
    }
  };
  if (fs.existsSync(dir)) walk('');
  return out;
}

/** The recording of what the extraction agent is told and what becomes of its writes in memory-store mode (claude-code-interop.test.ts, 'stores'). */
export const STORES_EXTRACT_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-extract/observed-stores-2.1.332.json');

/**
 * The `CLAUDE_MEMORY_STORES` of the store-mode runs: the user's own store beside a team store
 * (mounted at `team/memstore_team/`), and the team store alone. Offline the stores never sync
 * (no claude.ai login); store mode is the setting's (test/fixtures/claude-code-stores/loaded-2.1.332.json).
 */
export const STORES_EXTRACT_SETTINGS: Record<string, string> = {
  userAndTeam: JSON.stringify([
    { path: '/v1/memory_stores/memstore_me', scope: 'user', mode: 'rw' },
    { path: '/v1/memory_stores/memstore_team', scope: 'team', mode: 'rw' },
  ]),
  teamOnly: JSON.stringify([{ path: '/v1/memory_stores/memstore_team', scope: 'team', mode: 'rw' }]),
};

/** A memory in the client's format. */
const memoryOf = (name: string, type: string, body: string) =>
  `${frontmatter([`name: ${name}`, `description: ${name} in one line`, 'metadata:', `  type: ${type}`])}\n${body}\n`;

/**
 * The extraction agent's answers in a store-mode run: it reads MEMORY.md, writes a private
 * memory, a team memory where the two-folder prompt says (`team/`), one in the team store's
 * folder, and one over 4KB; then edits MEMORY.md as the prompt without stores asks.
 */
export const STORES_EXTRACT_SCRIPT: ScriptedCall[][] = [
  [
    { id: 'toolu_read_index', name: 'Read', input: { file_path: '$MEM/MEMORY.md' } },
    { id: 'toolu_private', name: 'Write', input: { file_path: '$MEM/private-note.md', content: memoryOf('private-note', 'feedback', 'Private.') } },
    { id: 'toolu_team', name: 'Write', input: { file_path: '$MEM/team/team-note.md', content: memoryOf('team-note', 'project', 'For the team.') } },
    {
      id: 'toolu_store',
      name: 'Write',
      input: { file_path: '$MEM/team/memstore_team/store-note.md', content: memoryOf('store-note', 'reference', 'In the store folder.') },
    },
    { id: 'toolu_big', name: 'Write', input: { file_path: '$MEM/team/memstore_team/big.md', content: memoryOf('big', 'project', 'x'.repeat(5000)) } },
  ],
  [
    {
      id: 'toolu_edit_index',
      name: 'Edit',
      input: {
        file_path: '$MEM/MEMORY.md',
        old_string: 'how the project builds\n',
        new_string: 'how the project builds\n- [Private](private-note.md) — private\n',
      },
    },
  ],
];

export const STORES_EXTRACT_HOW =
  "src/main/extract/claude-code-interop.test.ts ('stores'): per setting of `settings` (as CLAUDE_MEMORY_STORES, offline: never synced), a home laid out as for 'writes', two prompts against the loopback fake Messages API, the extraction agent answering `script` (by step; `$MEM` is the memory dir). `instruction`: its instruction (the last user message of its first request); `memorySection`: the '# Memory' section of that request's system prompt; `writes`: each scripted call's outcome; `files`: every file under the memory dir after (not through links), normalised, a file over 1,000 characters as its length.";

/** One store-mode run. */
export interface StoresExtractRun {
  instruction: string;
  memorySection: string;
  writes: Record<string, ToolOutcome>;
  files: Record<string, string>;
}

/** What {@link STORES_EXTRACT_FIXTURE} holds. */
export interface StoresExtractRecording {
  client: string | null;
  how: string;
  settings: Record<string, string>;
  script: ScriptedCall[][];
  runs: Record<string, StoresExtractRun>;
}
