import fs from 'node:fs';
import path from 'node:path';
import { type CliIo, type CommandSpec, type OptionSpec, CliFailure, UsageError, jsonOption, printJson, wholeNumberOption } from '../command.js';
import { table } from '../format.js';
import { MemdirError } from '../../shared/errors.js';
import { failureWords } from '../../shared/failure-words.js';
import { resolveDataDir } from '../../main/core/index.js';
import { isLoopbackHost } from '../../main/team/index.js';
import { createPersonal, createTeam, issuePersonalToken, issueToken, listMembers, listPersonalSpaces, resetPersonal, revokeToken } from '../../server/admin.js';
import { DEFAULT_LIMITS, type ServerLimits } from '../../server/limits.js';
import { jsonLog } from '../../server/log.js';
import { isPostgresUrl, redactConnectionString } from '../../server/db-url.js';
import { openStore } from '../../server/open-store.js';
import { parseToken } from '../../server/tokens.js';
import type { TeamStore } from '../../server/store.js';

/**
 * What a server command says where the server's own packages (SQLite, PostgreSQL, Hono) are not
 * installed: the desktop app ships without them (see electron-builder.config.ts).
 */
export const SERVER_NOT_INSTALLED = 'the team sync server is not part of the desktop app: run it from a Memdir checkout (npm install, then npm run server)';

function isMissingPackage(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_MODULE_NOT_FOUND';
}

const dbOption: OptionSpec = {
  type: 'string',
  valueName: 'DB',
  description: "SQLite file or postgres://… URL (default: $MEMDIR_SERVER_DB, else team-sync.sqlite in Memdir's data dir)",
};

/** The store `--db` names: flag, then $MEMDIR_SERVER_DB (keeps a password out of `ps`), then the default file. */
export function resolveServerDb(values: Record<string, unknown>, io: Pick<CliIo, 'env' | 'cwd'>): string {
  if (typeof values.db === 'string' && values.db !== '') return isPostgresUrl(values.db) ? values.db : path.resolve(io.cwd, values.db);
  if (io.env.MEMDIR_SERVER_DB) return isPostgresUrl(io.env.MEMDIR_SERVER_DB) ? io.env.MEMDIR_SERVER_DB : path.resolve(io.cwd, io.env.MEMDIR_SERVER_DB);
  return path.join(resolveDataDir(io.env), 'server', 'team-sync.sqlite');
}

/** Why the store `db` names could not be opened, in words (the one sentence for the server and every admin command). */
function storeOpenFailure(db: string, error: unknown): Error {
  if (isMissingPackage(error)) return new CliFailure(SERVER_NOT_INSTALLED);
  if (error instanceof MemdirError) return error;
  return new CliFailure(`cannot open the team store ${redactConnectionString(db)}: ${failureWords(error)}`);
}

