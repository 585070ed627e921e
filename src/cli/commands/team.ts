/**
 * `memdir team connect|status|sync|conflicts|resolve|retire|disconnect`: share a project's `memory/team/` through a
 * Memdir sync server from the command line — the same TeamSync the app runs, once.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  ALLOW_SECRET_HELP,
  allowSecretOption,
  type CliIo,
  type CommandSpec,
  CliFailure,
  EXIT_ERROR,
  EXIT_OK,
  EXIT_PROBLEMS,
  UsageError,
  homeOption,
  jsonOption,
  printJson,
  wholeNumberOption,
} from '../command.js';
import { waitingItemName, waitingNeedsYou } from '../../shared/sync-waiting.js';
import { checkContractLimits } from '../contract-limits.js';
import { retireMemory, type ProjectLocation } from '../../main/memdir/index.js';
import { FileCredentialStore } from '../../main/settings/index.js';
import {
  AlertCenter,
  connectTeam,
  ConnectionStore,
  disconnectTeam,
  readToken,
  refuseRetiringUnshared,
  type TeamConnection,
  TeamSync,
} from '../../main/team/index.js';
import {
  checkKeep,
  credentialsEncrypted,
  dataDirOf,
  describeReport,
  lastSyncFailed,
  locate,
  printConflicts,
  projectOption,
  readStdin,
  resolveFromCli,
  syncExitCode,
  teamWords,
} from './sync-common.js';

function connectionView(c: TeamConnection): Record<string, unknown> {
  return { server: c.server, team: c.team, member: c.member, tokenId: c.tokenId, connectedAt: c.connectedAt, pullIntervalSec: c.pullIntervalSec };
}

/** The connection's client; `localOnly` (status) needs no token, because it never calls the server. */
async function openSync(connection: TeamConnection, io: CliIo, dataDir: string, localOnly = false): Promise<TeamSync> {
  const credentials = new FileCredentialStore(dataDir);
  const token = localOnly ? '' : await readToken(connection, credentials, io.env);
  if (token === null) {
    const why = credentialsEncrypted(dataDir) ? 'it was stored encrypted by the desktop app, which only the app can read' : 'none is stored';
    throw new CliFailure(`no team token for this project (${why}); set MEMDIR_TEAM_TOKEN for this run, or connect again.`);
  }
  return TeamSync.open({ connection, token, dataDir, dir: connection.dir, alerts: new AlertCenter(dataDir) });
}

export const teamCommand: CommandSpec = {
  name: ['team'],
  summary: "Share a project's memory/team/ through a sync server: connect, status, sync, conflicts, resolve, retire, disconnect.",
  args: [],
  options: {},
  details: `memdir team connect --project P --server URL --team TEAM --token-stdin [--json]
memdir team status --project P [--json]
memdir team sync --project P [--json]
memdir team conflicts --project P [--json]
memdir team resolve <id> --project P --keep mine|server|both|merged [--file F] [--json]
memdir team disconnect --project P [--json]
Run \`memdir team <subcommand> --help\` for each one's options and JSON output.`,
  async run({ io }) {
    io.err('memdir team: name a subcommand (connect, status, sync, conflicts, resolve, retire, disconnect). Run `memdir team --help`.\n');
    return EXIT_ERROR;
  },
};

