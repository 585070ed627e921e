/**
 * The PostgreSQL store, for teams that outgrow one machine: any number of stateless servers
 * share one database. Lost updates are impossible because a write advances the team version
 * with `UPDATE … SET version = version + 1 WHERE id = $1 AND version = $2` inside the same
 * transaction as its upserts, and does so first: the team row lock serialises writers of one
 * team (no deadlock between upserts of overlapping keys), and a writer that waited re-checks
 * the WHERE against the committed row (READ COMMITTED re-evaluation), finds the version moved,
 * updates nothing and rolls back — the client gets 412 and re-bases.
 * Reads use a REPEATABLE READ snapshot so the version and the rows in a response agree.
 */
import pg from 'pg';
import { POSTGRES_BACKUP_SENTENCE } from './backup.js';
import { redactConnectionString } from './db-url.js';
import {
  type CommitOutcome,
  type CommitRequest,
  type CommitResult,
  type Entry,
  PUSH_ID_RETENTION_MS,
  type PutOutcome,
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
  noStoreError,
  personalProjectName,
  personalSpaceName,
  planCommit,
  planPut,
  teamFull,
} from './store.js';

/** Each step runs once, in order, recorded in memdir_schema; re-running is a no-op. */
const MIGRATIONS: string[] = [
  `CREATE TABLE memdir_teams (
     id BIGSERIAL PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     epoch TEXT NOT NULL,
     version BIGINT NOT NULL DEFAULT 0,
     created_at TIMESTAMPTZ NOT NULL
   );
   CREATE TABLE memdir_tokens (
     id TEXT PRIMARY KEY,
     team_id BIGINT NOT NULL REFERENCES memdir_teams(id),
     member TEXT NOT NULL,
     hash TEXT NOT NULL,
     created_at TIMESTAMPTZ NOT NULL,
     revoked_at TIMESTAMPTZ
   );
   CREATE INDEX memdir_tokens_team ON memdir_tokens(team_id);
   CREATE TABLE memdir_entries (
     team_id BIGINT NOT NULL REFERENCES memdir_teams(id),
     key TEXT NOT NULL,
     key_fold TEXT NOT NULL,
     content TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     updated_at TIMESTAMPTZ NOT NULL,
     updated_by TEXT NOT NULL,
     version BIGINT NOT NULL,
     PRIMARY KEY (team_id, key),
     UNIQUE (team_id, key_fold)
   );
   CREATE INDEX memdir_entries_version ON memdir_entries(team_id, version);`,
  // Protocol 2: the result of each push, by the id its client chose (issue 19, idempotent pushes).
  `CREATE TABLE memdir_pushes (
     team_id BIGINT NOT NULL REFERENCES memdir_teams(id),
     member TEXT NOT NULL,
     push_id TEXT NOT NULL,
     created_at TIMESTAMPTZ NOT NULL,
     result TEXT NOT NULL,
     PRIMARY KEY (team_id, member, push_id)
   );
   CREATE INDEX memdir_pushes_age ON memdir_pushes(team_id, created_at);`,
  // Personal spaces (issue 18): a row per user (`~<user>`, kind personal, its key record) and a
  // row per project of it (`~<user>/<id>`, kind personal-project, owner_id → the user's row).
  `ALTER TABLE memdir_teams ADD COLUMN kind TEXT NOT NULL DEFAULT 'team';
   ALTER TABLE memdir_teams ADD COLUMN owner_id BIGINT REFERENCES memdir_teams(id);
   ALTER TABLE memdir_teams ADD COLUMN key_record TEXT;
   CREATE INDEX memdir_teams_owner ON memdir_teams(owner_id);`,
  // Tokens that expire (`issue-token --expires`); null: until revoked.
  `ALTER TABLE memdir_tokens ADD COLUMN expires_at TIMESTAMPTZ;`,
];

// Any constant shared by every Memdir server: serialises concurrent migrations at start-up.
const MIGRATION_LOCK = 0x6d656d64;

