/**
 * A memory dir's history as one file, and back (issue 18, export and import): `git bundle` of
 * the shadow repository, which a person can inspect with `git bundle list-heads` or clone. An
 * imported bundle is kept in the target's shadow repository under `refs/memdir/imports/<name>`,
 * so the history the memories had elsewhere stays readable beside their new one (imports.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HistoryError, type ShadowRepo, git, gitBlobs, gitInitBare } from './git.js';
import { ensureShadowRepo, openShadowRepo } from './shadow-repo.js';
import { checkFile, checkLimit, readLog } from './history.js';
import { type HistoryEntry, LOG_FORMAT, parseLog, toEntry } from './log-format.js';
import { withMemoryLock } from '../core/memory-lock.js';
import { IMPORT_NAME, IMPORTS, UNDONE_IMPORTS } from './imports.js';

/**
 * Run `fn` with a path for a file of its own, in a new folder of the temporary directory that only
 * this user can open (mkdtemp makes it 0700): the bundle is the whole history, every secret edited
 * out of a memory included, and `git bundle create` writes it readable by all (0644).
 */
async function withTempFile<T>(fn: (file: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bundle-'));
  try {
    return await fn(path.join(dir, 'history.bundle'));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The whole history of `memoryDir` as a git bundle, or null when nothing was recorded yet. */
export async function bundleHistory(memoryDir: string, opts: { dataDir?: string } = {}): Promise<Buffer | null> {
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  if (!repo) return null;
  const head = await git(repo, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { okCodes: [1, 128] });
  if (head.code !== 0) return null;
  return withTempFile(async (file) => {
    await git(repo, ['bundle', 'create', '-q', file, 'HEAD']);
    return fs.readFile(file);
  });
}

/** Run `fn` on a throwaway repository holding `bundle` as a file (nothing of the user's is touched). */
async function withBundleRepo<T>(bundle: Buffer, fn: (repo: ShadowRepo, file: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bundle-check-'));
  try {
    const repo = { gitDir: path.join(dir, 'repo.git'), workTree: dir };
    await gitInitBare(repo);
    const file = path.join(dir, 'history.bundle');
    await fs.writeFile(file, bundle);
    return await fn(repo, file);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Whether `bundle` is a complete git bundle (checked in a throwaway repository: nothing of the user's is touched). */
export async function isReadableBundle(bundle: Buffer): Promise<boolean> {
  try {
    return await withBundleRepo(bundle, async (repo, file) => (await git(repo, ['bundle', 'verify', '-q', file], { okCodes: [1, 128] })).code === 0);
  } catch {
    return false;
  }
}

/** One text a history bundle carries: a file as a revision holds it, or a revision's message. */
export interface BundledText {
  /** The file's path in the memory dir, or null for a revision's message. */
  path: string | null;
  /** The oldest revision that holds these bytes (at this path), and its commit time (ISO 8601). */
  rev: string;
  time: string;
  data: Buffer;
}

/**
 * Everything a history bundle (as `bundleHistory` writes) carries that a person wrote: every
 * file of every revision — each content once per path, with the oldest revision holding it —
 * and every revision's message, oldest first. Read from the bundle itself, in a throwaway
 * repository, so what is listed is exactly what the bundle packs.
 * @throws {HistoryError} when the bundle is not a readable git bundle.
 */
export async function readBundledTexts(bundle: Buffer): Promise<BundledText[]> {
  return withBundleRepo(bundle, async (repo, file) => {
    const verified = await git(repo, ['bundle', 'verify', '-q', file], { okCodes: [1, 128] });
    if (verified.code !== 0) throw new HistoryError('bad-argument', 'The history is not a readable git bundle');
    await git(repo, ['fetch', '-q', '--no-tags', file, '+HEAD:refs/memdir/bundled']);
    // Each revision's files that differ from its first parent (all of them for a root), parents
    // before children: every blob of every tree appears, first where it was introduced.
    const log = await git(repo, [
      'log',
      '--topo-order',
      '--reverse',
      '--root',
      '--diff-merges=first-parent',
      '--raw',
      '--no-abbrev',
      '--no-renames',
      '-z',
      '--format=%x1e%H%x1f%cI%x1f%B%x1f',
      'refs/memdir/bundled',
    ]);
    // In the order met; a file's bytes are read afterwards, all in one git.
    const found: (Omit<BundledText, 'data'> & ({ oid: string } | { data: Buffer }))[] = [];
    const seen = new Set<string>();
    const messages = new Set<string>();
    for (const record of log.stdout.split('\x1e').slice(1)) {
      const [rev = '', time = '', message = '', rest = ''] = record.split('\x1f');
      if (message.trim() !== '' && !messages.has(message)) {
        messages.add(message);
        found.push({ path: null, rev, time, data: Buffer.from(message, 'utf8') });
      }
      const tokens = rest.replace(/^\0/, '').replace(/^\n/, '').split('\0');
      for (let i = 0; i < tokens.length; i++) {
        const raw = /^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) ([A-Z])/.exec(tokens[i]!);
        if (!raw) continue;
        const filePath = tokens[++i] ?? '';
        const [, oid, status] = raw;
        if (status === 'D' || /^0+$/.test(oid!) || seen.has(`${filePath}\0${oid}`)) continue;
        seen.add(`${filePath}\0${oid}`);
        found.push({ path: filePath, oid: oid!, rev, time });
      }
    }
    const blobs = await gitBlobs(repo, [...new Set(found.flatMap((f) => ('oid' in f ? [f.oid] : [])))]);
    return found.map((f) => {
      if (!('oid' in f)) return f;
      const data = blobs.get(f.oid);
      if (!data) throw new HistoryError('git-failed', `Memdir's history is unavailable: the bundle lacks ${f.path} of revision ${f.rev.slice(0, 10)}`);
      return { path: f.path, rev: f.rev, time: f.time, data };
    });
  });
}

/**
 * Keep the history in `bundle` in the shadow repository of `memoryDir` as
 * `refs/memdir/imports/<name>` (the bundle is verified first). Returns the commit it points at.
 * @throws {HistoryError} when the bundle is not a readable git bundle.
 */
export async function keepBundledHistory(memoryDir: string, bundle: Buffer, name: string, opts: { dataDir?: string } = {}): Promise<string> {
  if (!IMPORT_NAME.test(name)) throw new HistoryError('bad-argument', `"${name}" cannot name an imported history`);
  return withMemoryLock(
    memoryDir,
    async () => {
      const repo = await ensureShadowRepo(memoryDir, opts.dataDir);
      return withTempFile(async (file) => {
        await fs.writeFile(file, bundle);
        const verified = await git(repo, ['bundle', 'verify', '-q', file], { okCodes: [1, 128] });
        if (verified.code !== 0) throw new HistoryError('bad-argument', 'The history in the archive is not a readable git bundle');
        await git(repo, ['fetch', '-q', '--no-tags', file, `+HEAD:${IMPORTS}${name}`]);
        return (await git(repo, ['rev-parse', `${IMPORTS}${name}`])).stdout.trim();
      });
    },
    { ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) },
  );
}

/** A history an import brought in, kept as `refs/memdir/imports/<id>` (see keepBundledHistory). */
export interface ImportedHistory {
  /** The import's id: its merge record (`memdir merge list`). */
  id: string;
  /** Its newest entry. */
  rev: string;
  /** Its entries, newest first: each can be diffed, read and restored from as the memory dir's own. */
  entries: HistoryEntry[];
  /** The import was undone (see retireImportedHistory): its entries are listed and read, never restored from. */
  undone: boolean;
}

/**
 * The histories imports brought into the shadow repository of `memoryDir`, newest import first
 * (with `file`: only entries touching it, and only imports holding any). Empty when none. Each
 * import's entries are those `listHistory` lists from its newest entry; without `file` they take
 * three git runs however many imports there are (with `file`, one more per import: each follows
 * the file's renames along its own history).
 */
export async function listImportedHistories(memoryDir: string, opts: { dataDir?: string; file?: string; limit?: number } = {}): Promise<ImportedHistory[]> {
  const file = opts.file === undefined ? undefined : checkFile(opts.file);
  checkLimit(opts.limit);
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  if (!repo) return [];
  // Newest entry first: importedHistories orders by import time and keeps this order for imports whose record is gone.
  const refs = await git(repo, ['for-each-ref', '--sort=-creatordate', '--format=%(refname)%00%(objectname)', IMPORTS, UNDONE_IMPORTS]);
  const found = refs.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [ref = '', rev = ''] = line.split('\0');
      const undone = ref.startsWith(UNDONE_IMPORTS);
      return { id: ref.slice((undone ? UNDONE_IMPORTS : IMPORTS).length), rev, undone };
    });
  if (found.length === 0) return [];
  const limit = opts.limit ? [`-n${opts.limit}`] : [];
  const lists =
    file === undefined
      ? await readHistories(
          repo,
          found.map((f) => f.rev),
          opts.limit,
        )
      : await Promise.all(found.map(async (f) => (await readLog(repo, [...limit, '--follow', f.rev], [file])).map(toEntry)));
  return found.map((f, i) => ({ ...f, entries: lists[i]! })).filter((h) => h.entries.length > 0 || file === undefined);
}

/**
 * The entries from each of `revs`, newest first, as `git log --topo-order <rev>` lists them (at
 * most `limit` each): one walk of them all, then one read of the entries wanted. A history whose
 * order the shared walk cannot settle (two lines of changes, not a merge's one side) is walked alone.
 */
async function readHistories(repo: ShadowRepo, revs: readonly string[], limit: number | undefined): Promise<HistoryEntry[][]> {
  const walk = await git(repo, ['rev-list', '--topo-order', '--parents', ...new Set(revs)]);
  const order: string[] = [];
  const parents = new Map<string, string[]>();
  for (const line of walk.stdout.split('\n').filter(Boolean)) {
    const [rev = '', ...of] = line.split(' ');
    order.push(rev);
    parents.set(rev, of);
  }
  const lists = await Promise.all(
    revs.map(async (rev) => {
      const reached = new Set<string>();
      for (const todo = [rev]; todo.length > 0; ) {
        const next = todo.pop()!;
        if (reached.has(next)) continue;
        reached.add(next);
        todo.push(...(parents.get(next) ?? []));
      }
      const own = order.filter((r) => reached.has(r));
      // Its only order when each entry's next is one of its parents: git's walk from it gives the same.
      const settled = own.every((r, i) => i === 0 || parents.get(own[i - 1]!)!.includes(r));
      const ordered = settled ? own : (await git(repo, ['rev-list', '--topo-order', rev])).stdout.split('\n').filter(Boolean);
      return limit ? ordered.slice(0, limit) : ordered;
    }),
  );
  const wanted = [...new Set(lists.flat())];
  const read = await git(repo, ['log', '--no-walk=unsorted', '--stdin', '-z', '--name-status', '-M', '--no-color', LOG_FORMAT], {
    input: `${wanted.join('\n')}\n`,
  });
  const entries = new Map(parseLog(read.stdout).map((e) => [e.rev, toEntry(e)]));
  return lists.map((list) => list.map((rev) => entries.get(rev)!));
}
