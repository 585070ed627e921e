/**
 * Where the sync server keeps teams, personal spaces, tokens and entries (R-TEAM, R-SYNC; issue
 * 18 for personal spaces, see `TokenScope`). A "team" below is any space with entries: a team,
 * or one project of a personal space — the same versions, ETags and commits serve both. Two implementations
 * behind this one interface: SQLite (embedded default, one machine) and PostgreSQL (several
 * stateless servers behind a load balancer). Both advance a team's version with a conditional
 * update inside the transaction that writes the entries, so two writers based on the same
 * version never both succeed: the second gets `stale` and the client re-bases (HTTP 412).
 *
 * Every method is async so both back-ends fit; inputs are already validated by the caller
 * (keys by `sanitizePathKey`, content by the HTTP layer), the store only keeps them.
 */
import { MemdirError } from '../shared/errors.js';

/** A team as the admin sees it. */
export interface TeamInfo {
  name: string;
  /** Advanced by one on every write that changed something; 0 for a new team. */
  version: number;
  /** Random, fixed at creation: part of the ETag, so a re-created team never matches old ETags. */
  epoch: string;
  createdAt: string;
  entries: number;
}

/** The part of a team a conditional request is judged against. */
export interface TeamState {
  name: string;
  version: number;
  epoch: string;
}

/** A member's token without its secret (the secret is never stored, only its hash). */
export interface TokenInfo {
  id: string;
  team: string;
  member: string;
  createdAt: string;
  revokedAt: string | null;
  /** When the token stops working (`issue-token --expires`), or null: it works until revoked. */
  expiresAt: string | null;
}

/** What authentication needs: the stored hash to compare against, and what the token may reach. */
export interface StoredToken extends TokenInfo {
  hash: string;
  /** `team`: the team named by `team`; `personal`: the projects of the personal space `team` (`~<user>`). */
  scope: TokenScope;
}

/**
 * Personal spaces (issue 18, item 5): a user's own memory, synced between their machines and
 * end-to-end encrypted by the client. A personal space is a row beside the teams, named
 * `~<user>` (a name no team can have: `~` is outside the team-name alphabet), with the user's
 * tokens bound to it; each of its projects is a space of its own, `~<user>/<project id>`, with
 * the same entries, versions, ETags and per-key commits as a team. The server never sees a
 * project's identity, a memory's name or its content: the client sends HMACs and ciphertext.
 */
export type TokenScope = 'team' | 'personal';

/** The row name of a user's personal space. */
export function personalSpaceName(user: string): string {
  return `~${user}`;
}

/** The row name of one project in a personal space. */
export function personalProjectName(user: string, project: string): string {
  return `~${user}/${project}`;
}

/** A personal space as the admin sees it: counts only (names and contents are ciphertext). */
export interface PersonalInfo {
  /** The user name (without `~`). */
  user: string;
  createdAt: string;
  projects: number;
  entries: number;
  /** Whether a client has set the space's key record (its first machine connected). */
  keySet: boolean;
}

/** Setting a personal space's key record: kept once; another record is refused with the stored one. */
export type KeyRecordOutcome =
  | { ok: true; record: string; created: boolean }
  | { ok: false; reason: 'mismatch'; record: string }
  | { ok: false; reason: 'no-space' };

/** Opening a project of a personal space (created on first use, up to a limit). */
export type ProjectOutcome = { ok: true; space: string } | { ok: false; reason: 'no-space' } | { ok: false; reason: 'full'; limit: number };

/** One team memory file on the server. */
export interface Entry {
  key: string;
  content: string;
  /** Hex sha256 of the UTF-8 bytes of `content`. */
  sha256: string;
  updatedAt: string;
  /** The member name of the token that wrote it. */
  updatedBy: string;
  /** The team version this entry was last written at (for `?since=` pulls). */
  version: number;
}

/** An entry to upsert: key already sanitised, sha256 already computed. */
export interface EntryWrite {
  key: string;
  /** `foldPathKey(key)`: two keys with one fold would be one file on macOS/Windows. */
  fold: string;
  content: string;
  sha256: string;
  bytes: number;
}

export interface PutRequest {
  /** The version the client based its change on (from its If-Match). */
  baseVersion: number;
  entries: EntryWrite[];
  member: string;
  at: string;
  /** Refuse a write that would leave the team with more entries than this… */
  maxEntriesPerTeam: number;
  /** …or more content bytes than this (a full pull is built in memory). */
  maxTeamBytes: number;
}