interface TeamRow {
  id: string;
  name: string;
  epoch: string;
  version: string;
  created_at: Date;
}
interface TokenRow {
  id: string;
  team: string;
  member: string;
  hash: string;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  kind: string;
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

function stateOf(row: TeamRow): TeamState {
  return { name: row.name, version: Number(row.version), epoch: row.epoch };
}

function tokenInfo(row: TokenRow): TokenInfo {
  return { id: row.id, team: row.team, member: row.member, createdAt: iso(row.created_at)!, revokedAt: iso(row.revoked_at), expiresAt: iso(row.expires_at) };
}

/**
 * Connect, migrate (idempotent, safe when several servers start at once) and return a store.
 * With `create: false` (admin commands) a database without Memdir's tables — empty, or another
 * application's — is refused before anything is created in it.
 */
export async function openPostgresStore(connectionString: string, options: { poolSize?: number; create?: boolean } = {}): Promise<PostgresStore> {
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, statement_timeout: 15_000, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection emits on the pool; unhandled, that would kill the server.
  pool.on('error', () => undefined);
  try {
    if (options.create === false) {
      const { rows } = await pool.query<{ present: boolean }>("SELECT to_regclass('memdir_schema') IS NOT NULL AS present");
      if (!rows[0]?.present) throw noStoreError(`in ${redactConnectionString(connectionString)}`, 'URL');
    }
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresStore(pool, redactConnectionString(connectionString));
}

/** Thrown inside a transaction to roll it back and still answer with `value`. */
class Rollback<T> {
  constructor(readonly value: T) {}
}

async function inTransaction<T>(pool: pg.Pool, begin: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (error instanceof Rollback) return error.value as T;
    throw error;
  } finally {
    client.release();
  }
}

async function migrate(pool: pg.Pool): Promise<void> {
  await inTransaction(pool, 'BEGIN', async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS memdir_schema (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ v: number }>('SELECT COALESCE(MAX(version), 0)::int AS v FROM memdir_schema');
    for (let v = rows[0]!.v + 1; v <= MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v - 1]!);
      await client.query('INSERT INTO memdir_schema (version) VALUES ($1)', [v]);
    }
  });
}

const TEAM_COLUMNS = 'id, name, epoch, version, created_at';
const TOKEN_SELECT =
  'SELECT k.id, t.name AS team, k.member, k.hash, k.created_at, k.revoked_at, k.expires_at, t.kind FROM memdir_tokens k JOIN memdir_teams t ON t.id = k.team_id';

