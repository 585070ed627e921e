/**
 * R-AGENT: sub-agent memory. Sub-agents are markdown files with YAML frontmatter in
 * `<home>/agents/` (user level) and `.claude/agents/` (project level: in the directory Claude
 * Code was launched in and each parent up to the git root, the nearest first, then a linked
 * worktree's main repository); one whose `memory:` names a scope gets its own memory directory,
 * kept apart from the main memory:
 *   user    → `<home>/agent-memory/<agentType>/`                   (every project)
 *   project → `<launchDir>/.claude/agent-memory/<agentType>/`       (committed, shared by git)
 *   local   → `<launchDir>/.claude/agent-memory-local/<agentType>/` (never committed)
 * `<home>` is the Claude home (R-HOME), not `~`; `<launchDir>` is where the session started, not
 * the canonical key (R-KEY): a session in a subdirectory or a worktree keeps its own agent memory
 * there (observed with 2.1.332, test/fixtures/claude-code-agent/).
 */
import { failureWords } from '../../shared/failure-words.js';
import { quoteName } from '../../shared/visible-text.js';
import fsSync, { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENT_MEMORY_FOLDER, INDEX_FILE } from '../../shared/limits.js';
import { describeYamlError, listSubfolders, locateFrontmatter, parseFrontmatterYaml, runGit } from '../memdir/index.js';
import { agentTypeDirName } from '../../shared/agent-type-name.js';
import { type Finding, SCANNER_ERROR_RULE } from '../../shared/secret-types.js';
import type { SecretTrace, scanContent, textHolds, traceOf } from '../secrets/index.js';

/** The three places an agent type's memory can live. */
export type AgentMemoryScopeName = 'user' | 'project' | 'local';

/** One scope of one agent type's memory. */
export interface AgentMemoryScope {
  scope: AgentMemoryScopeName;
  memoryDir: string;
  /** Whether `memoryDir` exists as a directory. */
  exists: boolean;
  /** Whether the agent's `memory:` field names this scope (Claude Code reads and writes it). */
  enabled: boolean;
}

/** An agent type with memory: defined in a file, or only found as memory on disk. */
export interface AgentMemory {
  agentType: string;
  /** The definition files, user level first; [] when only memory directories were found. */
  definedIn: string[];
  scopes: AgentMemoryScope[];
}

/** Something worth telling the user about agent memory; never thrown. */
export interface AgentMemoryWarning {
  code:
    | 'local-not-ignored'
    | 'bad-agent-file'
    | 'bad-memory-field'
    | 'other-launch-dir'
    | 'shared-memory-folder'
    | 'agent-index-not-read'
    | 'secret-in-committed-memory'
    | 'secret-in-git-history';
  file?: string;
  message: string;
}

const SCOPES: readonly AgentMemoryScopeName[] = ['user', 'project', 'local'];
/** Agent definitions are short prompts; anything larger is not read. */
const AGENT_FILE_MAX_BYTES = 512 * 1024;
/** Definitions may be grouped in subfolders; this bounds the walk. */
const AGENT_DIR_MAX_DEPTH = 4;

/**
 * The root directory holding every agent type's memory of one scope: user under `userBase` (the
 * Claude home, or `CLAUDE_CODE_REMOTE_MEMORY_DIR` when set, as Claude Code 2.1.332 does), project
 * and local in the launch directory.
 */
export function agentMemoryRoot(scope: AgentMemoryScopeName, userBase: string, launchDir: string | null): string | null {
  if (scope === 'user') return path.join(userBase, AGENT_MEMORY_FOLDER.user);
  if (!launchDir) return null;
  return path.join(launchDir, '.claude', AGENT_MEMORY_FOLDER[scope]);
}

/**
 * The project-level definition folders Claude Code 2.1.332 reads, nearest first: `.claude/agents`
 * of the launch directory and of each parent up to the first one holding `.git` (outside git: up
 * to, not including, the user's home directory, whose `.claude` is the user level), then of the
 * canonical root when a linked worktree's main repository is not on that way.
 */