export type PutOutcome =
  | { ok: true; state: TeamState; changed: string[]; unchanged: string[] }
  | { ok: false; reason: 'stale'; state: TeamState }
  | { ok: false; reason: 'team-full'; state: TeamState; limit: number; unit: 'entries' | 'bytes' }
  /** A key differs only in case from a stored key (`existing`) or another key in the request. */
  | { ok: false; reason: 'case-conflict'; state: TeamState; key: string; existing: string }
  | { ok: false; reason: 'no-team' };

/** What a push would change, judged against what is stored (the same rule in every store). */
export type PutPlan =
  | { ok: true; changed: EntryWrite[]; unchanged: string[]; added: number; growth: number }
  | Extract<PutOutcome, { reason: 'case-conflict' }>;

/**
 * Sort a push's entries into changed and unchanged, with how many keys it adds and how many
 * bytes it grows the team by; refuse two keys that differ only in letter case, within the push
 * or against a stored key. `stored(fold)` is what the store holds under that folded key.
 */
export function planPut(
  state: TeamState,
  entries: readonly EntryWrite[],
  stored: (fold: string) => { key: string; sha256: string; bytes: number } | undefined,
): PutPlan {
  const folds = new Map<string, string>();
  for (const entry of entries) {
    const twin = folds.get(entry.fold);
    if (twin !== undefined && twin !== entry.key) return { ok: false, reason: 'case-conflict', state, key: entry.key, existing: twin };
    folds.set(entry.fold, entry.key);
  }
  const changed: EntryWrite[] = [];
  const unchanged: string[] = [];
  let added = 0;
  let growth = 0;
  for (const entry of entries) {
    const current = stored(entry.fold);
    if (current && current.key !== entry.key) return { ok: false, reason: 'case-conflict', state, key: entry.key, existing: current.key };
    if (!current) added++;
    if (current?.sha256 === entry.sha256) unchanged.push(entry.key);
    else {
      changed.push(entry);
      growth += entry.bytes - (current?.bytes ?? 0);
    }
  }
  return { ok: true, changed, unchanged, added, growth };
}

/** The refusal when a push would take the team past its limits (`size`: what it holds now), else null. */
export function teamFull(
  state: TeamState,
  request: Pick<PutRequest, 'maxEntriesPerTeam' | 'maxTeamBytes'>,
  size: { n: number; bytes: number },
  plan: { added: number; growth: number },
): Extract<PutOutcome, { reason: 'team-full' }> | null {
  if (size.n + plan.added > request.maxEntriesPerTeam) return { ok: false, reason: 'team-full', state, limit: request.maxEntriesPerTeam, unit: 'entries' };
  if (size.bytes + plan.growth > request.maxTeamBytes) return { ok: false, reason: 'team-full', state, limit: request.maxTeamBytes, unit: 'bytes' };
  return null;
}

/** An entry to commit (protocol 2): the hash of the server version it is based on (null: a new key). */
export interface CommitWrite extends EntryWrite {
  base: string | null;
}

export interface CommitRequest {
  /** Chosen by the client; a repeated one is answered with the original result. */
  pushId: string;
  entries: CommitWrite[];
  member: string;
  at: string;
  maxEntriesPerTeam: number;
  maxTeamBytes: number;
  /** Push ids the team keeps, the newest (see ServerLimits.maxPushIdsPerTeam); older ones are forgotten with this commit. */
  maxPushIds: number;
}

/** What a commit did, kept per push id (the epoch is the team's, for the ETag). */
export interface CommitResult {
  pushId: string;
  epoch: string;
  version: number;
  /** The team version just before this commit (equal to `version` when nothing changed). */
  previousVersion: number;
  committed: string[];
  unchanged: string[];
  /** Keys whose base no longer matched, with the server's version. */
  conflicts: Record<string, { sha256: string; updatedAt: string; updatedBy: string }>;
}

export type CommitOutcome = { ok: true; result: CommitResult; replayed: boolean } | Extract<PutOutcome, { reason: 'team-full' | 'case-conflict' | 'no-team' }>;

/** A stored entry as a commit needs it. */
export interface StoredVersion {
  key: string;
  sha256: string;
  bytes: number;
  updatedAt: string;
  updatedBy: string;
}

/** How long a push id is remembered (a client that lost an answer sends it again within minutes, at worst at its next start). */
export const PUSH_ID_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * Protocol 2's rule, the same in every store: a key commits when the server still holds the
 * version it was based on (or holds nothing); it is unchanged when the server already holds
 * exactly this content; otherwise it is a conflict answered with the server's version.
 * Case conflicts (two keys one file on macOS/Windows) refuse the whole push, as in protocol 1.
 */
