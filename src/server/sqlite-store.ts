/**
 * The embedded store: one SQLite file (better-sqlite3), the default for a team server on one
 * machine. WAL so readers never wait for the writer; `synchronous = FULL` because a client
 * that got 200 for a push trusts the server to keep it (a lost commit would later be pulled
 * over the client's file as "server wins"); writes in `BEGIN IMMEDIATE` transactions so two
 * processes on one file serialise instead of failing half-way.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  type CommitOutcome,
  type CommitRequest,
  type CommitResult,
  type Entry,
  PUSH_ID_RETENTION_MS,
  type PutOutcome,
  type StoredVersion,
  type PutRequest,
  type StoredToken,
  type TeamInfo,
  type TeamState,
  type TeamStore,
  type TokenInfo,
  type KeyRecordOutcome,
  type PersonalInfo,
  type ProjectOutcome,
  StoreError,
  personalProjectName,
  personalSpaceName,
  planCommit,
  planPut,
  teamFull,
} from './store.js';

/** Each step runs once, in order, recorded in memdir_schema; re-running is a no-op. */
const MIGRATIONS: string[] = [
  `CREATE TABLE memdir_teams (
     id INTEGER PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     epoch TEXT NOT NULL,
     version INTEGER NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL
   );
   CREATE TABLE memdir_tokens (
     id TEXT PRIMARY KEY,
     team_id INTEGER NOT NULL REFERENCES memdir_teams(id),
     member TEXT NOT NULL,
     hash TEXT NOT NULL,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE INDEX memdir_tokens_team ON memdir_tokens(team_id);
   CREATE TABLE memdir_entries (
     team_id INTEGER NOT NULL REFERENCES memdir_teams(id),
     key TEXT NOT NULL,
     key_fold TEXT NOT NULL,
     content TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     updated_at TEXT NOT NULL,
     updated_by TEXT NOT NULL,
     version INTEGER NOT NULL,
     PRIMARY KEY (team_id, key),
     UNIQUE (team_id, key_fold)
   );
   CREATE INDEX memdir_entries_version ON memdir_entries(team_id, version);`,
  // Protocol 2: the result of each push, by the id its client chose (issue 19, idempotent pushes).
  `CREATE TABLE memdir_pushes (
     team_id INTEGER NOT NULL REFERENCES memdir_teams(id),
     member TEXT NOT NULL,
     push_id TEXT NOT NULL,
     created_at TEXT NOT NULL,
     result TEXT NOT NULL,
     PRIMARY KEY (team_id, member, push_id)
   );
   CREATE INDEX memdir_pushes_age ON memdir_pushes(team_id, created_at);`,
  // Personal spaces (issue 18): a row per user (`~<user>`, kind personal, its key record) and a
  // row per project of it (`~<user>/<id>`, kind personal-project, owner_id → the user's row).
  `ALTER TABLE memdir_teams ADD COLUMN kind TEXT NOT NULL DEFAULT 'team';
   ALTER TABLE memdir_teams ADD COLUMN owner_id INTEGER REFERENCES memdir_teams(id);
   ALTER TABLE memdir_teams ADD COLUMN key_record TEXT;
   CREATE INDEX memdir_teams_owner ON memdir_teams(owner_id);`,
  // Tokens that expire (`issue-token --expires`); null: until revoked.
  `ALTER TABLE memdir_tokens ADD COLUMN expires_at TEXT;`,
];

interface TeamRow {
  id: number;
  name: string;
  epoch: string;
  version: number;
  created_at: string;
}
interface TokenRow {
  id: string;
  team: string;
  member: string;
  hash: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  kind: string;
}
interface PersonalRow {
  name: string;
  created_at: string;
  key_set: number;
  projects: number;
  entries: number;
}

function personalInfo(row: PersonalRow): PersonalInfo {
  return { user: row.name.slice(1), createdAt: row.created_at, projects: row.projects, entries: row.entries, keySet: row.key_set === 1 };
}
interface EntryRow {
  key: string;
  content: string;
  sha256: string;
  updated_at: string;
  updated_by: string;
  version: number;
}