export const teamConnectCommand: CommandSpec = {
  name: ['team', 'connect'],
  summary: "Connect a project's team memory (memory/team/) to a Memdir sync server, then sync once.",
  args: [],
  options: {
    project: projectOption,
    server: { type: 'string', valueName: 'URL', description: 'the sync server, e.g. https://memdir.example.com', required: true },
    team: { type: 'string', valueName: 'TEAM', description: 'the team name on that server', required: true },
    'token-stdin': { type: 'boolean', description: 'read the token from standard input (preferred)' },
    token: {
      type: 'string',
      valueName: 'TOKEN',
      description: 'the token itself (visible in your shell history and process list: prefer --token-stdin or MEMDIR_TEAM_TOKEN)',
    },
    'allow-http': { type: 'boolean', description: 'allow plain http to a host other than this machine (the token travels unencrypted)' },
    interval: { type: 'string', valueName: 'SEC', description: 'how often the app pulls (default 60)' },
    home: homeOption,
    json: jsonOption,
  },
  details: `The token comes from --token-stdin, else $MEMDIR_TEAM_TOKEN, else --token. It is checked against the
server (it must belong to --team), never printed, and kept in Memdir's credential store
(<data dir>/credentials.json, mode 0600; encrypted with the OS keychain when the desktop app
stores it). The connection (server, team, member) is kept in <data dir>/team/connections.json.
Connecting to another server or team starts the sync state over: a team file that differs from the
new team's version is kept as a conflict, never overwritten silently.
JSON: {"project": {"dir", "memoryDir"}, "connection": {"server", "team", "member", "tokenId",
  "connectedAt", "pullIntervalSec"}, "sync": <the report of \`memdir team sync --json\`>}
Exit codes (the first sync's, once connected): 0 connected and in step; 1 connected, but the first sync
kept conflicts, held files back or refused entries from the server; 2 refused (bad URL, wrong team,
unknown token, server unreachable) or connected but the first sync failed (the connection is kept:
run \`memdir team sync\` again).`,
  async run({ values, io }) {
    const loc = await locate(values, io);
    if (typeof values.server !== 'string') throw new UsageError('--server is required');
    if (typeof values.team !== 'string') throw new UsageError('--team is required');
    let token = '';
    if (values['token-stdin']) token = await readStdin(io.stdin);
    else if (io.env.MEMDIR_TEAM_TOKEN) token = io.env.MEMDIR_TEAM_TOKEN.trim();
    else if (typeof values.token === 'string') {
      token = values.token.trim();
      io.err('memdir team connect: note: a token given with --token is visible in your shell history; prefer --token-stdin.\n');
    }
    if (!token) throw new UsageError('no token: pipe it into --token-stdin, or set MEMDIR_TEAM_TOKEN');
    const interval = wholeNumberOption(values, 'interval', { min: 5, max: 86_400, unit: 'seconds' });
    checkContractLimits('team.connect', { server: values.server, team: values.team, token, pullIntervalSec: interval });
    const dataDir = dataDirOf(io);
    if (credentialsEncrypted(dataDir)) {
      throw new CliFailure(
        "Memdir's credential store is encrypted by the desktop app, which the command line cannot write to without losing its other secrets; connect from the app's Team sync view instead.",
      );
    }
    const { connection } = await connectTeam(
      {
        memoryDir: loc.memoryDir,
        dir: loc.dir,
        server: values.server,
        team: values.team,
        token,
        allowHttp: values['allow-http'] === true,
        ...(interval !== undefined ? { pullIntervalSec: interval } : {}),
      },
      { connections: new ConnectionStore(dataDir), credentials: new FileCredentialStore(dataDir) },
    );
    const { server, team, member, tokenId } = connection;
    await fsp.mkdir(path.join(loc.memoryDir, 'team'), { recursive: true });
    const sync = await TeamSync.open({ connection, token, dataDir, dir: loc.dir, alerts: new AlertCenter(dataDir) });
    const report = await sync.sync();
    const { conflicts } = await sync.inspect();
    const code = syncExitCode(report, conflicts.length);
    if (values.json) {
      printJson(io, { project: { dir: loc.dir, memoryDir: loc.memoryDir }, connection: connectionView(connection), sync: report });
      return code;
    }
    io.out(`Connected ${loc.memoryDir}/team to team ${team} at ${server} as ${member} (token ${tokenId}).\n`);
    describeReport(io, report, connection, undefined, undefined, conflicts);
    if (report.error) io.err('memdir team connect: the connection is kept; run `memdir team sync` to try again.\n');
    return code;
  },
};

async function requireConnection(values: Record<string, unknown>, io: CliIo): Promise<{ loc: ProjectLocation; connection: TeamConnection; dataDir: string }> {
  const loc = await locate(values, io);
  const dataDir = dataDirOf(io);
  const connection = await new ConnectionStore(dataDir).forMemoryDir(loc.memoryDir);
  if (!connection)
    throw new CliFailure(
      `${loc.dir} is not connected to a sync server; run \`memdir team connect --project ${String(values.project)} --server URL --team TEAM --token-stdin\` first.`,
    );
  return { loc, connection, dataDir };
}

