/**
 * Project identity beyond the path (issue 18): what survives a move, a rename, a second clone or
 * another machine. A memory directory is keyed by a path (R-KEY, R-SANITIZE), and a path is the
 * first thing to change; the repository's remote URLs and its root commits do not. Outside git,
 * or once the repository is gone, the project's last known paths (the `cwd` of its transcripts)
 * are all there is.
 *
 * The pure core, declared once: the shape's type (its zod schema, `memdir scan --json` → `identity`,
 * the app contract, personal sync's space key, is project-identity-schema.ts), remote URL
 * normalisation, and comparing two identities into evidence a person can read. Reading a repository's files is src/main/memdir/project-identity.ts.
 */
import type * as z from 'zod';
import type { projectIdentitySchema } from './project-identity-schema.js';

/** Where an identity's facts come from. */
export const IDENTITY_SOURCES = ['repository', 'remembered', 'paths'] as const;

/** A project's identity (see the module comment). The shape is a contract: add, never rename. */
export type ProjectIdentity = z.infer<typeof projectIdentitySchema>;

/** Why two projects look like the same one. */
export const IDENTITY_EVIDENCE = ['same-remote', 'same-root-commit', 'same-name'] as const;
export type IdentityEvidence = (typeof IDENTITY_EVIDENCE)[number];

/**
 * A remote URL in one comparable form: scheme, user, port, a trailing `.git` and slashes
 * dropped, lower case (hosts are case-insensitive, and the common forges' paths too), so
 * `git@github.com:Acme/App.git`, `https://github.com/acme/app` and
 * `ssh://git@github.com:22/acme/app.git/` are one remote. Local paths become `file://<path>`
 * (the caller resolves a relative one first). Null for an empty or unreadable URL.
 */
export function normalizeRemoteUrl(url: string): string | null {
  let u = url.trim();
  if (u === '') return null;
  let hostAndPath: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(u);
  if (scheme) {
    const kind = scheme[1]!.toLowerCase();
    const rest = scheme[2]!;
    if (kind === 'file') return `file://${trimRepoSuffix(rest.replace(/\\/g, '/'))}`;
    const slash = rest.indexOf('/');
    let authority = slash === -1 ? rest : rest.slice(0, slash);
    const pathPart = slash === -1 ? '' : rest.slice(slash);
    authority = authority.slice(authority.lastIndexOf('@') + 1);
    // `ssh://git@host:22/x` (a port) and `ssh://host:x` (scp-like inside a URL) both drop the colon part from the host.
    const colon = authority.lastIndexOf(':');
    let extra = '';
    if (colon !== -1 && !authority.startsWith('[')) {
      const after = authority.slice(colon + 1);
      if (!/^\d*$/.test(after)) extra = `/${after}`;
      authority = authority.slice(0, colon);
    }
    hostAndPath = `${authority}${extra}${pathPart}`;
  } else if (/^[^/\\]+:/.test(u) && !/^[A-Za-z]:[\\/]/.test(u)) {
    // scp-like `user@host:path`.
    const colon = u.indexOf(':');
    const host = u.slice(0, colon);
    hostAndPath = `${host.slice(host.lastIndexOf('@') + 1)}/${u.slice(colon + 1)}`;
  } else {
    u = u.replace(/\\/g, '/');
    return `file://${trimRepoSuffix(/^[A-Za-z]:\//.test(u) ? `/${u}` : u)}`;
  }
  const cleaned = trimRepoSuffix(hostAndPath.replace(/\/{2,}/g, '/'));
  return cleaned === '' ? null : cleaned.toLowerCase();
}

function trimRepoSuffix(p: string): string {
  return p
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
    .replace(/\/+$/, '');
}

/** The last segment of a path, either slash. */
export function baseNameOf(p: string): string {
  const parts = p.replace(/[\\/]+$/, '').split(/[\\/]/);
  return parts[parts.length - 1] ?? '';
}

/**
 * Why `a` and `b` look like one project: a remote in common, a root commit in common, the same
 * folder name. Names are compared as Claude Code would name their memory folders (R-SANITIZE:
 * `my_app` and `my-app` match), since that is all a folder name tells about a path it lost.
 */
export function compareIdentities(
  a: Pick<ProjectIdentity, 'remotes' | 'rootCommits' | 'paths'>,
  b: Pick<ProjectIdentity, 'remotes' | 'rootCommits' | 'paths'>,
): IdentityEvidence[] {
  const evidence: IdentityEvidence[] = [];
  if (a.remotes.some((r) => b.remotes.includes(r))) evidence.push('same-remote');
  if (a.rootCommits.some((c) => b.rootCommits.includes(c))) evidence.push('same-root-commit');
  const names = (paths: readonly string[]) =>
    new Set(paths.map((p) => baseNameOf(p).replace(/[^A-Za-z0-9]/g, '-')).filter((n) => n !== '' && /[A-Za-z0-9]/.test(n)));
  const an = names(a.paths);
  if ([...names(b.paths)].some((n) => an.has(n))) evidence.push('same-name');
  return evidence;
}

/**
 * Whether two identities say they are different projects: both were read from a repository
 * (now or remembered), share neither a remote nor a root commit, and at least one side has a
 * root commit to compare (two repositories without remotes and with different first commits —
 * say, one whose history was rewritten — cannot be told to be the same).
 */
export function identitiesDisagree(a: ProjectIdentity, b: ProjectIdentity): boolean {
  if (a.source === 'paths' || b.source === 'paths') return false;
  const evidence = compareIdentities(a, b);
  if (evidence.includes('same-remote') || evidence.includes('same-root-commit')) return false;
  return (a.rootCommits.length > 0 && b.rootCommits.length > 0) || (a.remotes.length > 0 && b.remotes.length > 0);
}

/**
 * The one key a project is known by wherever it is checked out (personal sync's space, clone
 * groups): its smallest root commit, else its first remote, else null (a project known only by
 * paths has no identity that survives a move).
 */
export function identityKey(identity: Pick<ProjectIdentity, 'remotes' | 'rootCommits'>): string | null {
  const root = [...identity.rootCommits].sort()[0];
  if (root) return `git-root:${root}`;
  const remote = [...identity.remotes].sort()[0];
  return remote ? `git-remote:${remote}` : null;
}

/** Evidence in words, for lists and previews. */
export function describeEvidence(evidence: readonly IdentityEvidence[]): string {
  const words: Record<IdentityEvidence, string> = { 'same-remote': 'same remote', 'same-root-commit': 'same root commit', 'same-name': 'same name' };
  return evidence.length === 0 ? 'no evidence' : evidence.map((e) => words[e]).join(', ');
}
