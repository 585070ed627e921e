/**
 * Which project a memory belongs to, for personal sync (issue 18, item 5): one string per project
 * that is the same on every machine, whatever the path — `/home/a/src/x` and `C:\work\x` checked
 * out from one repository share one memory. The string is issue 18's project identity key
 * (`identityKey` in src/shared/project-identity.ts, of the facts src/main/memdir/project-identity.ts
 * reads from the repository's files without running git): the repository's smallest root commit
 * (`git-root:<id>`), else its first normalised remote (`git-remote:<url>`, a repository without
 * commits yet); or a name the user gives (`name:<name>`) for a project outside git. A path is
 * never an id: it is the one thing that differs between machines — so a remote that is a local
 * path (`file://…`) is not one either.
 */
import { identityKey } from '../../shared/project-identity.js';
import { readPathFacts } from '../memdir/index.js';

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
  if (trimmed === '' || trimmed.length > 200 || /[\p{Cc}\p{Cf}]/u.test(trimmed))
    throw new RangeError('A project name for personal sync is 1 to 200 printable characters.');
  return { id: `name:${trimmed}`, source: 'given', detail: `the name you gave: ${trimmed}` };
}

/** The default IdentifySync: the project identity key of the repository at `root` (see the file comment). */
export const identifyByRepository: IdentifySync = async (root) => {
  if (!root) return null;
  const read = await readPathFacts(root).catch(() => null);
  if (!read?.facts) return null;
  const id = identityKey(read.facts);
  if (!id || id.startsWith('git-remote:file://')) return null;
  return {
    id,
    source: 'repository',
    detail: id.startsWith('git-root:') ? `root commit ${id.slice('git-root:'.length, 'git-root:'.length + 12)}` : `remote ${id.slice('git-remote:'.length)}`,
  };
};