async function withStore<T>(values: Record<string, unknown>, io: CliIo, fn: (store: TeamStore) => Promise<T>): Promise<T> {
  const db = resolveServerDb(values, io);
  let store: TeamStore;
  try {
    store = await openStore(db, io.cwd, { create: false });
  } catch (error) {
    throw storeOpenFailure(db, error);
  }
  // A StoreError (a duplicate team, an unknown token) is a sentence for the admin: main.ts prints it.
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * Why the server must not listen on `host`, or null. The server speaks plain http: off this
 * machine, tokens and memories would cross the network readable, so that takes `--allow-http`
 * (a TLS proxy on another machine in front of it, or a network the operator trusts).
 */
export function serverHostRefusal(host: string, allowHttp: boolean): string | null {
  if (allowHttp || isLoopbackHost(host)) return null;
  return (
    `--host ${host} would serve the team's memories and tokens unencrypted (plain http) to the network. ` +
    'Keep the default --host 127.0.0.1 and put a TLS proxy on this machine in front of it (README: "Run it behind TLS"), ' +
    'or add --allow-http if a TLS proxy on another machine connects to it or you trust every machine on this network'
  );
}

/** The octal mode of `file` when accounts other than its owner may read it, else null. */
function othersCanRead(file: string): string | null {
  const mode = fs.statSync(file, { throwIfNoEntry: false })?.mode;
  return mode !== undefined && (mode & 0o044) !== 0 ? (mode & 0o777).toString(8) : null;
}

export interface RunServerOptions {
  db: string;
  host: string;
  port: number;
  limits?: Partial<ServerLimits>;
  trustProxy?: boolean;
}

/**
 * Run the sync server until `signal` aborts, then shut down gracefully. Request logs go to
 * stdout as JSON lines; the human "listening on" line goes to stderr.
 */
export async function runServer(options: RunServerOptions, io: CliIo, signal: AbortSignal): Promise<number> {
  let store: TeamStore;
  try {
    store = await openStore(options.db);
  } catch (error) {
    throw storeOpenFailure(options.db, error);
  }
  let server;
  try {
    // Loaded here, not at the top: the HTTP framework is one of the server's own packages.
    const { startServer } = await import('../../server/server.js');
    server = await startServer({
      store,
      host: options.host,
      port: options.port,
      log: jsonLog((line) => io.out(line)),
      trustProxy: options.trustProxy ?? false,
      ...(options.limits ? { limits: options.limits } : {}),
    });
  } catch (error) {
    await store.close();
    if (isMissingPackage(error)) throw new CliFailure(SERVER_NOT_INSTALLED);
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliFailure(
      code === 'EADDRINUSE'
        ? `port ${options.port} on ${options.host} is already in use (try --port 0 for a free one)`
        : `cannot listen on ${options.host} port ${options.port}: ${failureWords(error)}`,
    );
  }
  io.err(`Memdir team sync server listening on ${server.url} (${store.kind}: ${store.location}). Ctrl-C stops it.\n`);
  const readable = store.kind === 'sqlite' ? othersCanRead(store.location) : null;
  if (readable !== null) {
    // New stores are created private (sqlite-store.ts); one from before, or chmod-ed since, is not.
    const quoted = `'${store.location.replaceAll("'", `'\\''`)}'`;
    io.err(
      `Other accounts on this machine can read the team store ${store.location} (mode ${readable}), which holds every team's memories and its tokens' hashes: make it yours alone with chmod 600 ${quoted}*\n`,
    );
  }
  if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  io.err('Stopping: finishing requests in flight…\n');
  await server.close();
  return 0;
}

export const serverCommand: CommandSpec = {
  name: ['server'],
  // Ctrl-C / SIGTERM stop the server gracefully.
  ownInterrupt: true,
  summary: 'Run the team memory sync server (SQLite by default, PostgreSQL for several servers).',
  args: [],
  options: {
    db: dbOption,
    port: { type: 'string', valueName: 'N', description: 'port to listen on (default 8787; 0 picks a free one)' },
    host: {
      type: 'string',
      valueName: 'HOST',
      description: 'address to listen on (default 127.0.0.1; any address other machines reach needs --allow-http: put TLS in front first)',
    },
    'max-body': { type: 'string', valueName: 'BYTES', description: 'largest push body (default 8388608)' },
    'max-keys': { type: 'string', valueName: 'N', description: 'keys per push (default 500)' },
    'max-entry': { type: 'string', valueName: 'BYTES', description: 'largest memory file (default 1000000)' },
    'max-entries': { type: 'string', valueName: 'N', description: 'memory files per team (default 20000)' },
    rate: { type: 'string', valueName: 'N', description: 'requests per second per token, with bursts of 6×N (default 10)' },
    'max-connections': { type: 'string', valueName: 'N', description: 'open connections in all; past it a new one is closed at once (default 1000)' },
    'max-connections-per-address': {
      type: 'string',
      valueName: 'N',
      description: 'open connections from one client address, an IPv6 one counted by its /64 (default 100; not applied with --trust-proxy)',
    },
    'allow-http': {
      type: 'boolean',
      description:
        'listen on an address other machines reach (--host) although the server speaks plain http: a TLS proxy elsewhere is in front, or the network is trusted',
    },
    'trust-proxy': {
      type: 'boolean',
      description: 'behind your own load balancer: limit failed logins per client, taken from the last X-Forwarded-For entry (the one your proxy appended)',
    },
  },
  details: `API (Authorization: Bearer <token> on /v1):
  GET /healthz                          200 {"ok": true} | 503 {"ok": false} (no token needed; says nothing more)
  GET /v1/me                            200 {"team", "member", "tokenId", "protocols", "scope": "team"|"personal", "user"?}
  GET /v1/teams/<team>/entries[?since=<etag>]   200 {"team", "version", "etag", "full", "entries": {"<key>": {"content", "sha256", "updatedAt", "updatedBy"}}} | 304
  GET /v1/teams/<team>/checksums        200 {"team", "version", "etag", "checksums": {"<key>": "<sha256>"}} | 304
  PUT /v1/teams/<team>/entries          body {"entries": {"<key>": "<content>"}}, If-Match: <etag> required
                                        200 {"version", "etag", "changed", "unchanged"} | 412 {"error": "stale", "etag"} | 428
  PUT /v2/teams/<team>/entries          body {"pushId", "entries": {"<key>": {"content", "base"}}} (per-key commits)
Personal spaces (personal tokens only; names and contents are the client's ciphertext):
  GET|PUT /v1/personal/key              the space's key record (set once; another one: 409 key-mismatch)
  GET /v1/personal/projects/<id>/entries|checksums, PUT /v2/personal/projects/<id>/entries   as a team's
Failed logins are counted per client address: past the limit, failing requests from it get 429 with
Retry-After; a valid token is always served (limited per token). With --trust-proxy the address is the
last X-Forwarded-For entry — the one the proxy in front appended; what a client writes there is ignored.
Connections are capped in all (--max-connections) and per client address (--max-connections-per-address;
off with --trust-proxy, where every connection comes from the proxy): past a cap a new connection is
closed at once, and a "refusing connections" warning is logged (at most one line per 10 s, with a count).
Logs: one JSON line per request on stdout (never tokens or content). Stops gracefully on Ctrl-C / SIGTERM
(requests in flight are finished) and exits 0: a signal is how a server is meant to end, so a supervisor or
script reads 0 as a clean stop; 2 when it cannot start (a port in use, a store it cannot open).
With PostgreSQL, any number of servers can share one database behind a load balancer.
Pass a PostgreSQL password through $MEMDIR_SERVER_DB rather than --db, so it does not show in the process list.
Back up a SQLite store while it runs with memdir server backup --to <file> (PostgreSQL: pg_dump).`,
  async run({ values, io }) {
    const port = wholeNumberOption(values, 'port', { min: 0, max: 65_535 }, 8787)!;
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const exposed = serverHostRefusal(host, values['allow-http'] === true);
    if (exposed) throw new UsageError(exposed);
    const rate = wholeNumberOption(values, 'rate', { min: 1, max: 100_000, unit: 'requests per second' });
    const limits: Partial<ServerLimits> = {};
    // A push carries at least one whole memory: a body limit below a small one makes every push fail.
    const maxBody = wholeNumberOption(values, 'max-body', { min: 4 * 1024, max: 1024 ** 3, unit: 'bytes' });
    const maxKeys = wholeNumberOption(values, 'max-keys', { min: 1, max: 100_000 });
    const maxEntry = wholeNumberOption(values, 'max-entry', { min: 1024, max: 64 * 1024 ** 2, unit: 'bytes' });
    const maxEntries = wholeNumberOption(values, 'max-entries', { min: 1, max: 10_000_000 });
    if (maxEntry !== undefined && maxEntry > (maxBody ?? DEFAULT_LIMITS.maxBodyBytes)) {
      throw new UsageError(
        `--max-entry (${maxEntry} bytes) must not be larger than --max-body (${maxBody ?? DEFAULT_LIMITS.maxBodyBytes} bytes): a memory that size could never be pushed`,
      );
    }
    if (maxBody !== undefined) limits.maxBodyBytes = maxBody;
    if (maxKeys !== undefined) limits.maxKeysPerRequest = maxKeys;
    // A smaller body limit alone brings the entry limit down with it.
    if (maxEntry !== undefined || (maxBody !== undefined && maxBody < DEFAULT_LIMITS.maxEntryBytes)) limits.maxEntryBytes = maxEntry ?? maxBody;
    if (maxEntries !== undefined) limits.maxEntriesPerTeam = maxEntries;
    if (rate !== undefined) limits.rateLimit = { burst: rate * 6, perSecond: rate };
    const maxConnections = wholeNumberOption(values, 'max-connections', { min: 1, max: 1_000_000 });
    const maxPerAddress = wholeNumberOption(values, 'max-connections-per-address', { min: 1, max: 1_000_000 });
    if (maxConnections !== undefined) limits.maxConnections = maxConnections;
    if (maxPerAddress !== undefined) limits.maxConnectionsPerAddress = maxPerAddress;
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      return await runServer({ db: resolveServerDb(values, io), host, port, limits, trustProxy: values['trust-proxy'] === true }, io, controller.signal);
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  },
};

export const serverBackupCommand: CommandSpec = {
  name: ['server', 'backup'],
  summary: 'Back up the SQLite team store into a new file while the server runs (PostgreSQL: use pg_dump).',
  args: [],
  options: {
    db: dbOption,
    to: { type: 'string', valueName: 'FILE', description: 'the new file to write the backup to (an existing file is never overwritten)' },
    json: jsonOption,
  },
  details: `Uses SQLite's online backup API, so the copy holds every push the server has answered, also those still
in the store's -wal file (a plain cp of the store can miss them). The file is readable by its owner only and
appears only once complete. To restore: stop the server, put the backup in place of the store (remove the
store's -wal and -shm files) and start it; then revoke again any token revoked since the backup.
JSON: {"to", "bytes"}`,
  async run({ values, io }) {
    if (typeof values.to !== 'string' || values.to === '') throw new UsageError('name the new backup file: memdir server backup --to <file>');
    const to = path.resolve(io.cwd, values.to);
    const done = await withStore(values, io, async (store) => (await import('../../server/backup.js')).backupStore(store, to));
    if (values.json) printJson(io, done);
    else io.out(`Backed up the team store to ${done.to} (${done.bytes} bytes).\n`);
    return 0;
  },
};

export const serverAdminCommand: CommandSpec = {
  name: ['server', 'admin'],
  summary: 'Administer teams, personal spaces and tokens of the sync server: create-team, create-personal, reset-personal, issue-token, revoke-token, list.',
  args: [],
  options: {},
  details: `memdir server admin create-team <team> [--db DB]
memdir server admin create-personal <user> [--db DB]
memdir server admin reset-personal <user> --yes [--db DB]
memdir server admin issue-token <team> [--member NAME] [--expires DAYSd] [--db DB] [--json]
memdir server admin issue-token <user> --personal [--member MACHINE] [--expires DAYSd] [--db DB] [--json]
memdir server admin revoke-token <id> [--db DB]
memdir server admin list [team] [--db DB] [--json]
They work on the store directly, also while the server runs.`,
  async run({ io }) {
    io.err(
      'memdir server admin: name a subcommand (create-team, create-personal, reset-personal, issue-token, revoke-token, list). Run `memdir server admin --help`.\n',
    );
    return 2;
  },
};

export const serverCreateTeamCommand: CommandSpec = {
  name: ['server', 'admin', 'create-team'],
  summary: 'Create a team on the sync server.',
  args: ['<team>'],
  options: { db: dbOption, json: jsonOption },
  details: 'Team names: lower-case letters, digits and dashes, at most 63 (they appear in URLs).\nJSON: {"name", "version", "epoch", "createdAt", "entries"}',
  async run({ positionals, values, io }) {
    const team = await withStore(values, io, (store) => createTeam(store, positionals[0]!));
    if (values.json) printJson(io, team);
    else io.out(`Created team ${team.name}. Next: memdir server admin issue-token ${team.name} --member <name>\n`);
    return 0;
  },
};

export const serverCreatePersonalCommand: CommandSpec = {
  name: ['server', 'admin', 'create-personal'],
  summary: "Create a user's personal space: their own memory, synced between their machines, end-to-end encrypted.",
  args: ['<user>'],
  options: { db: dbOption, json: jsonOption },
  details: `User names follow the team-name rule. The server keeps only ciphertext for a personal space: it can
count its projects and entries, never read a memory's name or content.
JSON: {"user", "createdAt", "projects", "entries", "keySet"}`,
  async run({ positionals, values, io }) {
    const space = await withStore(values, io, (store) => createPersonal(store, positionals[0]!));
    if (values.json) printJson(io, space);
    else
      io.out(
        `Created the personal space of ${space.user}. Next, a token per machine: memdir server admin issue-token ${space.user} --personal --member <machine>\n`,
      );
    return 0;
  },
};

export const serverResetPersonalCommand: CommandSpec = {
  name: ['server', 'admin', 'reset-personal'],
  summary: "Reset a user's personal space after a lost passphrase: its key and every encrypted entry are deleted; its tokens stay.",
  args: ['<user>'],
  options: { db: dbOption, yes: { type: 'boolean', description: "really delete the space's encrypted entries (required)" }, json: jsonOption },
  details: `Without the passphrase nobody can read the entries, so they go. The user's machines keep their memories; the
next one to connect sets a new passphrase and uploads again, and the others stop ("another key") until they
connect with it. JSON: {"reset": true, "user"}`,
  async run({ positionals, values, io }) {
    if (values.yes !== true) throw new UsageError(`this deletes every encrypted entry of ${positionals[0]!}'s personal space: add --yes`);
    await withStore(values, io, (store) => resetPersonal(store, positionals[0]!));
    if (values.json) printJson(io, { reset: true, user: positionals[0]! });
    else io.out(`Reset the personal space of ${positionals[0]!}: the next machine to connect sets a new passphrase.\n`);
    return 0;
  },
};

/** `--expires 90d`: whole days from 1 to 3650, or undefined when not given. */
function expiresOption(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const match = typeof value === 'string' ? /^([1-9]\d{0,3})d$/.exec(value.trim()) : null;
  const days = match ? Number(match[1]) : NaN;
  if (!(days >= 1 && days <= 3650))
    throw new UsageError(`--expires takes a number of days from 1 to 3650 followed by d, e.g. 90d, not ${JSON.stringify(String(value).slice(0, 40))}`);
  return days;
}

export const serverIssueTokenCommand: CommandSpec = {
  name: ['server', 'admin', 'issue-token'],
  summary: 'Issue a token for a member of a team, or (--personal) for one machine of a personal space. It is printed once and never stored (only its hash is).',
  args: ['<team|user>'],
  options: {
    db: dbOption,
    member: {
      type: 'string',
      valueName: 'NAME',
      description: 'who (or, with --personal, which machine) the token is for (shown in entries as updatedBy; default "member")',
    },
    personal: { type: 'boolean', description: "a token for the personal space of <user>: it reaches that user's projects only, never a team" },
    expires: {
      type: 'string',
      valueName: 'DAYS',
      description: 'the token stops working after this many days, e.g. 90d (default: it works until revoked)',
    },
    json: jsonOption,
  },
  details: `An expired token is refused (401 token-expired); the member's app says when it expired and to ask for a new one.
JSON: {"token", "id", "team", "member", "createdAt", "expiresAt": "<ISO date>"|null, "scope": "team"|"personal"} ("team" is "~<user>" for a personal token)`,
  async run({ positionals, values, io }) {
    const personal = values.personal === true;
    const member = typeof values.member === 'string' ? values.member : undefined;
    const days = expiresOption(values.expires);
    const { token, info } = await withStore(values, io, (store) =>
      personal ? issuePersonalToken(store, positionals[0]!, member, new Date(), days) : issueToken(store, positionals[0]!, member, new Date(), days),
    );
    if (values.json) {
      printJson(io, {
        token,
        id: info.id,
        team: info.team,
        member: info.member,
        createdAt: info.createdAt,
        expiresAt: info.expiresAt,
        scope: personal ? 'personal' : 'team',
      });
      return 0;
    }
    if (personal) io.out(`Token for ${info.member}, a machine of ${positionals[0]!}'s personal space (id ${info.id}):\n\n  ${token}\n\n`);
    else io.out(`Token for ${info.member} in team ${info.team} (id ${info.id}):\n\n  ${token}\n\n`);
    if (info.expiresAt !== null) io.out(`It expires on ${info.expiresAt}.\n`);
    io.out(`It is shown only now. Hand it over privately; revoke it with: memdir server admin revoke-token ${info.id}\n`);
    return 0;
  },
};

export const serverRevokeTokenCommand: CommandSpec = {
  name: ['server', 'admin', 'revoke-token'],
  summary: 'Revoke a token by its id (from `memdir server admin list`); it is refused from its next request on.',
  args: ['<id>'],
  options: { db: dbOption, json: jsonOption },
  details: `The whole token (mdt_…) is accepted too, with a warning: on the command line other accounts on this
machine can read it in the process list. JSON: {"id", "team", "member", "createdAt", "revokedAt", "expiresAt"}`,
  async run({ positionals, values, io }) {
    const info = await withStore(values, io, (store) => revokeToken(store, positionals[0]!));
    if (parseToken(positionals[0]!)) {
      io.err(
        `You gave the whole token: while a command runs, other accounts on this machine can read its command line in the process list (ps), and your shell may keep it in its history. It is revoked, so it is useless now; next time give its id: memdir server admin revoke-token ${info.id}\n`,
      );
    }
    if (values.json) printJson(io, info);
    else io.out(`Revoked token ${info.id} of ${info.member} (team ${info.team}) at ${info.revokedAt}.\n`);
    return 0;
  },
};

export const serverListCommand: CommandSpec = {
  name: ['server', 'admin', 'list'],
  summary: "List teams with their members' tokens, and personal spaces with their machines' tokens (ids only, never secrets).",
  args: ['[team]'],
  options: { db: dbOption, json: jsonOption },
  details: `JSON: {"teams": [{"name", "version", "epoch", "createdAt", "entries", "tokens": [{"id", "team", "member", "createdAt", "revokedAt", "expiresAt"}]}],
  "personal": [{"user", "createdAt", "projects", "entries", "keySet", "tokens": [{"id", "team", "member", "createdAt", "revokedAt", "expiresAt"}]}]}
(with [team]: that team only, and "personal" is empty)`,
  async run({ positionals, values, io }) {
    const { teams, personal } = await withStore(values, io, async (store) => ({
      teams: await listMembers(store, positionals[0]),
      personal: positionals[0] === undefined ? await listPersonalSpaces(store) : [],
    }));
    if (values.json) {
      printJson(io, { teams, personal });
      return 0;
    }
    for (const space of personal) {
      io.out(
        `personal space of ${space.user}: ${space.projects} project(s), ${space.entries} entries (encrypted), key ${space.keySet ? 'set' : 'not set yet'}, created ${space.createdAt}\n`,
      );
      if (space.tokens.length === 0) io.out('  no tokens\n');
      else
        io.out(
          table([
            ['  TOKEN ID', 'MACHINE', 'CREATED', 'REVOKED', 'EXPIRES'],
            ...space.tokens.map((t) => [`  ${t.id}`, t.member, t.createdAt, t.revokedAt ?? '—', t.expiresAt ?? '—']),
          ]),
        );
    }
    if (teams.length === 0) {
      io.out('No teams yet. Create one: memdir server admin create-team <team>\n');
      return 0;
    }
    for (const team of teams) {
      io.out(`${team.name}: ${team.entries} entries, version ${team.version}, created ${team.createdAt}\n`);
      if (team.tokens.length === 0) io.out('  no tokens\n');
      else
        io.out(
          table([
            ['  TOKEN ID', 'MEMBER', 'CREATED', 'REVOKED', 'EXPIRES'],
            ...team.tokens.map((t) => [`  ${t.id}`, t.member, t.createdAt, t.revokedAt ?? '—', t.expiresAt ?? '—']),
          ]),
        );
    }
    return 0;
  },
};