export class PostgresStore implements TeamStore {
  readonly kind = 'postgres' as const;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
  ) {}

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async backupTo(): Promise<void> {
    throw new StoreError('invalid-input', POSTGRES_BACKUP_SENTENCE);
  }

  async createTeam(name: string, epoch: string, at: string): Promise<TeamInfo> {
    try {
      await this.pool.query('INSERT INTO memdir_teams (name, epoch, version, created_at) VALUES ($1, $2, 0, $3)', [name, epoch, at]);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new StoreError('exists', `The team "${name}" already exists.`);
      throw error;
    }
    return { name, version: 0, epoch, createdAt: at, entries: 0 };
  }

  async getTeam(name: string): Promise<TeamInfo | null> {
    return (await this.listTeams(name))[0] ?? null;
  }

  async listTeams(name?: string): Promise<TeamInfo[]> {
    const { rows } = await this.pool.query<TeamRow & { entries: number }>(
      `SELECT t.id, t.name, t.epoch, t.version, t.created_at, (SELECT COUNT(*)::int FROM memdir_entries e WHERE e.team_id = t.id) AS entries
       FROM memdir_teams t WHERE t.kind = 'team' AND ($1::text IS NULL OR t.name = $1) ORDER BY t.name COLLATE "C"`,
      [name ?? null],
    );
    return rows.map((r) => ({ name: r.name, version: Number(r.version), epoch: r.epoch, createdAt: iso(r.created_at)!, entries: r.entries }));
  }

  async createPersonal(user: string, epoch: string, at: string): Promise<PersonalInfo> {
    try {
      await this.pool.query("INSERT INTO memdir_teams (name, epoch, version, created_at, kind) VALUES ($1, $2, 0, $3, 'personal')", [
        personalSpaceName(user),
        epoch,
        at,
      ]);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new StoreError('exists', `The personal space of "${user}" already exists.`);
      throw error;
    }
    return { user, createdAt: at, projects: 0, entries: 0, keySet: false };
  }

  async listPersonal(): Promise<PersonalInfo[]> {
    const { rows } = await this.pool.query<{ name: string; created_at: Date; key_set: boolean; projects: number; entries: number }>(
      `SELECT p.name, p.created_at, p.key_record IS NOT NULL AS key_set,
         (SELECT COUNT(*)::int FROM memdir_teams c WHERE c.owner_id = p.id) AS projects,
         (SELECT COUNT(*)::int FROM memdir_entries e JOIN memdir_teams c ON c.id = e.team_id WHERE c.owner_id = p.id) AS entries
       FROM memdir_teams p WHERE p.kind = 'personal' ORDER BY p.name COLLATE "C"`,
    );
    return rows.map((r) => ({ user: r.name.slice(1), createdAt: iso(r.created_at)!, projects: r.projects, entries: r.entries, keySet: r.key_set }));
  }

  async personalKey(user: string): Promise<string | null | undefined> {
    const { rows } = await this.pool.query<{ key_record: string | null }>("SELECT key_record FROM memdir_teams WHERE name = $1 AND kind = 'personal'", [
      personalSpaceName(user),
    ]);
    return rows[0] ? rows[0].key_record : undefined;
  }

  async setPersonalKey(user: string, record: string): Promise<KeyRecordOutcome> {
    // One statement sets it only where none is set; a concurrent first machine loses here and reads the winner's.
    const set = await this.pool.query("UPDATE memdir_teams SET key_record = $2 WHERE name = $1 AND kind = 'personal' AND key_record IS NULL", [
      personalSpaceName(user),
      record,
    ]);
    const stored = await this.personalKey(user);
    if (stored === undefined || stored === null) return { ok: false, reason: 'no-space' };
    return stored === record ? { ok: true, record, created: set.rowCount === 1 } : { ok: false, reason: 'mismatch', record: stored };
  }

  async resetPersonal(user: string): Promise<boolean> {
    return inTransaction(this.pool, 'BEGIN', async (client) => {
      const owner = await client.query<{ id: string }>("SELECT id FROM memdir_teams WHERE name = $1 AND kind = 'personal' FOR UPDATE", [
        personalSpaceName(user),
      ]);
      const ownerId = owner.rows[0]?.id;
      if (ownerId === undefined) return false;
      const projects = 'SELECT id FROM memdir_teams WHERE owner_id = $1';
      await client.query(`DELETE FROM memdir_entries WHERE team_id IN (${projects})`, [ownerId]);
      await client.query(`DELETE FROM memdir_pushes WHERE team_id IN (${projects})`, [ownerId]);
      await client.query('DELETE FROM memdir_teams WHERE owner_id = $1', [ownerId]);
      await client.query('UPDATE memdir_teams SET key_record = NULL WHERE id = $1', [ownerId]);
      return true;
    });
  }

  async openPersonalProject(user: string, project: string, epoch: string, at: string, maxProjects: number): Promise<ProjectOutcome> {
    const name = personalProjectName(user, project);
    // The common case (the project exists) reads only.
    if ((await this.pool.query('SELECT 1 FROM memdir_teams WHERE name = $1', [name])).rowCount === 1) return { ok: true, space: name };
    return inTransaction(this.pool, 'BEGIN', async (client): Promise<ProjectOutcome> => {
      // The user's row lock serialises project creation: the limit holds across servers.
      const owner = await client.query<{ id: string }>("SELECT id FROM memdir_teams WHERE name = $1 AND kind = 'personal' FOR UPDATE", [
        personalSpaceName(user),
      ]);
      const ownerId = owner.rows[0]?.id;
      if (ownerId === undefined) return { ok: false, reason: 'no-space' };
      if ((await client.query('SELECT 1 FROM memdir_teams WHERE name = $1', [name])).rowCount === 1) return { ok: true, space: name };
      const count = await client.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM memdir_teams WHERE owner_id = $1', [ownerId]);
      if (count.rows[0]!.n >= maxProjects) return { ok: false, reason: 'full', limit: maxProjects };
      await client.query("INSERT INTO memdir_teams (name, epoch, version, created_at, kind, owner_id) VALUES ($1, $2, 0, $3, 'personal-project', $4)", [
        name,
        epoch,
        at,
        ownerId,
      ]);
      return { ok: true, space: name };
    });
  }

  async addToken(token: { id: string; team: string; member: string; hash: string; createdAt: string; expiresAt: string | null }): Promise<TokenInfo> {
    const { rowCount } = await this.pool.query(
      'INSERT INTO memdir_tokens (id, team_id, member, hash, created_at, expires_at) SELECT $1, id, $3, $4, $5, $6 FROM memdir_teams WHERE name = $2',
      [token.id, token.team, token.member, token.hash, token.createdAt, token.expiresAt],
    );
    if (rowCount !== 1) throw new StoreError('not-found', `There is no team "${token.team}".`);
    return { id: token.id, team: token.team, member: token.member, createdAt: token.createdAt, revokedAt: null, expiresAt: token.expiresAt };
  }

  async findToken(id: string): Promise<StoredToken | null> {
    const { rows } = await this.pool.query<TokenRow>(`${TOKEN_SELECT} WHERE k.id = $1`, [id]);
    const row = rows[0];
    return row ? { ...tokenInfo(row), hash: row.hash, scope: row.kind === 'personal' ? 'personal' : 'team' } : null;
  }

  async listTokens(team?: string): Promise<TokenInfo[]> {
    const { rows } = await this.pool.query<TokenRow>(`${TOKEN_SELECT} WHERE $1::text IS NULL OR t.name = $1 ORDER BY t.name COLLATE "C", k.created_at, k.id`, [
      team ?? null,
    ]);
    return rows.map(tokenInfo);
  }

  async revokeToken(id: string, at: string): Promise<TokenInfo | null> {
    await this.pool.query('UPDATE memdir_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [id, at]);
    const row = await this.findToken(id);
    if (!row) return null;
    const { hash: _hash, scope: _scope, ...info } = row;
    return info;
  }

  async teamState(team: string): Promise<TeamState | null> {
    const { rows } = await this.pool.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM memdir_teams WHERE name = $1`, [team]);
    return rows[0] ? stateOf(rows[0]) : null;
  }

  async readEntries(team: string, since = -1): Promise<{ state: TeamState; entries: Entry[] } | null> {
    return inTransaction(this.pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
      const { rows } = await client.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM memdir_teams WHERE name = $1`, [team]);
      const row = rows[0];
      if (!row) return null;
      const result = await client.query<{ key: string; content: string; sha256: string; updated_at: Date; updated_by: string; version: string }>(
        'SELECT key, content, sha256, updated_at, updated_by, version FROM memdir_entries WHERE team_id = $1 AND version > $2',
        [row.id, since],
      );
      const entries = result.rows.map((e) => ({
        key: e.key,
        content: e.content,
        sha256: e.sha256,
        updatedAt: iso(e.updated_at)!,
        updatedBy: e.updated_by,
        version: Number(e.version),
      }));
      return { state: stateOf(row), entries };
    });
  }

  async readChecksums(team: string): Promise<{ state: TeamState; checksums: [string, string][] } | null> {
    return inTransaction(this.pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
      const { rows } = await client.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM memdir_teams WHERE name = $1`, [team]);
      const row = rows[0];
      if (!row) return null;
      const result = await client.query<{ key: string; sha256: string }>('SELECT key, sha256 FROM memdir_entries WHERE team_id = $1', [row.id]);
      return { state: stateOf(row), checksums: result.rows.map((e) => [e.key, e.sha256] as [string, string]) };
    });
  }

  async putEntries(team: string, request: PutRequest): Promise<PutOutcome> {
    return inTransaction(this.pool, 'BEGIN', async (client): Promise<PutOutcome> => {
      const { rows } = await client.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM memdir_teams WHERE name = $1`, [team]);
      const row = rows[0];
      if (!row) return { ok: false, reason: 'no-team' };
      const state = stateOf(row);
      if (state.version !== request.baseVersion) return { ok: false, reason: 'stale', state };
      // What is stored under these keys now; read before the lock, which is fine: if anything
      // changed since, the version moved too and the conditional update below refuses.
      const stored = await client.query<{ key: string; key_fold: string; sha256: string; bytes: number }>(
        'SELECT key, key_fold, sha256, bytes FROM memdir_entries WHERE team_id = $1 AND key_fold = ANY($2::text[])',
        [row.id, [...new Set(request.entries.map((e) => e.fold))]],
      );
      const byFold = new Map(stored.rows.map((r) => [r.key_fold, r]));
      const plan = planPut(state, request.entries, (fold) => byFold.get(fold));
      if (!plan.ok) return plan;
      const { changed, unchanged } = plan;
      if (changed.length === 0) return { ok: true, state, changed: [], unchanged };
      // R-SYNC: first writer wins. Takes the team row lock; a concurrent writer blocks here and
      // then sees the new version, so exactly one of two writers based on one version succeeds.
      const bumped = await client.query('UPDATE memdir_teams SET version = version + 1 WHERE id = $1 AND version = $2', [row.id, request.baseVersion]);
      if (bumped.rowCount !== 1) {
        // A new statement sees the winner's commit: answer with the version to re-base on.
        const now = await client.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM memdir_teams WHERE id = $1`, [row.id]);
        throw new Rollback<PutOutcome>({ ok: false, reason: 'stale', state: now.rows[0] ? stateOf(now.rows[0]) : state });
      }
      if (plan.added > 0 || plan.growth > 0) {
        // Counted under the team row lock, so concurrent writers cannot both squeeze in.
        const size = await client.query<{ n: number; bytes: string }>(
          'SELECT COUNT(*)::int AS n, COALESCE(SUM(bytes), 0) AS bytes FROM memdir_entries WHERE team_id = $1',
          [row.id],
        );
        const full = teamFull(state, request, { n: size.rows[0]!.n, bytes: Number(size.rows[0]!.bytes) }, plan);
        if (full) throw new Rollback<PutOutcome>(full);
      }
      const version = request.baseVersion + 1;
      await client.query(
        `INSERT INTO memdir_entries (team_id, key, key_fold, content, sha256, bytes, updated_at, updated_by, version)
         SELECT $1, k, f, c, s, b, $7, $8, $9 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[]) AS t(k, f, c, s, b)
         ON CONFLICT (team_id, key) DO UPDATE SET content = EXCLUDED.content, sha256 = EXCLUDED.sha256, bytes = EXCLUDED.bytes,
           updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by, version = EXCLUDED.version`,
        [
          row.id,
          changed.map((e) => e.key),
          changed.map((e) => e.fold),
          changed.map((e) => e.content),
          changed.map((e) => e.sha256),
          changed.map((e) => e.bytes),
          request.at,
          request.member,
          version,
        ],
      );
      return { ok: true, state: { ...state, version }, changed: changed.map((e) => e.key), unchanged };
    });
  }

  async commitEntries(team: string, request: CommitRequest): Promise<CommitOutcome> {
    return inTransaction(this.pool, 'BEGIN', async (client): Promise<CommitOutcome> => {
      // The team row lock serialises the commits of one team (across every server on this
      // database); reads after it see every commit before it (READ COMMITTED, new statements).
      const { rows } = await client.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM memdir_teams WHERE name = $1 FOR UPDATE`, [team]);
      const row = rows[0];
      if (!row) return { ok: false, reason: 'no-team' };
      const seen = await client.query<{ result: string }>('SELECT result FROM memdir_pushes WHERE team_id = $1 AND member = $2 AND push_id = $3', [
        row.id,
        request.member,
        request.pushId,
      ]);
      if (seen.rows[0]) return { ok: true, result: JSON.parse(seen.rows[0].result) as CommitResult, replayed: true };
      const state = stateOf(row);
      const stored = await client.query<{ key: string; key_fold: string; sha256: string; bytes: number; updated_at: Date; updated_by: string }>(
        'SELECT key, key_fold, sha256, bytes, updated_at, updated_by FROM memdir_entries WHERE team_id = $1 AND key_fold = ANY($2::text[])',
        [row.id, [...new Set(request.entries.map((e) => e.fold))]],
      );
      const byFold = new Map(
        stored.rows.map((r) => [r.key_fold, { key: r.key, sha256: r.sha256, bytes: r.bytes, updatedAt: iso(r.updated_at)!, updatedBy: r.updated_by }]),
      );
      const plan = planCommit(state, request.entries, (fold) => byFold.get(fold));
      if (!plan.ok) return plan;
      if (plan.added > 0 || plan.growth > 0) {
        const size = await client.query<{ n: number; bytes: string }>(
          'SELECT COUNT(*)::int AS n, COALESCE(SUM(bytes), 0) AS bytes FROM memdir_entries WHERE team_id = $1',
          [row.id],
        );
        const full = teamFull(state, request, { n: size.rows[0]!.n, bytes: Number(size.rows[0]!.bytes) }, plan);
        if (full) return full;
      }
      let version = state.version;
      if (plan.changed.length > 0) {
        version = state.version + 1;
        await client.query('UPDATE memdir_teams SET version = $2 WHERE id = $1', [row.id, version]);
        const changed = plan.changed;
        await client.query(
          `INSERT INTO memdir_entries (team_id, key, key_fold, content, sha256, bytes, updated_at, updated_by, version)
           SELECT $1, k, f, c, s, b, $7, $8, $9 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[]) AS t(k, f, c, s, b)
           ON CONFLICT (team_id, key) DO UPDATE SET content = EXCLUDED.content, sha256 = EXCLUDED.sha256, bytes = EXCLUDED.bytes,
             updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by, version = EXCLUDED.version`,
          [
            row.id,
            changed.map((e) => e.key),
            changed.map((e) => e.fold),
            changed.map((e) => e.content),
            changed.map((e) => e.sha256),
            changed.map((e) => e.bytes),
            request.at,
            request.member,
            version,
          ],
        );
      }
      const result: CommitResult = {
        pushId: request.pushId,
        epoch: row.epoch,
        version,
        previousVersion: state.version,
        committed: plan.changed.map((e) => e.key),
        unchanged: plan.unchanged,
        conflicts: plan.conflicts,
      };
      await client.query('INSERT INTO memdir_pushes (team_id, member, push_id, created_at, result) VALUES ($1, $2, $3, $4, $5)', [
        row.id,
        request.member,
        request.pushId,
        request.at,
        JSON.stringify(result),
      ]);
      await client.query('DELETE FROM memdir_pushes WHERE team_id = $1 AND created_at < $2', [
        row.id,
        new Date(Date.parse(request.at) - PUSH_ID_RETENTION_MS).toISOString(),
      ]);
      // …and past the newest `maxPushIds` of the team (this one, just recorded, always kept).
      await client.query(
        `DELETE FROM memdir_pushes WHERE team_id = $1 AND (member, push_id) IN (
           SELECT member, push_id FROM memdir_pushes WHERE team_id = $1
           ORDER BY (member = $2 AND push_id = $3) DESC, created_at DESC, member, push_id OFFSET $4)`,
        [row.id, request.member, request.pushId, request.maxPushIds],
      );
      return { ok: true, result, replayed: false };
    });
  }
}