function tokenInfo(row: TokenRow): TokenInfo {
  return { id: row.id, team: row.team, member: row.member, createdAt: row.created_at, revokedAt: row.revoked_at, expiresAt: row.expires_at };
}

function stateOf(row: TeamRow): TeamState {
  return { name: row.name, version: row.version, epoch: row.epoch };
}

/** Open (creating if needed) and migrate a SQLite store at `file`. */
export function openSqliteStore(file: string, options: { create?: boolean } = {}): SqliteStore {
  const create = options.create ?? true;
  if (file !== ':memory:' && create) {
    // The file holds every team's memories and its tokens' hashes: folders it needs and the file
    // itself are the owner's alone. SQLite gives its -wal and -shm files the database's mode.
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_WRONLY, 0o600));
  }
  // Only the server (and tests) create a store; an admin command on a mistyped path must not.
  const db = new Database(file, { fileMustExist: !create });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Another process (a second server, the admin CLI) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteStore(db, file);
}

function migrate(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS memdir_schema (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const apply = db.transaction(() => {
    const row = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM memdir_schema').get() as { v: number };
    for (let v = row.v + 1; v <= MIGRATIONS.length; v++) {
      db.exec(MIGRATIONS[v - 1]!);
      db.prepare('INSERT INTO memdir_schema (version, applied_at) VALUES (?, ?)').run(v, new Date().toISOString());
    }
  });
  apply.immediate();
}

export class SqliteStore implements TeamStore {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  private readonly q;

  constructor(
    private readonly db: Database.Database,
    file: string,
  ) {
    this.location = file;
    this.q = {
      team: db.prepare<[string], TeamRow>('SELECT id, name, epoch, version, created_at FROM memdir_teams WHERE name = ?'),
      teamOnly: db.prepare<[string], TeamRow>("SELECT id, name, epoch, version, created_at FROM memdir_teams WHERE name = ? AND kind = 'team'"),
      teams: db.prepare<[], TeamRow & { entries: number }>(
        `SELECT t.id, t.name, t.epoch, t.version, t.created_at, (SELECT COUNT(*) FROM memdir_entries e WHERE e.team_id = t.id) AS entries
         FROM memdir_teams t WHERE t.kind = 'team' ORDER BY t.name`,
      ),
      insertPersonal: db.prepare("INSERT INTO memdir_teams (name, epoch, version, created_at, kind) VALUES (?, ?, 0, ?, 'personal')"),
      personal: db.prepare<[string], { id: number; key_record: string | null }>("SELECT id, key_record FROM memdir_teams WHERE name = ? AND kind = 'personal'"),
      personals: db.prepare<[], PersonalRow>(
        `SELECT p.name, p.created_at, p.key_record IS NOT NULL AS key_set,
           (SELECT COUNT(*) FROM memdir_teams c WHERE c.owner_id = p.id) AS projects,
           (SELECT COUNT(*) FROM memdir_entries e JOIN memdir_teams c ON c.id = e.team_id WHERE c.owner_id = p.id) AS entries
         FROM memdir_teams p WHERE p.kind = 'personal' ORDER BY p.name`,
      ),
      setKey: db.prepare('UPDATE memdir_teams SET key_record = ? WHERE id = ? AND key_record IS NULL'),
      projectCount: db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM memdir_teams WHERE owner_id = ?'),
      insertProject: db.prepare("INSERT INTO memdir_teams (name, epoch, version, created_at, kind, owner_id) VALUES (?, ?, 0, ?, 'personal-project', ?)"),
      countEntries: db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM memdir_entries WHERE team_id = ?'),
      size: db.prepare<[number], { n: number; bytes: number }>('SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes FROM memdir_entries WHERE team_id = ?'),
      insertTeam: db.prepare('INSERT INTO memdir_teams (name, epoch, version, created_at) VALUES (?, ?, 0, ?)'),
      insertToken: db.prepare('INSERT INTO memdir_tokens (id, team_id, member, hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)'),
      token: db.prepare<[string], TokenRow>(
        'SELECT k.id, t.name AS team, k.member, k.hash, k.created_at, k.revoked_at, k.expires_at, t.kind FROM memdir_tokens k JOIN memdir_teams t ON t.id = k.team_id WHERE k.id = ?',
      ),
      tokens: db.prepare<[], TokenRow>(
        'SELECT k.id, t.name AS team, k.member, k.hash, k.created_at, k.revoked_at, k.expires_at, t.kind FROM memdir_tokens k JOIN memdir_teams t ON t.id = k.team_id ORDER BY t.name, k.created_at, k.id',
      ),
      revoke: db.prepare('UPDATE memdir_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?'),
      entries: db.prepare<[number, number], EntryRow>(
        'SELECT key, content, sha256, updated_at, updated_by, version FROM memdir_entries WHERE team_id = ? AND version > ?',
      ),
      checksums: db.prepare<[number], { key: string; sha256: string }>('SELECT key, sha256 FROM memdir_entries WHERE team_id = ?'),
      byFold: db.prepare<[number, string], { key: string; sha256: string; bytes: number }>(
        'SELECT key, sha256, bytes FROM memdir_entries WHERE team_id = ? AND key_fold = ?',
      ),
      bump: db.prepare('UPDATE memdir_teams SET version = version + 1 WHERE id = ? AND version = ?'),
      versionByFold: db.prepare<[number, string], StoredVersion>(
        'SELECT key, sha256, bytes, updated_at AS updatedAt, updated_by AS updatedBy FROM memdir_entries WHERE team_id = ? AND key_fold = ?',
      ),
      push: db.prepare<[number, string, string], { result: string }>('SELECT result FROM memdir_pushes WHERE team_id = ? AND member = ? AND push_id = ?'),
      recordPush: db.prepare('INSERT INTO memdir_pushes (team_id, member, push_id, created_at, result) VALUES (?, ?, ?, ?, ?)'),
      // Past a week, and past the newest `maxPushIds` of the team (rowid breaks a tie in time by insertion).
      prunePushes: db.prepare('DELETE FROM memdir_pushes WHERE team_id = ? AND created_at < ?'),
      capPushes: db.prepare(
        'DELETE FROM memdir_pushes WHERE rowid IN (SELECT rowid FROM memdir_pushes WHERE team_id = ? ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)',
      ),
      upsert: db.prepare(
        `INSERT INTO memdir_entries (team_id, key, key_fold, content, sha256, bytes, updated_at, updated_by, version)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (team_id, key) DO UPDATE SET content = excluded.content, sha256 = excluded.sha256, bytes = excluded.bytes,
           updated_at = excluded.updated_at, updated_by = excluded.updated_by, version = excluded.version`,
      ),
    };
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async backupTo(file: string): Promise<void> {
    // Every page in one step, under one read transaction: a snapshot of the file and its WAL.
    // In small steps a write by another process (the server) between two would restart the copy.
    await this.db.backup(file, { progress: () => 0x7fffffff });
  }

  async createTeam(name: string, epoch: string, at: string): Promise<TeamInfo> {
    try {
      this.q.insertTeam.run(name, epoch, at);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new StoreError('exists', `The team "${name}" already exists.`);
      throw error;
    }
    return { name, version: 0, epoch, createdAt: at, entries: 0 };
  }

  async getTeam(name: string): Promise<TeamInfo | null> {
    const row = this.q.teamOnly.get(name);
    if (!row) return null;
    return { name: row.name, version: row.version, epoch: row.epoch, createdAt: row.created_at, entries: this.q.countEntries.get(row.id)!.n };
  }

  async listTeams(): Promise<TeamInfo[]> {
    return this.q.teams.all().map((r) => ({ name: r.name, version: r.version, epoch: r.epoch, createdAt: r.created_at, entries: r.entries }));
  }

  async createPersonal(user: string, epoch: string, at: string): Promise<PersonalInfo> {
    try {
      this.q.insertPersonal.run(personalSpaceName(user), epoch, at);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new StoreError('exists', `The personal space of "${user}" already exists.`);
      throw error;
    }
    return { user, createdAt: at, projects: 0, entries: 0, keySet: false };
  }

  async listPersonal(): Promise<PersonalInfo[]> {
    return this.q.personals.all().map(personalInfo);
  }

  async personalKey(user: string): Promise<string | null | undefined> {
    const row = this.q.personal.get(personalSpaceName(user));
    return row ? row.key_record : undefined;
  }

  async setPersonalKey(user: string, record: string): Promise<KeyRecordOutcome> {
    const run = this.db.transaction((): KeyRecordOutcome => {
      const row = this.q.personal.get(personalSpaceName(user));
      if (!row) return { ok: false, reason: 'no-space' };
      if (row.key_record === null) {
        this.q.setKey.run(record, row.id);
        return { ok: true, record, created: true };
      }
      return row.key_record === record ? { ok: true, record, created: false } : { ok: false, reason: 'mismatch', record: row.key_record };
    });
    return run.immediate();
  }

  async resetPersonal(user: string): Promise<boolean> {
    const run = this.db.transaction((): boolean => {
      const owner = this.q.personal.get(personalSpaceName(user));
      if (!owner) return false;
      const projects = 'SELECT id FROM memdir_teams WHERE owner_id = ?';
      this.db.prepare(`DELETE FROM memdir_entries WHERE team_id IN (${projects})`).run(owner.id);
      this.db.prepare(`DELETE FROM memdir_pushes WHERE team_id IN (${projects})`).run(owner.id);
      this.db.prepare('DELETE FROM memdir_teams WHERE owner_id = ?').run(owner.id);
      this.db.prepare('UPDATE memdir_teams SET key_record = NULL WHERE id = ?').run(owner.id);
      return true;
    });
    return run.immediate();
  }

  async openPersonalProject(user: string, project: string, epoch: string, at: string, maxProjects: number): Promise<ProjectOutcome> {
    const name = personalProjectName(user, project);
    // The common case (the project exists) reads only: no write transaction on every pull.
    if (this.q.team.get(name)) return { ok: true, space: name };
    const run = this.db.transaction((): ProjectOutcome => {
      const owner = this.q.personal.get(personalSpaceName(user));
      if (!owner) return { ok: false, reason: 'no-space' };
      if (this.q.team.get(name)) return { ok: true, space: name };
      if (this.q.projectCount.get(owner.id)!.n >= maxProjects) return { ok: false, reason: 'full', limit: maxProjects };
      this.q.insertProject.run(name, epoch, at, owner.id);
      return { ok: true, space: name };
    });
    return run.immediate();
  }

  async addToken(token: { id: string; team: string; member: string; hash: string; createdAt: string; expiresAt: string | null }): Promise<TokenInfo> {
    const team = this.q.team.get(token.team);
    if (!team) throw new StoreError('not-found', `There is no team "${token.team}".`);
    this.q.insertToken.run(token.id, team.id, token.member, token.hash, token.createdAt, token.expiresAt);
    return { id: token.id, team: token.team, member: token.member, createdAt: token.createdAt, revokedAt: null, expiresAt: token.expiresAt };
  }

  async findToken(id: string): Promise<StoredToken | null> {
    const row = this.q.token.get(id);
    return row ? { ...tokenInfo(row), hash: row.hash, scope: row.kind === 'personal' ? 'personal' : 'team' } : null;
  }

  async listTokens(team?: string): Promise<TokenInfo[]> {
    return this.q.tokens
      .all()
      .filter((r) => team === undefined || r.team === team)
      .map(tokenInfo);
  }

  async revokeToken(id: string, at: string): Promise<TokenInfo | null> {
    this.q.revoke.run(at, id);
    const row = this.q.token.get(id);
    return row ? tokenInfo(row) : null;
  }

  async teamState(team: string): Promise<TeamState | null> {
    const row = this.q.team.get(team);
    return row ? stateOf(row) : null;
  }

  async readEntries(team: string, since = -1): Promise<{ state: TeamState; entries: Entry[] } | null> {
    // One read transaction: in WAL mode it is one snapshot, so version and rows agree.
    return this.db.transaction(() => {
      const row = this.q.team.get(team);
      if (!row) return null;
      const entries = this.q.entries.all(row.id, since).map((e) => ({
        key: e.key,
        content: e.content,
        sha256: e.sha256,
        updatedAt: e.updated_at,
        updatedBy: e.updated_by,
        version: e.version,
      }));
      return { state: stateOf(row), entries };
    })();
  }

  async readChecksums(team: string): Promise<{ state: TeamState; checksums: [string, string][] } | null> {
    return this.db.transaction(() => {
      const row = this.q.team.get(team);
      if (!row) return null;
      return { state: stateOf(row), checksums: this.q.checksums.all(row.id).map((e) => [e.key, e.sha256] as [string, string]) };
    })();
  }

  async putEntries(team: string, request: PutRequest): Promise<PutOutcome> {
    const run = this.db.transaction((): PutOutcome => {
      const row = this.q.team.get(team);
      if (!row) return { ok: false, reason: 'no-team' };
      const state = stateOf(row);
      if (row.version !== request.baseVersion) return { ok: false, reason: 'stale', state };
      const plan = planPut(state, request.entries, (fold) => this.q.byFold.get(row.id, fold));
      if (!plan.ok) return plan;
      const { changed, unchanged } = plan;
      if (changed.length === 0) return { ok: true, state, changed: [], unchanged };
      if (plan.added > 0 || plan.growth > 0) {
        const full = teamFull(state, request, this.q.size.get(row.id)!, plan);
        if (full) return full;
      }
      // The same conditional update as the PostgreSQL store; under BEGIN IMMEDIATE it cannot
      // miss, but it keeps the two stores' contract identical.
      if (this.q.bump.run(row.id, request.baseVersion).changes !== 1) return { ok: false, reason: 'stale', state };
      const version = request.baseVersion + 1;
      for (const e of changed) this.q.upsert.run(row.id, e.key, e.fold, e.content, e.sha256, e.bytes, request.at, request.member, version);
      return { ok: true, state: { ...state, version }, changed: changed.map((e) => e.key), unchanged };
    });
    return run.immediate();
  }

  async commitEntries(team: string, request: CommitRequest): Promise<CommitOutcome> {
    const run = this.db.transaction((): CommitOutcome => {
      const row = this.q.team.get(team);
      if (!row) return { ok: false, reason: 'no-team' };
      const seen = this.q.push.get(row.id, request.member, request.pushId);
      if (seen) return { ok: true, result: JSON.parse(seen.result) as CommitResult, replayed: true };
      const state = stateOf(row);
      const plan = planCommit(state, request.entries, (fold) => this.q.versionByFold.get(row.id, fold));
      if (!plan.ok) return plan;
      if (plan.added > 0 || plan.growth > 0) {
        const full = teamFull(state, request, this.q.size.get(row.id)!, plan);
        if (full) return full;
      }
      let version = row.version;
      if (plan.changed.length > 0) {
        this.q.bump.run(row.id, row.version);
        version = row.version + 1;
        for (const e of plan.changed) this.q.upsert.run(row.id, e.key, e.fold, e.content, e.sha256, e.bytes, request.at, request.member, version);
      }
      const result: CommitResult = {
        pushId: request.pushId,
        epoch: row.epoch,
        version,
        previousVersion: row.version,
        committed: plan.changed.map((e) => e.key),
        unchanged: plan.unchanged,
        conflicts: plan.conflicts,
      };
      this.q.recordPush.run(row.id, request.member, request.pushId, request.at, JSON.stringify(result));
      this.q.prunePushes.run(row.id, new Date(Date.parse(request.at) - PUSH_ID_RETENTION_MS).toISOString());
      this.q.capPushes.run(row.id, request.maxPushIds);
      return { ok: true, result, replayed: false };
    });
    return run.immediate();
  }
}