function projectAgentDirs(launchDir: string, repoRoot: string | null): string[] {
  const dirs: string[] = [];
  const userHome = path.resolve(os.homedir());
  for (let dir = path.resolve(launchDir); ; ) {
    if (dir === userHome && dirs.length > 0) break;
    dirs.push(path.join(dir, '.claude', 'agents'));
    if (existsSync(path.join(dir, '.git'))) break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const main = repoRoot ? path.join(path.resolve(repoRoot), '.claude', 'agents') : null;
  if (main && !dirs.includes(main)) dirs.push(main);
  return dirs;
}

// The directory name of an agent type: one rule, in shared/ (export-import checks archives with it).
export { agentTypeDirName };

interface AgentDefinition {
  agentType: string;
  file: string;
  level: 'user' | 'project';
  memory: AgentMemoryScopeName | null;
}

/**
 * Read `name` and `memory` from agent frontmatter, through the one frontmatter reader (YAML with
 * Claude Code's quoting retry, as for memories). When even that fails, top-level `name:` and
 * `memory:` lines are read instead, so one bad description does not lose the agent.
 */
function readFrontmatter(text: string): { data: Record<string, unknown> } | { error: string } {
  const span = locateFrontmatter(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (span.fence !== 'closed') return { error: 'it has no YAML frontmatter (a block between --- lines at the top)' };
  const source = text.slice(span.yamlStart, span.yamlEnd);
  try {
    const data: unknown = parseFrontmatterYaml(source);
    if (data && typeof data === 'object' && !Array.isArray(data)) return { data: data as Record<string, unknown> };
    if (data === null || data === undefined) return { data: {} };
    return { error: 'its frontmatter is not a set of key: value fields' };
  } catch (error) {
    const data: Record<string, unknown> = {};
    for (const line of source.split(/\r?\n/)) {
      const field = /^(name|memory):[ \t]*(.*?)[ \t]*$/.exec(line);
      if (field) data[field[1]!] = field[2]!.replace(/^(['"])(.*)\1$/, '$2');
    }
    if (typeof data.name === 'string' && data.name !== '') return { data };
    // The YAML text starts on the `---` line: its lines are the file's.
    return { error: `its frontmatter is not valid YAML, ${describeYamlError(error, source, 1)}` };
  }
}

/**
 * Every `*.md` file under `dir` (no links followed, no dot-folders), sorted; [] when it cannot be
 * read. `dotFiles`: a `.x.md` file counts too (what git commits, for the secret check); agent
 * definitions leave them out.
 */
async function markdownFiles(dir: string, { dotFiles }: { dotFiles: boolean }, depth = 0): Promise<string[]> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') && (!dotFiles || !entry.isFile())) continue;
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith('.md')) files.push(full);
    else if (entry.isDirectory() && depth < AGENT_DIR_MAX_DEPTH) files.push(...(await markdownFiles(full, { dotFiles }, depth + 1)));
  }
  return files.sort();
}

async function readDefinition(file: string, level: AgentDefinition['level'], warnings: AgentMemoryWarning[]): Promise<AgentDefinition | null> {
  const bad = (message: string): null => {
    warnings.push({ code: 'bad-agent-file', file, message: `This agent definition is skipped: ${message}.` });
    return null;
  };
  let text: string;
  try {
    const stat = await fs.stat(file);
    if (stat.size > AGENT_FILE_MAX_BYTES) return bad(`it is larger than ${AGENT_FILE_MAX_BYTES / 1024} KB`);
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    return bad(`it cannot be read (${failureWords(error)})`);
  }
  const parsed = readFrontmatter(text);
  if ('error' in parsed) return bad(parsed.error);
  const name = parsed.data.name;
  if (typeof name !== 'string' || name.trim() === '') return bad('its frontmatter has no `name`');
  // As written: Claude Code 2.1.332 does not trim it ("  padded  " keeps its memory in `--padded--`).
  const agentType = name;
  // Claude Code 2.1.332 does not load a file-defined agent named like a plugin's (`plugin:agent`).
  if (agentType.includes(':')) {
    return bad(`its name ${quoteName(agentType)} holds ":", which Claude Code keeps for plugin agents (plugin:agent), so it does not load this file`);
  }
  // Any other name is usable: its directory name (agentTypeDirName) keeps it inside the root.
  let memory: AgentMemoryScopeName | null = null;
  const raw = parsed.data.memory;
  if (raw !== undefined && raw !== null) {
    if (raw === 'user' || raw === 'project' || raw === 'local') {
      memory = raw;
    } else {
      // Claude Code accepts only the three scope names exactly (not `Project`, not ` local `);
      // anything else (even `true`) means no memory, so Memdir says so instead of guessing.
      warnings.push({
        code: 'bad-memory-field',
        file,
        message: `memory: ${JSON.stringify(raw)} is not a scope, so agent ${quoteName(agentType)} has no memory; use user, project or local.`,
      });
    }
  }
  return { agentType, file, level, memory };
}

async function isDirectory(p: string): Promise<boolean> {
  const stat = await fs.stat(p).catch(() => null);
  return stat?.isDirectory() ?? false;
}

/**
 * Warn when `<launchDir>/.claude/agent-memory-local/` would be committed: not git-ignored, or
 * ignored but with files already tracked (ignore rules do not apply to those). Checked only
 * when it matters (the directory exists or an agent uses local memory); outside git, or when
 * git cannot answer, there is nothing to warn about.
 */
async function localIgnoredWarning(launchDir: string): Promise<AgentMemoryWarning | null> {
  const rel = `.claude/${AGENT_MEMORY_FOLDER.local}/`;
  const file = path.join(launchDir, rel);
  // The directory itself (dir-only patterns) and a file inside it (patterns like `dir/*`).
  const ignored = await runGit(['check-ignore', rel, `${rel}MEMORY.md`], launchDir);
  if (ignored.code === 1) {
    return {
      code: 'local-not-ignored',
      file,
      message:
        'Local agent memory (.claude/agent-memory-local/) is not git-ignored, so it may be committed and shared. Add ".claude/agent-memory-local/" to .gitignore.',
    };
  }
  if (ignored.code !== 0) return null;
  const tracked = await runGit(['ls-files', '-z', '--', rel], launchDir);
  const count = tracked.code === 0 ? tracked.stdout.split('\0').filter(Boolean).length : 0;
  if (count === 0) return null;
  return {
    code: 'local-not-ignored',
    file,
    message: `Local agent memory (.claude/agent-memory-local/) is git-ignored, but ${count} file${count === 1 ? ' is' : 's are'} already committed; remove ${count === 1 ? 'it' : 'them'} from git with "git rm --cached -r .claude/agent-memory-local".`,
  };
}

/**
 * Every agent type of this home and project with its three memory scopes: those defined in
 * agent files (user level `<home>/agents/**.md`, project level `.claude/agents/**.md` of the
 * launch directory and its parents, see {@link projectAgentDirs}; listed even without `memory:`,
 * with no scope enabled) and those that only have memory directories on disk (`definedIn: []`).
 * A project definition overrides a user one of the same name, and a nearer folder's a farther
 * one's (as in Claude Code), so its `memory:` decides which scope is enabled. `launchDir` is the
 * directory Claude Code is launched in (its project and local memory live there), `repoRoot` the
 * project's canonical key (R-KEY; by default the launch directory). Without a launch directory
 * only the user scope is listed. Bad agent files and a local memory directory that git would
 * commit are reported as warnings, never thrown.
 */
export async function listAgentMemories(
  home: string,
  launchDir: string | null,
  repoRoot: string | null = launchDir,
  options: { memoryBase?: string | null } = {},
): Promise<{ agents: AgentMemory[]; warnings: AgentMemoryWarning[] }> {
  const warnings: AgentMemoryWarning[] = [];
  // User-level memory moves with CLAUDE_CODE_REMOTE_MEMORY_DIR (settings' memoryBase); definitions do not.
  const userBase = options.memoryBase ?? home;
  const userFiles = await markdownFiles(path.join(home, 'agents'), { dotFiles: false });
  const projectFiles = launchDir ? (await Promise.all(projectAgentDirs(launchDir, repoRoot).map((dir) => markdownFiles(dir, { dotFiles: false })))).flat() : [];
  // Each file reports into its own list so warnings keep file order despite parallel reads.
  const sources = [...userFiles.map((file) => ({ file, level: 'user' as const })), ...projectFiles.map((file) => ({ file, level: 'project' as const }))];
  const read = await Promise.all(
    sources.map(async ({ file, level }) => {
      const own: AgentMemoryWarning[] = [];
      return { def: await readDefinition(file, level, own), own };
    }),
  );
  for (const { own } of read) warnings.push(...own);
  const definitions = read.map(({ def }) => def).filter((d): d is AgentDefinition => d !== null);

  const byType = new Map<string, { definedIn: string[]; memory: AgentMemoryScopeName | null; level: string | null }>();
  for (const def of definitions) {
    const entry = byType.get(def.agentType) ?? { definedIn: [], memory: null, level: null };
    entry.definedIn.push(def.file);
    // Project level wins over user level; within a level the first file (sorted) wins.
    if (entry.level === null || (entry.level === 'user' && def.level === 'project')) {
      entry.memory = def.memory;
      entry.level = def.level;
    }
    byType.set(def.agentType, entry);
  }

  const scopes = SCOPES.filter((scope) => agentMemoryRoot(scope, userBase, launchDir) !== null);
  const definedDirNames = new Set([...byType.keys()].map(agentTypeDirName));
  for (const scope of scopes) {
    // A folder that is a symbolic link is listed too: Claude Code loads a user-level one through it.
    for (const { name } of listSubfolders(agentMemoryRoot(scope, userBase, launchDir)!)) {
      if (!definedDirNames.has(name) && !byType.has(name)) byType.set(name, { definedIn: [], memory: null, level: null });
    }
  }

  const agents: AgentMemory[] = await Promise.all(
    [...byType.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(async ([agentType, entry]) => ({
        agentType,
        definedIn: entry.definedIn,
        scopes: await Promise.all(
          scopes.map(async (scope) => {
            const memoryDir = path.join(agentMemoryRoot(scope, userBase, launchDir)!, agentTypeDirName(agentType));
            return { scope, memoryDir, exists: await isDirectory(memoryDir), enabled: entry.memory === scope };
          }),
        ),
      })),
  );

  warnings.push(...sharedFolderWarnings(agents));
  for (const agent of agents) {
    if (agent.definedIn.length === 0) continue;
    for (const s of agent.scopes.filter((x) => x.enabled)) {
      const refused = agentIndexNotRead(s.scope, s.memoryDir, launchDir);
      if (refused) warnings.push(notReadWarning(agent.agentType, s.memoryDir, refused));
    }
  }
  if (launchDir) {
    const localRoot = agentMemoryRoot('local', userBase, launchDir)!;
    const usesLocal = agents.some((a) => a.scopes.some((s) => s.scope === 'local' && s.enabled));
    let localCommitted = false;
    if (usesLocal || (await isDirectory(localRoot))) {
      const warning = await localIgnoredWarning(launchDir);
      if (warning) warnings.push(warning);
      localCommitted = warning !== null;
    }
    const committed = agents.flatMap((a) => a.scopes.filter((s) => s.exists && (s.scope === 'project' || (s.scope === 'local' && localCommitted))));
    warnings.push(...(await committedSecretWarnings(launchDir, committed)));
  }
  return { agents, warnings };
}

/** The most findings named in one warning; the rest are counted. */
const MAX_NAMED_FINDINGS = 3;

/**
 * A secret in agent memory git commits (project memory, and local memory that is not git-ignored):
 * git is a way off this machine Memdir does not hold — it never commits nor pushes — so each file
 * holding one is named (by the one scanner, `memdir secrets scan`'s: the secret masked, a secret
 * in a file or folder name too) with what to do: remove it before committing, or, once committed,
 * revoke it, since git's history keeps it after the file no longer does. Outside git there is no
 * such way: nothing is said.
 */
async function committedSecretWarnings(launchDir: string, scopes: readonly AgentMemoryScope[]): Promise<AgentMemoryWarning[]> {
  if (scopes.length === 0) return [];
  // Inside a work tree, and its HEAD commit (none before the first commit: exit code 1).
  const inGit = await runGit(['rev-parse', '--is-inside-work-tree', '--verify', '-q', 'HEAD'], launchDir);
  const [inside, head = ''] = inGit.stdout.split('\n').map((line) => line.trim());
  if ((inGit.code !== 0 && inGit.code !== 1) || inside !== 'true') return [];
  const secrets = await import('../secrets/index.js');
  const { scanContent } = secrets;
  const warnings: AgentMemoryWarning[] = [];
  if (head !== '') for (const scope of scopes) warnings.push(...(await historySecretWarnings(launchDir, scope, head, secrets)));
  for (const scope of scopes) {
    // Names as git and Claude Code see them: relative to the launch directory (`.claude/agent-memory/reviewer/x.md`).
    const files = await markdownFiles(scope.memoryDir, { dotFiles: true });
    if (files.length === 0) continue;
    const tracked = await runGit(['ls-files', '-z', '--', ...files.map((f) => path.relative(launchDir, f))], launchDir);
    const committed = new Set(tracked.code === 0 ? tracked.stdout.split('\0').filter(Boolean) : []);
    for (const file of files) {
      const rel = path.relative(launchDir, file).split(path.sep).join('/');
      let data: Buffer;
      try {
        data = await fs.readFile(file);
      } catch {
        continue;
      }
      const findings = await scanContent(rel, data);
      if (findings.length === 0) continue;
      const shown = findings[0]!.file;
      const named = findings.slice(0, MAX_NAMED_FINDINGS).map((f) => findingWords(f));
      const more = findings.length > MAX_NAMED_FINDINGS ? ` and ${findings.length - MAX_NAMED_FINDINGS} more` : '';
      const where = scope.scope === 'project' ? 'Project agent memory is committed' : 'This local agent memory is not git-ignored, so it is committed';
      const todo = committed.has(rel)
        ? "The file is committed already: removing the secret now leaves it in git's history, so revoke it (and if that commit was not pushed yet, amend it before you push)."
        : 'Remove or redact it before you commit.';
      warnings.push({
        code: 'secret-in-committed-memory',
        file: path.join(launchDir, shown),
        message: `${shown} holds ${named.join(', ')}${more}. ${where} and shared through git, so a push sends it off this machine. ${todo}`,
      });
    }
  }
  return warnings;
}

/** The most commits of one agent memory folder whose changes are read for secrets (newest first). */
const MAX_HISTORY_COMMITS = 200;

/** What a finding is, as a warning names it: `a GitHub token (ghp_****…) at line 7`, or `… in its name`. */
function findingWords(f: Finding, line = f.line): string {
  const what = f.rule === SCANNER_ERROR_RULE ? f.title.toLowerCase() : `${/^[AEIOU]/.test(f.title) ? 'an' : 'a'} ${f.title} (${f.match})`;
  return f.where === 'name' ? `${what} in its name` : `${what} at line ${line}`;
}

/**
 * The secrets one commit added to one file of an agent memory folder: each finding, the trace of
 * the text it matched (to tell whether the file still holds it; never the text: this is kept for
 * the process), its line in that commit's file.
 */
interface AddedSecrets {
  commit: string;
  /** Its path (relative to the launch directory), masked when its name holds a secret: then `nameTrace` finds it. */
  file: string;
  nameTrace: SecretTrace | null;
  found: { finding: Finding; trace: SecretTrace | null; line: number }[];
}

/** What the history check uses of the secrets capability (imported when first needed). */
interface HistorySecrets {
  scanContent: typeof scanContent;
  textHolds: typeof textHolds;
  traceOf: typeof traceOf;
}

/**
 * What `git log -p` of each agent memory folder gave, by launch directory and folder, for the HEAD
 * commit it was read at: a listing with no new commit reads no history again (the Agents view
 * lists on every look). Held for the process (the scanner's rules are the code's, so they cannot
 * change under it); a new commit reads it again. It holds no secret's text: each secret (and a file
 * name that holds one) is kept as its trace — keyed fingerprint, length, and its first characters (fingerprint.ts `traceOf`; in this process's memory only, never shown).
 */
const addedByFolder = new Map<string, { head: string; added: Promise<AddedSecrets[]> }>();

/** What the history check keeps between listings, as it keeps it (tests: that no secret is among it). */
export async function historyCheckCache(): Promise<unknown[]> {
  return Promise.all([...addedByFolder.values()].map(async ({ head, added }) => ({ head, added: await added.catch(() => []) })));
}

/**
 * A secret that a commit of this agent memory folder added and that the file no longer holds (it
 * was edited out, the file renamed or deleted): git's history keeps it, and every clone and push
 * carries it. Read-only — `git log -p` over the folder (the newest MAX_HISTORY_COMMITS commits, as
 * much as runGit reads; once per HEAD commit, addedByFolder) — and never rewritten: the user is
 * told to revoke it. Every added stretch of lines of a commit is scanned under its file's path (the
 * one scanner, a token in an old name too); a secret the file still holds is left to
 * `secret-in-committed-memory`. One warning a file, naming the newest commit that added one of its secrets.
 */
async function historySecretWarnings(launchDir: string, scope: AgentMemoryScope, head: string, secrets: HistorySecrets): Promise<AgentMemoryWarning[]> {
  const folder = path.relative(launchDir, scope.memoryDir).split(path.sep).join('/');
  const key = `${launchDir}\0${folder}`;
  let cached = addedByFolder.get(key);
  if (cached?.head !== head) {
    cached = { head, added: secretsAddedInHistory(launchDir, folder, secrets) };
    addedByFolder.set(key, cached);
    // A failed read is not kept: the next listing tries again.
    cached.added.catch(() => addedByFolder.delete(key));
  }
  const byFile = new Map<string, { commit: string; findings: Finding[]; lines: number[] }>();
  // The folder's files now (relative to the launch directory), listed once: where a name with a secret is found by its trace.
  let listed: Promise<string[]> | null = null;
  const present = (): Promise<string[]> =>
    (listed ??= fs
      .readdir(scope.memoryDir, { recursive: true })
      .then((names) => names.map((n) => `${folder}/${n.split(path.sep).join('/')}`))
      .catch(() => []));
  const pathOf = async (change: AddedSecrets): Promise<string | null> => {
    const trace = change.nameTrace;
    if (!trace) return change.file;
    for (const rel of await present()) if (rel.length === trace.length && secrets.textHolds(rel, trace)) return rel;
    return null;
  };
  // Each file as it is now, read once however many commits added a secret to it.
  const nowText = new Map<string, Promise<string | null>>();
  for (const change of await cached.added) {
    const fileKey = change.nameTrace ? `${change.file}\0${change.nameTrace.fingerprint}` : change.file;
    let reading = nowText.get(fileKey);
    if (!reading)
      nowText.set(fileKey, (reading = pathOf(change).then((rel) => (rel === null ? null : fs.readFile(path.join(launchDir, rel), 'utf8').catch(() => null)))));
    const now = await reading;
    const gone: typeof change.found = [];
    for (const found of change.found)
      if (now === null || (found.finding.where !== 'name' && !(found.trace && secrets.textHolds(now, found.trace)))) gone.push(found);
    if (gone.length === 0) continue;
    const known = byFile.get(fileKey);
    if (known) {
      for (const { finding: f, line } of gone) {
        if (f.fingerprint !== '' && known.findings.some((k) => k.fingerprint === f.fingerprint)) continue;
        // Its line in the file as the commit that added it left it, as for the newest commit's.
        known.findings.push(f);
        known.lines.push(line);
      }
    } else byFile.set(fileKey, { commit: change.commit, findings: gone.map((g) => g.finding), lines: gone.map((g) => g.line) });
  }
  return [...byFile.values()].map(({ commit: newest, findings, lines }) => {
    const shown = findings[0]!.file;
    const named = findings.slice(0, MAX_NAMED_FINDINGS).map((f, i) => findingWords(f, lines[i]));
    const more = findings.length > MAX_NAMED_FINDINGS ? ` and ${findings.length - MAX_NAMED_FINDINGS} more` : '';
    return {
      code: 'secret-in-git-history' as const,
      file: path.join(launchDir, shown),
      message: `${shown} held ${named.join(', ')}${more} ${findings[0]!.where === 'name' ? 'in' : 'of'} commit ${newest}. The file no longer holds it, but this folder's git history does: anyone with the repository can read it, and a push sends it off this machine. Revoke it (Memdir never rewrites history).`,
    };
  });
}

/** The secrets each commit of `folder` (newest first, MAX_HISTORY_COMMITS) added, scanned per added stretch of lines. */
async function secretsAddedInHistory(launchDir: string, folder: string, secrets: HistorySecrets): Promise<AddedSecrets[]> {
  const log = await runGit(
    [
      '-c',
      'core.quotePath=false',
      'log',
      '-p',
      '-U0',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-renames',
      // Paths relative to the launch directory, as the folder and the files read now are: from
      // below the repository root, git's own are the root's (review s44 #5).
      '--relative',
      `--max-count=${MAX_HISTORY_COMMITS}`,
      '--format=%x00%h',
      '--',
      folder,
    ],
    launchDir,
  );
  if (log.stdout === '') return [];
  // Added lines, per commit and file, in the order git gives them (newest commit first).
  const added: { commit: string; file: string; lines: string[]; from: number[] }[] = [];
  let commit = '';
  let current: (typeof added)[number] | null = null;
  let inHeader = false;
  let next = 0;
  for (const line of log.stdout.split('\n')) {
    if (line.startsWith('\0')) {
      commit = line.slice(1);
      current = null;
    } else if (line.startsWith('diff --git ')) {
      inHeader = true;
      current = null;
    } else if (inHeader && line.startsWith('+++ ')) {
      const target = line.slice(4);
      current = target === '/dev/null' ? null : { commit, file: target.replace(/^"?b\//, '').replace(/"$/, ''), lines: [], from: [] };
      if (current) added.push(current);
    } else if (line.startsWith('@@')) {
      inHeader = false;
      next = Number(/\+(\d+)/.exec(line)?.[1] ?? 1);
    } else if (!inHeader && current && line.startsWith('+')) {
      current.lines.push(line.slice(1));
      current.from.push(next++);
    }
  }
  const found: AddedSecrets[] = [];
  for (const change of added) {
    if (change.lines.length === 0) continue;
    const text = change.lines.join('\n');
    const findings = (await secrets.scanContent(change.file, text)).filter((f) => f.rule !== SCANNER_ERROR_RULE);
    if (findings.length === 0) continue;
    const inName = findings.some((f) => f.where === 'name');
    found.push({
      commit: change.commit,
      file: inName ? findings[0]!.file : change.file,
      nameTrace: inName ? secrets.traceOf(change.file) : null,
      found: findings.map((f) => ({
        finding: f,
        trace: f.where === 'name' ? null : secrets.traceOf(text.slice(f.range[0], f.range[1])),
        line: change.from[f.line - 1] ?? f.line,
      })),
    });
  }
  return found;
}

/**
 * Defined agents whose memory lands in one folder: Claude Code 2.1.332 names the folder from the
 * name with every character outside [A-Za-z0-9_-] turned into "-" (agentTypeDirName), so "a b"
 * and "a-b", or "日本語" and "中文字", read and write one memory. One warning per shared folder.
 */
function sharedFolderWarnings(agents: readonly AgentMemory[]): AgentMemoryWarning[] {
  const byFolder = new Map<string, string[]>();
  for (const agent of agents) {
    if (agent.definedIn.length === 0) continue;
    for (const scope of agent.scopes.filter((s) => s.enabled)) byFolder.set(scope.memoryDir, [...(byFolder.get(scope.memoryDir) ?? []), agent.agentType]);
  }
  return [...byFolder]
    .filter(([, names]) => names.length > 1)
    .map(([folder, names]) => ({
      code: 'shared-memory-folder',
      file: folder,
      message: `Sub-agents ${names
        .slice(0, -1)
        .map((n) => JSON.stringify(n))
        .join(
          ', ',
        )} and ${JSON.stringify(names.at(-1))} share one memory folder, ${folder}: Claude Code turns every character of a name other than A–Z, a–z, 0–9, "_" and "-" into "-", so each reads and writes the others' memories. Rename all but one of them to keep their memories apart.`,
    }));
}

/**
 * The other directories a project's sessions start in that hold project or local agent memory of
 * their own (Claude Code keeps it per launch directory): one warning each, naming the folders, so
 * the user knows the memory is split. `shown` is the launch directory listed.
 */
export async function otherLaunchDirWarnings(shown: string, others: readonly string[]): Promise<AgentMemoryWarning[]> {
  const warnings: AgentMemoryWarning[] = [];
  for (const dir of [...new Set(others)].filter((d) => path.resolve(d) !== path.resolve(shown))) {
    const held: string[] = [];
    for (const scope of ['project', 'local'] as const) {
      const root = agentMemoryRoot(scope, dir, dir)!; // (the user base plays no part in these scopes)
      if (listSubfolders(root).length > 0) held.push(`.claude/${path.basename(root)}/`);
    }
    if (held.length === 0) continue;
    warnings.push({
      code: 'other-launch-dir',
      file: path.join(dir, '.claude'),
      message: `Sessions started in ${dir} keep their own agent memory there (${held.join(', ')}): Claude Code gives it only to sub-agents of sessions launched in that directory. This view shows ${shown}'s; choose the other directory above to see it.`,
    });
  }
  return warnings;
}

/**
 * What Claude Code 2.1.332 gives a sub-agent in place of its MEMORY.md when it does not read it
 * ({@link agentIndexNotRead}); the sub-agent then writes nothing in its memory folder.
 */
export const AGENT_INDEX_NOT_READ_SENTENCE =
  'Your MEMORY.md was not loaded: it or its folder is a link or a special file, or could not be verified to be inside this working copy. Treat this agent memory as read-only in this session: do not create or write MEMORY.md or other files in its folder.';

/** Why a project or local agent memory's MEMORY.md is not read: its folder, or the file itself. */
export interface AgentIndexRefusal {
  /** `folder`: the memory folder leads out of the launch directory or cannot be resolved; `link`: MEMORY.md is a symbolic link; `file`: it is a folder or a special file. */
  what: 'folder' | 'link' | 'file';
  /** Why, in a clause (`it is a symbolic link, and in project memory only a plain file is read`). */
  reason: string;
}

const beneath = (p: string, dir: string) => p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
const missing = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/** Where a folder really is, seen from the launch directory, as Claude Code 2.1.332 decides it. */
function folderPlace(dir: string, launchDir: string): 'beneath' | 'absent' | 'elsewhere' | 'unresolved' {
  let root: string;
  try {
    root = fsSync.realpathSync(launchDir);
  } catch {
    return 'unresolved';
  }
  try {
    return beneath(fsSync.realpathSync(dir), root) ? 'beneath' : 'elsewhere';
  } catch (error) {
    if (!missing(error)) return 'unresolved';
  }
  // Not there: a dangling link in its place leads elsewhere; else where its nearest existing parent really is.
  try {
    fsSync.lstatSync(dir);
    return 'elsewhere';
  } catch (error) {
    if (!missing(error)) return 'unresolved';
  }
  let existing = dir;
  const rest: string[] = [];
  for (;;) {
    try {
      fsSync.lstatSync(existing);
      break;
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) break;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
  try {
    return beneath(path.join(fsSync.realpathSync(existing), ...rest), root) ? 'absent' : 'elsewhere';
  } catch (error) {
    return missing(error) ? 'elsewhere' : 'unresolved';
  }
}

/**
 * Why Claude Code does not read a sub-agent's MEMORY.md, or null when it does (absent counts as
 * read: it is empty) — the one place for this rule. Observed with 2.1.332
 * (test/fixtures/claude-code-agent/observed-agent.json, `notRead`): user memory is read through
 * any link; project and local memory only when its folder really lies inside the launch
 * directory (links inside it are followed) and MEMORY.md itself is a plain file, not a symbolic
 * link (even to a file in the working copy), a folder or a special file. Otherwise the sub-agent
 * gets {@link AGENT_INDEX_NOT_READ_SENTENCE} and is told to write nothing there.
 */
export function agentIndexNotRead(scope: AgentMemoryScopeName, memoryDir: string, launchDir: string | null): AgentIndexRefusal | null {
  if (scope === 'user' || !launchDir) return null;
  const dir = memoryDir.replace(/[\\/]+$/, '');
  if (beneath(dir, launchDir)) {
    const place = folderPlace(dir, launchDir);
    if (place === 'elsewhere') return { what: 'folder', reason: `its folder leads out of ${launchDir} through a symbolic link` };
    if (place === 'unresolved') return { what: 'folder', reason: `its folder's real place could not be found (${dir})` };
  }
  let stat: fsSync.Stats;
  try {
    stat = fsSync.lstatSync(path.join(dir, INDEX_FILE));
  } catch {
    return null;
  }
  if (stat.isFile()) return null;
  const kind = stat.isSymbolicLink() ? 'a symbolic link' : stat.isDirectory() ? 'a folder' : 'not a regular file (a named pipe, a socket or a device)';
  return { what: stat.isSymbolicLink() ? 'link' : 'file', reason: `it is ${kind}, and in ${scope} memory only a plain file is read` };
}

function notReadWarning(agentType: string, memoryDir: string, refused: AgentIndexRefusal): AgentMemoryWarning {
  const fix =
    refused.what === 'folder'
      ? 'Keep the memory folder itself inside the working copy, not behind a link that leads out of it.'
      : refused.what === 'link'
        ? 'Put the file itself in place of the link.'
        : `Put a plain ${INDEX_FILE} file in its place.`;
  return {
    code: 'agent-index-not-read',
    file: refused.what === 'folder' ? memoryDir : path.join(memoryDir, INDEX_FILE),
    message: `Claude Code does not read the ${INDEX_FILE} of sub-agent ${quoteName(agentType)}: ${refused.reason}. The sub-agent is told its memory was not loaded and to treat it as read-only, writing nothing in its folder. ${fix}`,
  };
}