export function planCommit(
  state: TeamState,
  entries: readonly CommitWrite[],
  stored: (fold: string) => StoredVersion | undefined,
):
  | { ok: true; changed: CommitWrite[]; unchanged: string[]; conflicts: CommitResult['conflicts']; added: number; growth: number }
  | Extract<PutOutcome, { reason: 'case-conflict' }> {
  const sorted = planPut(state, entries, stored);
  if (!sorted.ok) return sorted;
  const changed: CommitWrite[] = [];
  const conflicts: CommitResult['conflicts'] = {};
  let added = 0;
  let growth = 0;
  for (const entry of sorted.changed as CommitWrite[]) {
    const current = stored(entry.fold);
    if (current && current.sha256 !== entry.base) {
      conflicts[entry.key] = { sha256: current.sha256, updatedAt: current.updatedAt, updatedBy: current.updatedBy };
      continue;
    }
    if (!current) added++;
    growth += entry.bytes - (current?.bytes ?? 0);
    changed.push(entry);
  }
  return { ok: true, changed, unchanged: sorted.unchanged, conflicts, added, growth };
}

/** A store refusal the admin can act on (duplicate team, unknown token…). */
export class StoreError extends MemdirError<'exists' | 'not-found' | 'invalid-input'> {
  override name = 'StoreError';
}

/**
 * The one refusal of an admin command (`create: false`) whose `--db` holds no Memdir store — a
 * missing SQLite file, an empty or foreign PostgreSQL database: a mistyped `--db` must never
 * become a new, empty store that the running server does not use.
 */
export function noStoreError(where: string, check: 'path' | 'URL'): StoreError {
  return new StoreError(
    'not-found',
    `There is no team store ${where}: check the ${check} (--db or $MEMDIR_SERVER_DB). \`memdir server\` creates one on its first start; admin commands never do.`,
  );
}

export interface TeamStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is, for messages, with any password removed. */
  readonly location: string;
  /** Cheap liveness check for /healthz; throws when the database is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Copy the whole store into the existing empty file `file` as one consistent snapshot, while
   * servers keep writing (SQLite's online backup; see backup.ts, the front door). A PostgreSQL
   * store refuses: pg_dump is its tool.
   */
  backupTo(file: string): Promise<void>;

  createTeam(name: string, epoch: string, at: string): Promise<TeamInfo>;
  /** A team by name (never a personal space or one of its projects). */
  getTeam(name: string): Promise<TeamInfo | null>;
  /** Teams only. */
  listTeams(): Promise<TeamInfo[]>;
  /** Create the personal space of `user` (row `~<user>`); `exists` when it is there. */
  createPersonal(user: string, epoch: string, at: string): Promise<PersonalInfo>;
  listPersonal(): Promise<PersonalInfo[]>;
  /** The key record a client set on the personal space of `user` (null: none yet; undefined: no such space). */
  personalKey(user: string): Promise<string | null | undefined>;
  /** Set the key record once: the first one is kept, a different one is refused with it (conditional update). */
  setPersonalKey(user: string, record: string): Promise<KeyRecordOutcome>;
  /**
   * Reset the personal space of `user` for a new passphrase: its key record and every project with
   * its entries are deleted (they cannot be read without the old passphrase); its tokens stay.
   * False when there is no such space.
   */
  resetPersonal(user: string): Promise<boolean>;
  /** The space of project `project` in the personal space of `user`, created with `epoch` on first use while the user has fewer than `maxProjects`. */
  openPersonalProject(user: string, project: string, epoch: string, at: string, maxProjects: number): Promise<ProjectOutcome>;
  addToken(token: { id: string; team: string; member: string; hash: string; createdAt: string; expiresAt: string | null }): Promise<TokenInfo>;
  findToken(id: string): Promise<StoredToken | null>;
  listTokens(team?: string): Promise<TokenInfo[]>;
  /** Marks a token revoked (idempotent: an already revoked token keeps its first date). */
  revokeToken(id: string, at: string): Promise<TokenInfo | null>;

  teamState(team: string): Promise<TeamState | null>;
  /**
   * All entries, or only those written after version `since` — read in one snapshot with the
   * version they belong to, so a response never pairs new content with an old ETag or back.
   */
  readEntries(team: string, since?: number): Promise<{ state: TeamState; entries: Entry[] } | null>;
  readChecksums(team: string): Promise<{ state: TeamState; checksums: [key: string, sha256: string][] } | null>;
  /** Upsert: keys not in the request are kept; unchanged content does not advance the version. */
  putEntries(team: string, request: PutRequest): Promise<PutOutcome>;
  /**
   * Protocol 2: commit every key whose base matches (`planCommit`) in one transaction that also
   * records the result under the push id; a push id already recorded for this member gets its
   * recorded result back (`replayed`) and changes nothing.
   */
  commitEntries(team: string, request: CommitRequest): Promise<CommitOutcome>;
}
