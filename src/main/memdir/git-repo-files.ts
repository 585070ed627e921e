/**
 * A repository's identity facts read from its files (issue 18): which git directory a project
 * path uses (R-KEY's walk-up, the common directory of a linked worktree, a bare repository),
 * its remotes from `config` (the common dir's for a worktree), where HEAD points (loose refs,
 * `packed-refs`), and the root commits of that history (git-objects.ts). No git process, no
 * network; every read bounded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { normalizeRemoteUrl } from '../../shared/project-identity.js';
import { type KeyExplanation } from './canonical-key.js';
import { CommitGraph } from './commit-graph.js';
import { GitObjectReader, commitParents } from './git-objects.js';

/** At most this many commits are walked to find the roots of a history. */
export const MAX_COMMITS_WALKED = 50_000;
const MAX_CONFIG_BYTES = 1024 * 1024;
const MAX_REF_DEPTH = 10;

/** The git directories of a checkout: its own (HEAD, refs of a worktree) and the common one (config, objects). */
export interface GitDirs {
  gitDir: string;
  commonDir: string;
}

/** What a path was asked for: a file's content, whether it is a directory, whether it exists. */
export type ReadKind = 'file' | 'dir' | 'exists';

/** Paths read while {@link recordReads} runs (null otherwise). */
let recording: Map<string, ReadKind> | null = null;

/**
 * Run `fn` (synchronous), noting every path this module reads meanwhile and how: what its result
 * was read from, so that a caller can tell later, with stats only, whether it still holds.
 */
export function recordReads<T>(fn: () => T): { value: T; reads: Map<string, ReadKind> } {
  const outer = recording;
  const reads = new Map<string, ReadKind>();
  recording = reads;
  try {
    return { value: fn(), reads };
  } finally {
    recording = outer;
    if (outer) for (const [p, kind] of reads) outer.set(p, kind);
  }
}

function isDir(p: string): boolean {
  recording?.set(p, 'dir');
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readSmall(p: string, max = MAX_CONFIG_BYTES): string | null {
  recording?.set(p, 'file');
  try {
    const st = fs.statSync(p);
    if (!st.isFile() || st.size > max) return null;
    return fs.readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

function exists(p: string): boolean {
  recording?.set(p, 'exists');
  return fs.existsSync(p);
}

/** Whether `dir` is itself a git directory (a bare repository, or a `.git` folder). */
function looksLikeGitDir(dir: string): boolean {
  return readSmall(path.join(dir, 'HEAD'), 4096) !== null && isDir(path.join(dir, 'objects'));
}

/**
 * The git directories behind a key explanation (R-KEY): a repository's `.git`; a worktree's
 * own gitdir and its common dir; the gitdir a `.git` file names (a submodule, a separate git
 * dir); or a bare repository that is the key itself. Null outside git.
 */
export function gitDirsOf(explanation: Pick<KeyExplanation, 'gitEntry' | 'worktree' | 'key' | 'via'>): GitDirs | null {
  if (explanation.gitEntry?.kind === 'directory') {
    const gitDir = explanation.gitEntry.path;
    return { gitDir, commonDir: commonDirOf(gitDir) };
  }
  const linked = explanation.worktree?.gitdir;
  if (linked && isDir(linked)) return { gitDir: linked, commonDir: explanation.worktree?.commondir ?? commonDirOf(linked) };
  if (looksLikeGitDir(explanation.key)) return { gitDir: explanation.key, commonDir: explanation.key };
  return null;
}

function commonDirOf(gitDir: string): string {
  const named = readSmall(path.join(gitDir, 'commondir'), 4096)?.trim();
  return named ? path.resolve(gitDir, named) : gitDir;
}

/** One `section.subsection.key = value` of a git config file. */
interface ConfigEntry {
  section: string;
  subsection: string | null;
  key: string;
  value: string;
}

/**
 * Git's config syntax, enough for remotes: `[section "subsection"]`, `key = value`, comments
 * after `#`/`;` outside quotes, quoted values with `\"`, `\\`, `\n`, `\t`, and lines continued
 * with a trailing backslash. Section and key names are case-insensitive, subsections are not.
 * `[include]`s are not followed.
 */
export function parseGitConfig(text: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let section = '';
  let subsection: string | null = null;
  const lines = text.replace(/\\\r?\n/g, '').split(/\r?\n/);
  for (const rawLine of lines) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      const name = header[1]!.toLowerCase();
      // The old `[section.subsection]` form.
      const dot = name.indexOf('.');
      section = dot === -1 ? name : name.slice(0, dot);
      subsection = header[2] !== undefined ? header[2].replace(/\\(.)/g, '$1') : dot === -1 ? null : name.slice(dot + 1);
      const rest = header[3]!.trim();
      if (rest === '' || rest.startsWith('#') || rest.startsWith(';')) continue;
      const inline = parseKeyValue(rest);
      if (inline) entries.push({ section, subsection, ...inline });
      continue;
    }
    const kv = parseKeyValue(line);
    if (kv && section !== '') entries.push({ section, subsection, ...kv });
  }
  return entries;
}

function parseKeyValue(line: string): { key: string; value: string } | null {
  const match = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
  if (!match) return null;
  let value = '';
  let quoted = false;
  const raw = match[2] ?? 'true';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '"') quoted = !quoted;
    else if (ch === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
    } else if (!quoted && (ch === '#' || ch === ';')) break;
    else value += ch;
  }
  return { key: match[1]!.toLowerCase(), value: quoted ? value : value.trim() };
}