export const teamStatusCommand: CommandSpec = {
  name: ['team', 'status'],
  summary: "A project's team sync: connection, last pull and push, what waits to be uploaded and why, conflicts.",
  args: [],
  options: { project: projectOption, home: homeOption, json: jsonOption },
  details: `Looks only at this machine (no request to the server); \`memdir team sync\` talks to it.
JSON: {"project": {"dir", "memoryDir"}, "connected": bool, "connection": {…} | null, "lastPullAt",
  "lastPushAt", "version", "lastError": {"code", "message", "at"} | null, "files", "waiting": [{"key", "reason", "detail"}],
  "conflicts": [{"id", "key", "createdAt", "localSha", "serverSha", "serverUpdatedBy", "localRev", …}]}
"reason" is one of pending, secret, invalid-key, too-large, not-utf8, binary, symlink, hardlink, not-a-file,
too-deep, server-moved, refused, user-memory (a "user" memory in team/: never uploaded), claude-code-store (a folder
Claude Code syncs itself with a memory store: its .memory-sync file is there; left to it, both ways; key "." is the
whole team folder). "lastError": the last sync's failure, by this process or another (the app), null once one
gets through. Exit codes: 0 in step (a claude-code-store folder alone included: it stays listed in "waiting"),
1 conflicts, files held back or the last sync failed, 2 error.`,
  async run({ values, io }) {
    const loc = await locate(values, io);
    const dataDir = dataDirOf(io);
    const connection = await new ConnectionStore(dataDir).forMemoryDir(loc.memoryDir);
    if (!connection) {
      if (values.json) printJson(io, { project: { dir: loc.dir, memoryDir: loc.memoryDir }, connected: false, connection: null });
      else io.out(`${loc.dir}: not connected to a sync server (team memory stays on this machine).\n`);
      return EXIT_OK;
    }
    const sync = await openSync(connection, io, dataDir, true);
    const inspected = await sync.inspect();
    const blocked = inspected.waiting.filter(waitingNeedsYou);
    if (values.json) {
      printJson(io, { project: { dir: loc.dir, memoryDir: loc.memoryDir }, connected: true, connection: connectionView(connection), ...inspected });
    } else {
      io.out(`${loc.dir}: connected to team ${connection.team} at ${connection.server} as ${connection.member}.\n`);
      io.out(
        `Last pull: ${inspected.lastPullAt ?? 'never'}; last push: ${inspected.lastPushAt ?? 'never'}; server version ${inspected.version ?? '?'}; ${inspected.files} team file(s) here.\n`,
      );
      for (const w of inspected.waiting) io.out(`${w.reason === 'pending' ? 'Waiting' : 'Held back'}: ${waitingItemName(w, 'team/')} — ${w.detail}\n`);
      for (const c of inspected.conflicts) io.out(`Conflict ${c.id}: team/${c.key} (server version by ${c.serverUpdatedBy ?? '?'}; yours is kept).\n`);
      if (inspected.lastError) io.out(`${lastSyncFailed(inspected.lastError)}\n`);
      else if (inspected.waiting.length === 0 && inspected.conflicts.length === 0) io.out('Everything here is on the server.\n');
    }
    return inspected.conflicts.length > 0 || blocked.length > 0 || inspected.lastError ? EXIT_PROBLEMS : EXIT_OK;
  },
};

export const teamSyncCommand: CommandSpec = {
  name: ['team', 'sync'],
  summary: 'Sync a project once: pull (the server wins per key; unpushed local edits kept as conflicts), then push what changed.',
  args: [],
  options: { project: projectOption, home: homeOption, json: jsonOption },
  details: `Deletions are never pushed: a file deleted here comes back. Files holding a secret are not
uploaded (see the Alerts view, or \`memdir secrets scan\`). A push based on an old version (412)
is retried a few times with backoff, then left for the next sync. A server that went back to an older
version (a restored backup) is said so ("wentBack"), and what it lost is uploaded again.
JSON: {"project": {"dir", "memoryDir"}, "pull": {"status": 200|304|null, "full", "written": [key], "merged": [key],
  "conflicts": [key], "refused": [{"key", "reason"}], "wentBack": sentence|null}, "push": {"uploaded": [key], "confirmed": [key], "attempts", "stale",
  "requests"}, "waiting": [{"key", "reason", "detail"}], "bytesHashed", "filesHashed", "version",
  "etag", "error": {"code", "message", "at"} | null, "durationMs"}
Exit codes: 0 synced, 1 synced but conflicts are open, files were held back or entries from the server
were refused — it waits for you, 2 the sync failed: the server could not be reached or answered with an
error, or the token was refused (one line on stderr says which; your changes are kept). A folder Claude Code syncs itself (claude-code-store), and the server's files
left out of it, never make it 1 by themselves. A secret in a file's name is masked wherever a key is shown
("waiting", "push.uploaded", the text lines), one allowed on purpose too.`,
  async run({ values, io }) {
    const { loc, connection, dataDir } = await requireConnection(values, io);
    const sync = await openSync(connection, io, dataDir);
    const report = await sync.sync();
    const { conflicts } = await sync.inspect();
    const code = syncExitCode(report, conflicts.length);
    if (values.json) printJson(io, { project: { dir: loc.dir, memoryDir: loc.memoryDir }, ...report });
    else describeReport(io, report, connection, undefined, undefined, conflicts);
    return code;
  },
};

