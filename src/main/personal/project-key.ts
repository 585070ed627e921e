/**
 * Which project a memory belongs to, for personal sync (issue 18, item 5): one string per project
 * that is the same on every machine, whatever the path — `/home/a/src/x` and `C:\work\x` checked
 * out from one repository share one memory. Personal sync depends only on this seam (a string id
 * with where it came from); item 1's project identity (root commits, then remotes:
 * `identityKey` in src/shared/project-identity.ts, being built in parallel) plugs in here when it
 * lands. Until then the id is the repository's normalised `origin` remote (`git-remote:<url>`,
 * the form `identityKey` gives a repository without readable root commits), read from its files
 * without running git; or a name the user gives (`name:<name>`) for a project without a remote.
 * A path is never an id: it is the one thing that differs between machines.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** The id a project is synced under, and what it came from (shown to the user). */
export interface SyncIdentity {
  id: string;
  source: 'repository' | 'given';
  /** In words: "remote github.com/acme/app", "the name you gave: notes". */
  detail: string;
}

/** Finds the sync identity of a project from its key directory (R-KEY), or null when it has none. */
export type IdentifySync = (root: string | null) => Promise<SyncIdentity | null>;

/** A name the user gives a project: what another machine must be given too. */
export function givenIdentity(name: string): SyncIdentity {
  const trimmed = name.trim().normalize('NFC');
  if (trimmed === '' || trimmed.length > 200 || /[\p{Cc}\p{Cf}]/u.test(trimmed)) throw new RangeError('A project name for personal sync is 1 to 200 printable characters.');
  return { id: `name:${trimmed}`, source: 'given', detail: `the name you gave: ${trimmed}` };
}

/**
 * A remote URL in one comparable form: scheme, user, port and a trailing `.git` dropped, lower
 * case, so `git@github.com:Acme/App.git` and `https://github.com/acme/app` are one remote. Local
 * paths are not portable between machines: null.
 */
export function normalizeRemote(url: string): string | null {
  const u = url.trim();
  let hostAndPath: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(\/.*)?$/i.exec(u);
  if (scheme) {
    if (scheme[1]!.toLowerCase() === 'file') return null;
    const authority = scheme[2]!.slice(scheme[2]!.lastIndexOf('@') + 1).replace(/:\d*$/, '');
    hostAndPath = `${authority}${scheme[3] ?? ''}`;
  } else if (/^[^/\\]+:/.test(u) && !/^[A-Za-z]:[\\/]/.test(u)) {
    const colon = u.indexOf(':');
    hostAndPath = `${u.slice(u.lastIndexOf('@', colon) + 1, colon)}/${u.slice(colon + 1)}`;
  } else {
    return null;
  }
  const cleaned = hostAndPath.replace(/\/{2,}/g, '/').replace(/\/+$/, '').replace(/\.git$/i, '').replace(/\/+$/, '');
  return cleaned.includes('/') ? cleaned.toLowerCase() : null;
}

/** The git config of a repository root: `.git/config`, or through a `.git` file's gitdir and commondir. */
async function gitConfigOf(root: string): Promise<string | null> {
  const dotGit = path.join(root, '.git');
  const st = await fs.stat(dotGit).catch(() => null);
  if (!st) return null;
  let gitDir = dotGit;
  if (st.isFile()) {
    const link = /^gitdir:\s*(.+)$/m.exec(await fs.readFile(dotGit, 'utf8').catch(() => ''))?.[1]?.trim();
    if (!link) return null;
    gitDir = path.resolve(root, link);
    const common = (await fs.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
    if (common) gitDir = path.resolve(gitDir, common);
  }
  return fs.readFile(path.join(gitDir, 'config'), 'utf8').catch(() => null);
}

/** The `url` of each `[remote "…"]` section of a git config, by remote name. */
function remotesOf(config: string): Map<string, string> {
  const remotes = new Map<string, string>();
  let current: string | null = null;
  for (const line of config.split(/\r?\n/)) {
    const section = /^\s*\[\s*remote\s+"([^"]*)"\s*\]/.exec(line);
    if (section) {
      current = section[1]!;
      continue;
    }
    if (/^\s*\[/.test(line)) current = null;
    const url = current !== null ? /^\s*url\s*=\s*(.+?)\s*$/i.exec(line)?.[1] : undefined;
    if (current !== null && url !== undefined && !remotes.has(current)) remotes.set(current, url.replace(/^"(.*)"$/, '$1'));
  }
  return remotes;
}

/** The default IdentifySync: the repository's `origin` (else its first remote by name), normalised. */
export const identifyByRemote: IdentifySync = async (root) => {
  if (!root) return null;
  const config = await gitConfigOf(root);
  if (!config) return null;
  const remotes = remotesOf(config);
  const names = [...remotes.keys()].sort((a, b) => (a === 'origin' ? -1 : b === 'origin' ? 1 : a < b ? -1 : 1));
  for (const name of names) {
    const remote = normalizeRemote(remotes.get(name)!);
    if (remote) return { id: `git-remote:${remote}`, source: 'repository', detail: `remote ${remote}` };
  }
  return null;
};