/** What a repository's config says about its identity. */
export interface RepoConfig {
  /** Normalised remote URLs, sorted, no repeats. */
  remotes: string[];
  /** 20 for SHA-1 repositories, 32 for SHA-256 (`extensions.objectFormat`). */
  hashBytes: number;
  /** Refs kept in a reftable (`extensions.refStorage`), which this reader does not read. */
  reftable: boolean;
  shallow: boolean;
}

/** Remotes (with `url.<base>.insteadOf` applied, relative paths resolved) and the object format of a repository. */
export function readRepoConfig(dirs: GitDirs): RepoConfig {
  const text = readSmall(path.join(dirs.commonDir, 'config')) ?? '';
  const entries = parseGitConfig(text);
  const rewrites = entries
    .filter((e) => e.section === 'url' && e.key === 'insteadof' && e.subsection !== null)
    .map((e) => ({ from: e.value, to: e.subsection! }));
  const remotes = new Set<string>();
  for (const e of entries) {
    if (e.section !== 'remote' || e.key !== 'url' || !e.value) continue;
    // The longest matching insteadOf wins, as in git.
    const rule = rewrites.filter((r) => r.from !== '' && e.value.startsWith(r.from)).sort((a, b) => b.from.length - a.from.length)[0];
    let url = rule ? rule.to + e.value.slice(rule.from.length) : e.value;
    if (url.startsWith('.')) url = path.resolve(path.dirname(dirs.commonDir), url);
    const normal = normalizeRemoteUrl(url);
    if (normal) remotes.add(normal);
  }
  const extension = (key: string) => entries.find((e) => e.section === 'extensions' && e.key === key)?.value.toLowerCase();
  return {
    remotes: [...remotes].sort(),
    hashBytes: extension('objectformat') === 'sha256' ? 32 : 20,
    reftable: extension('refstorage') === 'reftable',
    shallow: exists(path.join(dirs.commonDir, 'shallow')),
  };
}

/** The commit HEAD points at (a detached id, or its branch through loose refs and `packed-refs`); null when unborn or unreadable. */
export function resolveHead(dirs: GitDirs, hashBytes: number): string | null {
  const oid = new RegExp(`^[0-9a-f]{${hashBytes * 2}}$`);
  let content = readSmall(path.join(dirs.gitDir, 'HEAD'), 4096)?.trim() ?? null;
  for (let depth = 0; content !== null && depth < MAX_REF_DEPTH; depth++) {
    if (oid.test(content)) return content;
    const match = /^ref:\s*(refs\/\S+)$/.exec(content);
    if (!match || match[1]!.split('/').includes('..')) return null;
    const ref = match[1]!;
    // Per-worktree refs live in the worktree's gitdir, shared ones in the common dir.
    content = readSmall(path.join(dirs.gitDir, ref), 4096)?.trim() ?? readSmall(path.join(dirs.commonDir, ref), 4096)?.trim() ?? packedRef(dirs.commonDir, ref);
  }
  return null;
}

function packedRef(commonDir: string, ref: string): string | null {
  const text = readSmall(path.join(commonDir, 'packed-refs'), 64 * 1024 * 1024);
  if (!text) return null;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space !== -1 && line.slice(space + 1).trim() === ref) return line.slice(0, space);
  }
  return null;
}

/** The root commits reachable from `head`, or why they are not known. */
export interface RootWalk {
  roots: string[];
  /** Null when every commit was read; else a sentence. */
  problem: string | null;
}

/**
 * Walk the history from `head` to its root commits, every parent followed: through the
 * commit-graph where git wrote one (commit-graph.ts; its commits cost no object reads), else —
 * and for commits newer than the graph — through the objects, at most `maxCommits` of those.
 */
export function findRootCommits(dirs: GitDirs, head: string, hashBytes: number, maxCommits = MAX_COMMITS_WALKED): RootWalk {
  const objectsDir = path.join(dirs.commonDir, 'objects');
  const graph = CommitGraph.open(objectsDir, hashBytes);
  const reader = new GitObjectReader(objectsDir, hashBytes);
  try {
    const roots = new Set<string>();
    const seen = new Set<string>();
    const inGraph = graph ? new Uint8Array(graph.size) : null;
    const queue: string[] = [];
    const positions: number[] = [];
    const visit = (oid: string) => {
      const pos = graph ? graph.position(oid) : -1;
      if (pos >= 0) {
        if (!inGraph![pos]) {
          inGraph![pos] = 1;
          positions.push(pos);
        }
      } else if (!seen.has(oid)) {
        seen.add(oid);
        queue.push(oid);
      }
    };
    visit(head);
    while (queue.length > 0 || positions.length > 0) {
      if (seen.size > maxCommits)
        return { roots: [], problem: `its history is longer than ${maxCommits.toLocaleString('en')} commits, too long to walk to the first commit` };
      const pos = positions.pop();
      if (pos !== undefined) {
        const parents = graph!.parents(pos);
        if (parents === null) return { roots: [], problem: 'its commit-graph file is damaged' };
        if (parents.length === 0) roots.add(graph!.oid(pos));
        for (const p of parents) {
          if (p >= graph!.size) return { roots: [], problem: 'its commit-graph file is damaged' };
          if (!inGraph![p]) {
            inGraph![p] = 1;
            positions.push(p);
          }
        }
        continue;
      }
      const oid = queue.pop()!;
      const object = reader.read(oid);
      if (!object || object.type !== 'commit') return { roots: [], problem: `commit ${oid.slice(0, 12)} could not be read from its files` };
      const parents = commitParents(object.data);
      if (parents.length === 0) roots.add(oid);
      for (const p of parents) visit(p);
    }
    return { roots: [...roots].sort(), problem: null };
  } finally {
    reader.close();
  }
}