export const teamConflictsCommand: CommandSpec = {
  name: ['team', 'conflicts'],
  summary: "A project's open team sync conflicts: both versions, their base and the three-way merge proposal.",
  args: [],
  options: { project: projectOption, home: homeOption, json: jsonOption },
  details: `A conflict is kept when your changes and the team's overlap in lines (changes to different lines are
merged by the sync). The team's version is on disk ("theirsFrom": "disk") — after the undo of an earlier
keep server, yours is, and "theirs" is the team's version as last synced ("last-synced"; "lost": that copy is
gone here, "theirs" is the file, and keep server|both|merged are refused until a sync fetches it again); yours
is kept in Memdir's data folder and in history.
Looks only at this machine (no request to the server).
JSON: {"project": {"dir", "memoryDir"}, "conflicts": [{"id", "key", "createdAt", "serverUpdatedBy", "serverUpdatedAt",
  "localRev", "mine", "theirs", "theirsFrom": "disk"|"last-synced"|"lost", "base": text|null, "proposal": text|null (overlaps between <<<<<<< ======= >>>>>>>),
  "overlaps": n|null}]}
Exit codes: 0 no conflict, 1 conflicts to resolve, 2 error.`,
  async run({ values, io }) {
    const { loc, connection, dataDir } = await requireConnection(values, io);
    const sync = await openSync(connection, io, dataDir, true);
    return printConflicts(io, values, loc, sync, teamWords(connection));
  },
};

export const teamResolveCommand: CommandSpec = {
  name: ['team', 'resolve'],
  summary: "Resolve a team sync conflict: keep mine, the server's, both, or a merged text — one history entry, one undo.",
  args: ['<id>'],
  options: {
    project: projectOption,
    keep: { type: 'string', valueName: 'mine|server|both|merged', description: 'which version to keep', required: true },
    file: { type: 'string', valueName: 'F', description: "with --keep merged: the merged text (else the sync's own three-way merge, when nothing overlaps)" },
    allow: allowSecretOption,
    home: homeOption,
    json: jsonOption,
  },
  details: `--keep mine     your version is written over the team's and pushed;
--keep server   the team's version stays (on disk; after the undo of an earlier keep, yours is on disk and the
                team's, as last synced, is written over it); yours is recorded in history just before the
                resolution's entry (text: "Your version is in History"), so its undo puts yours back byte for byte;
--keep both     every line of both: merged where they differ apart, yours then theirs where they overlap (with no
                common base, every line of both, common lines once); pushed;
--keep merged   the text of --file F (start from \`memdir team conflicts --json\`'s "proposal" and delete its
                <<<<<<<, ======= and >>>>>>> lines: a text still holding one is refused, as is a file that
                is binary, not UTF-8 or over 1 MB), or the three-way merge when nothing overlaps; pushed.
Each is one history entry (source "sync"); undo it with the \`memdir undo\` command printed (and in the JSON):
the file goes back as the pull left it (after --keep server: yours) and the conflict is open again (yours still
kept, to choose again; the next sync pushes neither side, and writes a newer team version over yours, still
kept); undoing that undo resolves it again.
Nothing is written when the file changed since the conflict was shown, nor by --keep server when yours is on
disk and Memdir's copy of the team's version is lost (sync first).
${ALLOW_SECRET_HELP}
JSON: {"project": {"dir", "memoryDir"}, "conflict": {…, "status": "resolved", "resolution"}, "rev": id|null,
  "undo": "memdir undo …"|null, "sync": <the report of \`memdir team sync --json\`>|null}
Exit codes: 0 resolved (and pushed), 1 resolved but the push did not go through (it goes at the next sync), 2 refused.`,
  async run({ positionals, values, io }) {
    checkKeep(values);
    const id = positionals[0]!;
    const { loc, connection, dataDir } = await requireConnection(values, io);
    return resolveFromCli(io, id, values, loc, (localOnly) => openSync(connection, io, dataDir, localOnly), connection, teamWords(connection));
  },
};

