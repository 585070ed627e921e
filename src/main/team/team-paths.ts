/**
 * R-SYNC-SECURITY on the client: every path in the team directory is checked before it is read
 * or written. A key from either side passes `sanitizePathKey`; then the path is walked
 * component by component with `lstat` (a symbolic link anywhere on the way is refused, never
 * followed), and `realpathDeepestExisting` — the real path of the deepest ancestor that exists,
 * resolved layer by layer, plus the part that does not exist yet — must lie inside the real team
 * directory, which itself must be `<real memory dir>/team` (a `team` that is a link to `~/.ssh`
 * is refused as a whole).
 *
 * A key is resolved once into a `TeamFile`, and every later step on it — stat, read, hash,
 * write — goes through that handle, which reads and writes with safe-fs's confined calls:
 * verified after the open, so a folder swapped for a link between the check and the use is
 * refused (issue 15, check-then-use), and a hard-linked file (`nlink > 1`: one of its names may
 * be ~/.ssh/id_ed25519) is never read. This module is the team's stricter rule (keys, one
 * folder deep, links and hard links alerted) and what the local scan is built on.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { sanitizePathKey } from '../../shared/path-key.js';
import { type SyncSpace, TEAM_SPACE, isExcluded, spaceRel } from './sync-space.js';
import { CLAUDE_CODE_STORE_MANIFEST, factsOf, type FileFacts, isClaudeCodeStoreFolder } from '../memdir/index.js';
import { realpathDeepestExisting, realpathDeepestExistingSync } from '../core/memory-lock.js';
import { errCode as code } from '../core/fs-errors.js';
import { MemoryFileError, UnsafePathError, openConfinedForRead } from '../core/confined-path.js';
import { writeFileAtomic } from '../core/safe-fs.js';
import { MemdirError } from '../../shared/errors.js';
import { WHOLE_FOLDER_KEY } from '../../shared/sync-waiting.js';

/** A team path that Memdir refuses to read or write, with a sentence a person understands. */
export class TeamPathError extends MemdirError<'unsafe-path'> {
  override readonly name = 'TeamPathError';
  constructor(
    readonly reason: 'invalid-key' | 'symlink' | 'outside' | 'not-a-file' | 'not-a-folder' | 'hardlink' | 'claude-code-store',
    /** The key (or folder) as given. */
    readonly key: string,
    message: string,
  ) {
    super('unsafe-path', message);
  }
}

/** Why Memdir's sync leaves `rel` (relative to the memory dir; '' for the memory dir itself) alone. */
export function claudeCodeStoreDetail(rel: string, space: SyncSpace): string {
  const where = rel === '' ? 'This memory folder' : `${rel}/`;
  return `${where} is a folder Claude Code syncs itself with a memory store (its ${CLAUDE_CODE_STORE_MANIFEST} file is there): Memdir's ${space.title.toLowerCase()} leaves it alone, so the two never upload or overwrite each other's files. Memdir's server gets none of its files; whether Claude Code's own sync sends them is up to it (a read-only store sends none, and it skips some, such as a file holding a secret).`;
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * The synced folder of a memory dir, checked: where it really is, and whether it exists. For a
 * team, `<memory dir>/team`; for a personal space (sync-space.ts), the memory dir itself with its
 * excluded folders left out — the names below say "team" for both.
 */
export interface TeamDir {
  memoryDir: string;
  teamDir: string;
  /** `<realpath(memoryDir)>/team` (or the memory dir's real path): every synced path must resolve under it. */
  teamReal: string;
  exists: boolean;
  space: SyncSpace;
}

/**
 * Check the synced folder itself. A team folder may be missing (created on the first pull), but
 * when it exists it must be a real folder at `<memory dir>/team`, not a link to somewhere else.
 * The private memory is the memory dir, wherever the user's settings put it.
 */
export async function checkTeamDir(memoryDir: string, space: SyncSpace = TEAM_SPACE): Promise<TeamDir> {
  // Synchronous calls inside: a handful of syscalls on every sync, cheaper than thread-pool round trips.
  const memoryReal = realpathDeepestExistingSync(memoryDir);
  if (!space.folder) {
    const st = fs.statSync(memoryDir, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) throw new TeamPathError('not-a-folder', '.', `${memoryDir} is not a folder, so there is no memory to sync.`);
    return { memoryDir, teamDir: memoryDir, teamReal: memoryReal, exists: st !== undefined, space };
  }
  const teamDir = path.join(memoryDir, space.folder);
  const teamReal = path.join(memoryReal, space.folder);
  const st = fs.lstatSync(teamDir, { throwIfNoEntry: false });
  if (st?.isSymbolicLink()) {
    let target = '?';
    try {
      target = fs.readlinkSync(teamDir);
    } catch {
      // Gone meanwhile.
    }
    throw new TeamPathError(
      'symlink',
      space.folder,
      `${teamDir} is a symbolic link (to ${target}); Memdir never syncs through a link, so team sync is stopped for this project. Replace it with a real folder.`,
    );
  }
  if (st && !st.isDirectory()) throw new TeamPathError('not-a-folder', space.folder, `${teamDir} is not a folder, so there is no team memory to sync.`);
  if (st && realpathDeepestExistingSync(teamDir) !== teamReal) {
    throw new TeamPathError('outside', space.folder, `${teamDir} does not resolve inside the memory directory; team sync is stopped for this project.`);
  }
  return { memoryDir, teamDir, teamReal, exists: st !== undefined, space };
}

/** A safe-fs refusal on a team file as the team's own error (links and hard links are security alerts). */
function asTeamError(error: unknown, key: string): unknown {
  if (error instanceof UnsafePathError)
    return new TeamPathError(error.reason === 'hardlink' ? 'hardlink' : error.reason === 'invalid' ? 'invalid-key' : error.reason, key, error.message);
  if (error instanceof MemoryFileError && error.reason === 'not-a-file') return new TeamPathError('not-a-file', key, error.message);
  return error;
}

/**
 * One team file, resolved and checked once (`resolveTeamKey`); every later step goes through it
 * (see the file comment). A stat is only a hint (it decides whether to read); what is read or
 * written is verified at the moment it is.
 */
export class TeamFile {
  constructor(
    readonly team: TeamDir,
    readonly key: string,
    /** The absolute path, for messages and stat hints. */
    readonly abs: string,
  ) {}

  /** The path relative to the memory directory. */
  get rel(): string {
    return spaceRel(this.team.space, this.key);
  }

  /** The stat facts now (null: no such file). */
  async facts(): Promise<FileFacts | null> {
    const st = await fsp.lstat(this.abs).catch((error: unknown) => {
      if (code(error) === 'ENOENT') return null;
      throw error;
    });
    return st ? factsOf(st) : null;
  }

  /** Open for reading, verified (null: no such file); the caller closes the handle. Throws TeamPathError for a link, a swap, a hard link, not a file. */
  async open(): Promise<{ handle: fsp.FileHandle; facts: FileFacts } | null> {
    try {
      const opened = await openConfinedForRead(this.team.memoryDir, this.rel, { refuseHardlinks: true });
      return opened ? { handle: opened.handle, facts: factsOf(opened.stat) } : null;
    } catch (error) {
      throw asTeamError(error, this.key);
    }
  }

  /** The whole file (null: no such file). */
  async read(): Promise<{ data: Buffer; facts: FileFacts } | null> {
    const opened = await this.open();
    if (!opened) return null;
    try {
      return { data: await opened.handle.readFile(), facts: opened.facts };
    } finally {
      await opened.handle.close();
    }
  }

  /** Write atomically (safe-fs: confined, verified); the facts of what was written. */
  async write(content: string | Uint8Array): Promise<FileFacts> {
    try {
      await writeFileAtomic(this.team.memoryDir, this.rel, content);
    } catch (error) {
      throw asTeamError(error, this.key);
    }
    const facts = await this.facts();
    if (!facts) throw new TeamPathError('outside', this.key, `${this.rel} vanished right after it was written.`);
    return facts;
  }
}

/**
 * Why sync must leave team key `key` alone, or null: it lies in a folder Claude Code syncs itself
 * (`isClaudeCodeStoreFolder`, looked at now). Sync asks before it uploads a file and right before
 * a pull writes one (STYLE: confinement is checked at the moment of the write); a person's own
 * edit there — the editor, a conflict resolved here — is not sync's, and is written.
 */
export function claudeCodeStoreRefusal(team: TeamDir, key: string): TeamPathError | null {
  const slash = key.indexOf('/');
  const store = isClaudeCodeStoreFolder(team.teamDir)
    ? team.space.folder
    : slash > 0 && isClaudeCodeStoreFolder(path.join(team.teamDir, key.slice(0, slash)))
      ? spaceRel(team.space, key.slice(0, slash))
      : null;
  if (store === null) return null;
  return new TeamPathError(
    'claude-code-store',
    key,
    `${spaceRel(team.space, key)} was not written here: ${store === '' ? 'this memory folder' : `${store}/`} is a folder Claude Code syncs itself.`,
  );
}

/**
 * Team key `key`, after the full check (see the file comment), as the handle every later step
 * on it uses. It does not create anything.
 */
export async function resolveTeamKey(team: TeamDir, key: string): Promise<TeamFile> {
  const check = checkKey(key);
  if (!check.ok) throw new TeamPathError('invalid-key', key, check.reason);
  const parts = key.split('/');
  // A personal space never reads or writes inside team/ (the team sync owns it: a file a
  // personal pull put there would be uploaded to the team) nor the folders it leaves out.
  if (parts.length > 1 && isExcluded(team.space, parts[0]!)) {
    throw new TeamPathError('invalid-key', key, `${key} is inside ${parts[0]}/, which ${team.space.title.toLowerCase()} leaves alone; refused.`);
  }
  let current = team.teamDir;
  for (let i = 0; i < parts.length; i++) {
    current = path.join(current, parts[i]!);
    const st = await fsp.lstat(current).catch((error: unknown) => {
      if (code(error) === 'ENOENT') return null;
      throw error;
    });
    if (!st) break;
    const shown = spaceRel(team.space, parts.slice(0, i + 1).join('/'));
    if (st.isSymbolicLink()) {
      const target = await fsp.readlink(current).catch(() => '?');
      throw new TeamPathError('symlink', key, `${shown} is a symbolic link (to ${target}); Memdir never reads or writes through links in a synced folder.`);
    }
    if (i < parts.length - 1 && !st.isDirectory())
      throw new TeamPathError('not-a-folder', key, `${shown} is a file where ${spaceRel(team.space, key)} needs a folder.`);
    if (i === parts.length - 1 && !st.isFile()) throw new TeamPathError('not-a-file', key, `${spaceRel(team.space, key)} exists and is not a regular file.`);
  }
  const real = await realpathDeepestExisting(current);
  if (!isInside(team.teamReal, real)) {
    throw new TeamPathError('outside', key, `${spaceRel(team.space, key)} resolves to ${real}, outside the synced folder ${team.teamReal}; refused.`);
  }
  return new TeamFile(team, key, current);
}

// sanitizePathKey is pure: remember the names already accepted, so listing thousands of files
// costs one Set lookup per name rather than a Unicode normalisation and a dozen patterns.
const acceptedKeys = new Set<string>();

/** `sanitizePathKey`, remembering the accepted keys (refusals are rare and not remembered). */
export function checkKey(key: string): ReturnType<typeof sanitizePathKey> {
  if (acceptedKeys.has(key)) return { ok: true, key };
  const check = sanitizePathKey(key);
  if (check.ok) {
    if (acceptedKeys.size > 200_000) acceptedKeys.clear();
    acceptedKeys.add(key);
  }
  return check;
}

/** A file found in the team directory, with its stat facts (one object per file: the no-op sync makes thousands). */
export interface LocalTeamFile extends FileFacts {
  key: string;
  abs: string;
}

/** Something in the team directory that is not synced, and why (shown as "waiting"). */
export interface LocalProblem {
  key: string;
  reason: 'symlink' | 'invalid-key' | 'not-a-file' | 'too-deep' | 'hardlink' | 'claude-code-store';
  detail: string;
  /** For links: where it points (read with readlink, never followed). */
  target?: string;
}

/** What the team directory holds now: one readdir per folder and one lstat per file. */
export interface LocalListing {
  /** Files to look at (all of them, unless `skip` said some are known to be in step). */
  files: Map<string, LocalTeamFile>;
  /** Keys `skip` recognised as unchanged and in step: counted, not listed. */
  inStep: Set<string>;
  problems: LocalProblem[];
}

/**
 * List the team directory's `*.md` files, at most one folder deep, without reading any. Links
 * are reported (with their target) and never followed; names that are not valid keys are
 * reported with the reason. Synchronous on purpose: thousands of `lstat`s are cheaper without a
 * promise each, and the no-op sync is exactly this listing. `skip` lets the sync leave out
 * (count only) files it already knows to be unchanged and in step, so they cost no allocation;
 * the facts it is given are reused for the next file, so it must not keep them.
 */
export function listTeamFiles(team: TeamDir, skip?: (key: string, facts: FileFacts) => boolean): LocalListing {
  const files = new Map<string, LocalTeamFile>();
  const inStep = new Set<string>();
  const problems: LocalProblem[] = [];
  if (!team.exists) return { files, inStep, problems };
  if (isClaudeCodeStoreFolder(team.teamDir)) {
    problems.push({ key: WHOLE_FOLDER_KEY, reason: 'claude-code-store', detail: claudeCodeStoreDetail(team.space.folder, team.space) });
    return { files, inStep, problems };
  }
  const walk = (dir: string, prefix: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if (depth > 0 && (code(error) === 'ENOENT' || code(error) === 'ENOTDIR')) return;
      throw error;
    }
    // Names from readdir hold no separator: plain concatenation is the join.
    const base = dir + path.sep;
    // Two passes. First the system calls alone, in a tight loop, their results packed into
    // numbers; then the checks. Interleaving map look-ups with thousands of lstats measurably
    // slows the lstats down (caches), and this loop is the whole cost of a no-op sync.
    const statted: string[] = [];
    const hardlinked: string[] = [];
    const facts = new Float64Array(entries.length * 4);
    const others: fs.Dirent[] = [];
    for (const entry of entries) {
      const name = entry.name;
      // Dot names are Memdir's temp files, .DS_Store, editors' swap files: never memory.
      if (name.startsWith('.')) continue;
      if (!entry.isFile()) {
        others.push(entry);
        continue;
      }
      const st = fs.lstatSync(base + name, { throwIfNoEntry: false });
      if (!st || !st.isFile()) continue;
      if (st.nlink > 1) {
        hardlinked.push(name);
        continue;
      }
      const at = statted.length * 4;
      facts[at] = st.size;
      facts[at + 1] = st.mtimeMs;
      facts[at + 2] = st.ctimeMs;
      facts[at + 3] = st.ino;
      statted.push(name);
    }
    // One facts object for every `skip` question (it must not keep it): a file in step, the
    // usual case, then costs no allocation at all.
    const probe: FileFacts = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };
    for (let i = 0; i < statted.length; i++) {
      const name = statted[i]!;
      if (!name.endsWith('.md') && !/\.md$/i.test(name)) continue;
      const key = prefix + name;
      const check = checkKey(key);
      if (!check.ok) {
        problems.push({ key, reason: 'invalid-key', detail: check.reason });
        continue;
      }
      probe.size = facts[i * 4]!;
      probe.mtimeMs = facts[i * 4 + 1]!;
      probe.ctimeMs = facts[i * 4 + 2]!;
      probe.ino = facts[i * 4 + 3]!;
      if (skip?.(key, probe)) inStep.add(key);
      else files.set(key, { key, abs: base + name, size: probe.size, mtimeMs: probe.mtimeMs, ctimeMs: probe.ctimeMs, ino: probe.ino });
    }
    for (const name of hardlinked) {
      if (!/\.md$/i.test(name)) continue;
      const key = prefix + name;
      problems.push({
        key,
        reason: 'hardlink',
        detail: `${spaceRel(team.space, key)} is a hard link (one file with several names, which may be outside this folder, such as ~/.ssh/id_ed25519); Memdir never reads or uploads it. Replace it with a copy.`,
      });
    }
    for (const entry of others) {
      const name = entry.name;
      const key = prefix + name;
      const abs = base + name;
      if (depth === 0 && isExcluded(team.space, name)) continue;
      if (entry.isSymbolicLink()) {
        let target = '?';
        try {
          target = fs.readlinkSync(abs);
        } catch {
          // Vanished meanwhile: still worth reporting as what it was.
        }
        problems.push({
          key,
          reason: 'symlink',
          detail: `${spaceRel(team.space, key)} is a symbolic link (to ${target}); it is never followed or synced.`,
          target,
        });
      } else if (entry.isDirectory()) {
        if (depth === 0 && isClaudeCodeStoreFolder(abs))
          problems.push({ key, reason: 'claude-code-store', detail: claudeCodeStoreDetail(spaceRel(team.space, key), team.space) });
        else if (depth === 0) walk(abs, `${key}/`, 1);
        else
          problems.push({
            key,
            reason: 'too-deep',
            detail: `${spaceRel(team.space, key)} is a folder two levels deep; synced memory keys are at most one folder deep (folder/file.md).`,
          });
      } else if (/\.md$/i.test(name)) {
        problems.push({ key, reason: 'not-a-file', detail: `${spaceRel(team.space, key)} is not a regular file.` });
      }
    }
  };
  walk(team.teamDir, '', 0);
  return { files, inStep, problems };
}