export const teamRetireCommand: CommandSpec = {
  name: ['team', 'retire'],
  summary: 'Retire a team memory: its text emptied and its index lines removed — one history entry, one undo; the next sync shares it.',
  args: ['<file>'],
  options: { project: projectOption, home: homeOption, json: jsonOption },
  details: `<file> is the team memory, as team/x.md or x.md. A team memory the sync server holds cannot be deleted or
renamed (deletions never propagate: the next sync would bring it back); retiring is how it leaves. Its file stays,
emptied (0 bytes), and its pointers leave team/MEMORY.md and MEMORY.md; the next sync shares the empty file, so
it is retired for every teammate. The same action as the app's Retire (offered there only for a memory the
server holds). A memory the server never held (never pushed) is refused, as the app offers no Retire for it:
deleting it is enough, since no sync brings it back (the app's Delete, or remove the file and its index lines);
retiring it would share an empty file the team could never be rid of. Whether the server holds it is read from
this machine's last sync, so retire needs no connection. A private memory is refused (delete it), as is one
already retired.
JSON: {"project": {"dir", "memoryDir"}, "file": "team/x.md", "rev": id|null, "undo": "memdir undo …"|null}
Exit codes: 0 retired, 2 refused (nothing written).`,
  async run({ positionals, values, io }) {
    const loc = await locate(values, io);
    const given = positionals[0]!;
    const file = given.startsWith('team/') ? given.slice('team/'.length) : given;
    const where = { memoryDir: loc.memoryDir, scope: 'team' as const, dataDir: dataDirOf(io) };
    await refuseRetiringUnshared(where, file);
    const { entry } = await retireMemory(where, file);
    const rel = `team/${file}`;
    const undo = entry ? `memdir undo ${loc.dir} ${entry.rev.slice(0, 10)}` : null;
    if (values.json) printJson(io, { project: { dir: loc.dir, memoryDir: loc.memoryDir }, file: rel, rev: entry?.rev ?? null, undo });
    else io.out(`Retired ${rel}: its text is emptied and its index lines removed; the next sync shares that.${undo ? ` Undo with: ${undo}` : ''}\n`);
    return EXIT_OK;
  },
};

export const teamDisconnectCommand: CommandSpec = {
  name: ['team', 'disconnect'],
  summary: 'Stop syncing a project: its team files, history and conflicts stay; the stored token is deleted.',
  args: [],
  options: { project: projectOption, home: homeOption, json: jsonOption },
  details: 'JSON: {"disconnected": bool}',
  async run({ values, io }) {
    const loc = await locate(values, io);
    const dataDir = dataDirOf(io);
    // A token the desktop app stored encrypted can be read and deleted only by the app.
    const encrypted = credentialsEncrypted(dataDir);
    const { connection, tokenDeleted } = await disconnectTeam(loc.memoryDir, {
      connections: new ConnectionStore(dataDir),
      credentials: encrypted ? null : new FileCredentialStore(dataDir),
    });
    if (values.json) printJson(io, { disconnected: connection !== null });
    else {
      io.out(connection ? `Disconnected ${loc.dir} from ${connection.team} at ${connection.server}.\n` : `${loc.dir} was not connected.\n`);
      if (connection && !tokenDeleted)
        io.out(
          encrypted
            ? 'Its token stays in the credentials the desktop app keeps encrypted (only the app can delete it); revoke it on the server if it is no longer needed.\n'
            : 'Its stored token could not be deleted; revoke it on the server if it is no longer needed.\n',
        );
    }
    return EXIT_OK;
  },
};
