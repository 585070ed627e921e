/**
 * `memdir personal connect|status|sync|conflicts|resolve|disconnect` (issue 18, item 5): sync a
 * project's private memory between the user's own machines through their personal space on a
 * Memdir sync server, end-to-end encrypted with a key derived from their passphrase — the same
 * account, projects and TeamSync engine the app uses.
 */
import fsp from 'node:fs/promises';
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
} from '../command.js';
import type { SyncReport } from '../../shared/contract/team.js';
import { waitingItemName, waitingNeedsYou } from '../../shared/sync-waiting.js';
import { type ProjectLocation } from '../../main/memdir/index.js';
import {
  connectAccount,
  disableProject,
  disconnectAccount,
  enableProject,
  givenIdentity,
  identifyByRepository,
  openPersonalSync,
  openPersonalSyncLocal,
  PASSPHRASE_WARNING,
  personalConnections,
  PersonalSyncError,
  readAccount,
  type SyncIdentity,
} from '../../main/personal/index.js';
import { FileCredentialStore } from '../../main/settings/index.js';
import { AlertCenter, type TeamConnection } from '../../main/team/index.js';
import {
  type SyncWords,
  checkKeep,
  credentialsEncrypted,
  dataDirOf,
  describeReport,
  lastSyncFailed,
  locate,
  printConflicts,
  optionalProjectOption,
  projectOption,
  resolveFromCli,
  syncExitCode,
} from './sync-common.js';

/** How personal sync names files and the other side in sentences. */
function personalWords(connection: TeamConnection): SyncWords {
  return { prefix: '', where: `your personal space at ${connection.server}`, family: 'personal', theirs: "your other machine's" };
}

/** Standard input as lines (for `--token-stdin` and `--passphrase-stdin` together: the token first). Only line ends are removed: a passphrase keeps its spaces. */
async function stdinLines(stream: NodeJS.ReadableStream | undefined): Promise<string[]> {
  if (!stream) return [];
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buffer);
    size += buffer.length;
    if (size > 10_000) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
}

/** The sync identity of a located project: `--identity NAME`, else its repository's identity (root commit, else remote). */
async function identityOf(loc: ProjectLocation, given: unknown): Promise<SyncIdentity> {
  if (typeof given === 'string') return givenIdentity(given);
  const found = await identifyByRepository(loc.keySource === 'dir-name' ? null : loc.key);
  if (!found) {
    throw new CliFailure(
      `${loc.dir} has no git repository with a commit or a remote to recognise it by on your other machines: give it a name with --identity NAME (the same name on each machine). A path is never used: it differs between machines.`,
    );
  }
  return found;
}

function accountView(account: NonNullable<Awaited<ReturnType<typeof readAccount>>>, created?: boolean): Record<string, unknown> {
  return {
    server: account.server,
    user: account.user,
    member: account.member,
    tokenId: account.tokenId,
    keyId: account.keyId,
    connectedAt: account.connectedAt,
    ...(created !== undefined ? { created } : {}),
  };
}

function projectView(c: TeamConnection): { dir: string | null; memoryDir: string; identity: SyncIdentity | null; projectId: string } {
  return { dir: c.dir, memoryDir: c.memoryDir, identity: (c.identity as SyncIdentity | undefined) ?? null, projectId: c.team };
}

function credentialsOf(dataDir: string): FileCredentialStore {
  return new FileCredentialStore(dataDir);
}

async function openSync(connection: TeamConnection, io: CliIo, dataDir: string, localOnly = false) {
  if (localOnly) return openPersonalSyncLocal(connection, dataDir);
  return openPersonalSync(connection, { dataDir, credentials: credentialsOf(dataDir), env: io.env, alerts: new AlertCenter(dataDir) });
}

async function requireProject(values: Record<string, unknown>, io: CliIo): Promise<{ loc: ProjectLocation; connection: TeamConnection; dataDir: string }> {
  const loc = await locate(values, io);
  const dataDir = dataDirOf(io);
  const connection = await personalConnections(dataDir).forMemoryDir(loc.memoryDir);
  if (!connection)
    throw new CliFailure(`${loc.dir} is not synced with your personal space; turn it on with \`memdir personal connect --project ${String(values.project)}\`.`);
  return { loc, connection, dataDir };
}

export const personalCommand: CommandSpec = {
  name: ['personal'],
  summary: "Sync a project's private memory between your own machines, end-to-end encrypted: connect, status, sync, conflicts, resolve, disconnect.",
  args: [],
  options: {},
  details: `memdir personal connect --server URL --token-stdin --passphrase-stdin [--yes] [--json]    this machine ↔ your personal space
memdir personal connect --project P [--identity NAME] [--json]                              sync a project's private memory
memdir personal status [--project P] [--json]
memdir personal sync [--project P] [--json]
memdir personal conflicts --project P [--json]
memdir personal resolve <id> --project P --keep mine|server|both|merged [--file F] [--json]
memdir personal disconnect [--project P] [--json]
Your admin creates your space and a token per machine: memdir server admin create-personal <you>, then
memdir server admin issue-token <you> --personal --member <machine>. Run \`memdir personal <subcommand> --help\`.`,
  async run({ io }) {
    io.err('memdir personal: name a subcommand (connect, status, sync, conflicts, resolve, disconnect). Run `memdir personal --help`.\n');
    return EXIT_ERROR;
  },
};

export const personalConnectCommand: CommandSpec = {
  name: ['personal', 'connect'],
  summary: "Connect this machine to your personal space (--server), and/or sync a project's private memory with it (--project).",
  args: [],
  options: {
    server: { type: 'string', valueName: 'URL', description: 'the sync server holding your personal space (connects this machine)' },
    'token-stdin': { type: 'boolean', description: "read this machine's token from standard input (the first line)" },
    token: {
      type: 'string',
      valueName: 'TOKEN',
      description: 'the token itself (visible in your shell history: prefer --token-stdin or MEMDIR_PERSONAL_TOKEN)',
    },
    'passphrase-stdin': { type: 'boolean', description: 'read the passphrase from standard input (the next line)' },
    yes: { type: 'boolean', description: 'you have read what losing the passphrase means (needed when this sets it: the first machine)' },
    'allow-http': { type: 'boolean', description: 'allow plain http to a host other than this machine (contents stay encrypted; the token does not)' },
    project: optionalProjectOption,
    identity: {
      type: 'string',
      valueName: 'NAME',
      description: "with --project: the name it is synced under, the same on each machine (default: its repository's first commit, else its git remote)",
    },
    home: homeOption,
    json: jsonOption,
  },
  details: `With --server: the token comes from --token-stdin, else $MEMDIR_PERSONAL_TOKEN, else --token; the passphrase
from --passphrase-stdin (with --token-stdin too: the token on the first line, the passphrase on the second),
else $MEMDIR_PASSPHRASE. The first machine sets the passphrase (at least 12 characters) and must confirm with --yes
that losing it is understood:
  ${PASSPHRASE_WARNING}
Every other machine must give the same passphrase: a wrong one is refused, and nothing is stored or written.
This machine keeps the token and a key derived from the passphrase (never the passphrase) in Memdir's credential
store (<data dir>/credentials.json, mode 0600; the OS keychain when the desktop app stores it).
With --project: the project's private memory (everything in its memory directory except team/, which team
sync shares) is synced under its identity — its repository's first (root) commit, else its git remote, or
--identity NAME — so one repository checked out at different paths on different machines shares one memory;
then it syncs once.
The server sees ciphertext only (names are HMACs, contents AES-256-GCM); see README "Personal sync" for what leaks.
JSON: {"account": {"server", "user", "member", "tokenId", "keyId", "connectedAt", "created"} | null,
  "project": {"dir", "memoryDir", "identity": {"id", "source", "detail"}, "projectId"} | null,
  "sync": <the report of \`memdir team sync --json\`> | null}
Exit codes: 0 connected (and in step); 1 connected, but the first sync kept conflicts, held files back or refused
entries; 2 refused (wrong passphrase, not acknowledged, bad token or URL, no identity) or the sync failed.`,
  async run({ values, io }) {
    if (typeof values.server !== 'string' && typeof values.project !== 'string')
      throw new UsageError('give --server (connect this machine) or --project (sync a project), or both');
    const dataDir = dataDirOf(io);
    const credentials = credentialsOf(dataDir);
    let account: Record<string, unknown> | null = null;
    if (typeof values.server === 'string') {
      if (credentialsEncrypted(dataDir))
        throw new CliFailure(
          "Memdir's credential store is encrypted by the desktop app, which the command line cannot write to without losing its other secrets; connect from the app's Settings instead.",
        );
      const lines = values['token-stdin'] || values['passphrase-stdin'] ? await stdinLines(io.stdin) : [];
      let token = '';
      if (values['token-stdin']) token = (lines.shift() ?? '').trim();
      else if (io.env.MEMDIR_PERSONAL_TOKEN) token = io.env.MEMDIR_PERSONAL_TOKEN.trim();
      else if (typeof values.token === 'string') token = values.token.trim();
      if (!token) throw new UsageError('no token: pipe it into --token-stdin, or set MEMDIR_PERSONAL_TOKEN');
      const passphrase = values['passphrase-stdin'] ? (lines.shift() ?? '') : (io.env.MEMDIR_PASSPHRASE ?? '');
      if (!passphrase) throw new UsageError('no passphrase: pipe it into --passphrase-stdin, or set MEMDIR_PASSPHRASE');
      const connected = await connectAccount({
        dataDir,
        credentials,
        server: values.server as string,
        token,
        passphrase,
        allowHttp: values['allow-http'] === true,
        acknowledged: values.yes === true,
      }).catch((error: unknown) => {
        // The app asks in a dialog; here the way to confirm is a flag.
        if (error instanceof PersonalSyncError && error.code === 'needs-acknowledgement')
          throw new PersonalSyncError(error.code, error.message, { hint: 'Run again with --yes once you have kept the passphrase somewhere safe.' });
        throw error;
      });
      account = accountView(connected.account, connected.created);
      if (!values.json) {
        io.out(
          `Connected this machine (${connected.account.member}) to ${connected.account.user}'s personal space at ${connected.account.server}; key ${connected.account.keyId}.\n`,
        );
        if (connected.created) io.out('Your passphrase is set. Every other machine needs it; if it is lost, nobody can decrypt the synced copy.\n');
      }
    }
    let project: Record<string, unknown> | null = null;
    let report: SyncReport | null = null;
    let code = EXIT_OK;
    if (typeof values.project === 'string') {
      const loc = await locate(values, io);
      const identity = await identityOf(loc, values.identity);
      const connection = await enableProject(dataDir, credentials, { memoryDir: loc.memoryDir, dir: loc.dir, identity }, io.env);
      await fsp.mkdir(loc.memoryDir, { recursive: true });
      project = projectView(connection);
      const sync = await openSync(connection, io, dataDir);
      report = await sync.sync();
      const { conflicts } = await sync.inspect();
      code = syncExitCode(report, conflicts.length);
      if (!values.json) {
        io.out(`Syncing the private memory of ${loc.dir} under ${identity.detail}.\n`);
        describeReport(io, report, connection, 'memdir personal connect', personalWords(connection), conflicts);
      }
    }
    if (values.json) printJson(io, { account, project, sync: report });
    return code;
  },
};

export const personalStatusCommand: CommandSpec = {
  name: ['personal', 'status'],
  summary: 'Personal sync on this machine: the account, and per project its identity, last pull and push, what waits and why, conflicts.',
  args: [],
  options: { project: optionalProjectOption, home: homeOption, json: jsonOption },
  details: `Looks only at this machine (no request to the server).
JSON: {"connected": bool, "account": {"server", "user", "member", "tokenId", "keyId", "connectedAt"} | null,
  "projects": [{"dir", "memoryDir", "identity", "projectId", "lastPullAt", "lastPushAt", "version", "lastError": {"code", "message", "at"} | null, "files",
  "waiting": [{"key", "reason", "detail"}], "conflicts": [{"id", "key", "createdAt", …}]}]}
"lastError": {"code", "message", "at"}: the project's last sync failure, by this process or another (the app), null once
one gets through; the text says "Last sync failed (when): …", as \`memdir team status\` does.
Exit codes: 0 in step (or not connected; a claude-code-store item alone included), 1 conflicts, files held back or the
last sync failed, 2 error.`,
  async run({ values, io }) {
    const dataDir = dataDirOf(io);
    const account = await readAccount(dataDir);
    let connections = await personalConnections(dataDir)
      .list()
      .catch(() => []);
    if (typeof values.project === 'string') {
      const loc = await locate(values, io);
      connections = connections.filter((c) => c.memoryDir === loc.memoryDir || c.dir === loc.dir);
    }
    const projects = [];
    for (const c of connections) projects.push({ ...projectView(c), ...(await (await openSync(c, io, dataDir, true)).inspect()) });
    const problems = projects.some((p) => p.conflicts.length > 0 || p.waiting.some(waitingNeedsYou) || p.lastError);
    if (values.json) {
      printJson(io, {
        connected: account !== null,
        account: account ? accountView(account) : null,
        projects: projects.map(({ resolved: _resolved, ...p }) => p),
      });
      return problems ? EXIT_PROBLEMS : EXIT_OK;
    }
    if (!account) io.out('Personal sync is not set up on this machine (memdir personal connect --server URL --token-stdin --passphrase-stdin).\n');
    else io.out(`Connected as ${account.member} to ${account.user}'s personal space at ${account.server}; key ${account.keyId}.\n`);
    for (const p of projects) {
      io.out(
        `${p.dir ?? p.memoryDir}: synced under ${p.identity?.detail ?? '?'}; last pull ${p.lastPullAt ?? 'never'}, last push ${p.lastPushAt ?? 'never'}; ${p.files} file(s) here.\n`,
      );
      for (const w of p.waiting) io.out(`  ${w.reason === 'pending' ? 'Waiting' : 'Held back'}: ${waitingItemName(w)} — ${w.detail}\n`);
      for (const c of p.conflicts) io.out(`  Conflict ${c.id}: ${c.key} (changed on ${c.serverUpdatedBy ?? '?'} too; yours is kept).\n`);
      if (p.lastError) io.out(`  ${lastSyncFailed(p.lastError)}\n`);
    }
    if (account && projects.length === 0) io.out('No project is synced yet: memdir personal connect --project <dir>.\n');
    return problems ? EXIT_PROBLEMS : EXIT_OK;
  },
};

export const personalSyncCommand: CommandSpec = {
  name: ['personal', 'sync'],
  summary:
    'Sync once: every project synced with your personal space (or one): pull (other machines win per file, your unpushed edits merged or kept as conflicts), then push.',
  args: [],
  options: { project: optionalProjectOption, home: homeOption, json: jsonOption },
  details: `Deletions are never pushed: a file deleted here comes back. Files holding a secret are not uploaded, even
encrypted. A server whose personal space is now encrypted with another key stops the sync before anything is
written or sent (connect again with that passphrase).
JSON: {"projects": [{"project": {"dir", "memoryDir"}, <the report of \`memdir team sync --json\`>}]}
Exit codes: 0 synced, 1 conflicts open, files held back or entries refused (not a claude-code-store folder and what
it leaves out) — it waits for you, 2 a sync failed: the server could not be reached or answered with an error, or
the token was refused (one line on stderr says which; your changes are kept), or this machine is not connected.`,
  async run({ values, io }) {
    const dataDir = dataDirOf(io);
    let connections = await personalConnections(dataDir)
      .list()
      .catch(() => []);
    if (typeof values.project === 'string') connections = [(await requireProject(values, io)).connection];
    if (connections.length === 0)
      throw new CliFailure('no project is synced with your personal space on this machine: memdir personal connect --project <dir>.');
    const results = [];
    let code = EXIT_OK;
    for (const connection of connections) {
      const sync = await openSync(connection, io, dataDir);
      const report = await sync.sync();
      const { conflicts } = await sync.inspect();
      code = Math.max(code, syncExitCode(report, conflicts.length));
      results.push({ project: { dir: connection.dir, memoryDir: connection.memoryDir }, ...report });
      if (!values.json) {
        io.out(`${connection.dir ?? connection.memoryDir}:\n`);
        describeReport(io, report, connection, 'memdir personal sync', personalWords(connection), conflicts);
      }
    }
    if (values.json) printJson(io, { projects: results });
    return code;
  },
};

export const personalConflictsCommand: CommandSpec = {
  name: ['personal', 'conflicts'],
  summary: "A project's open personal sync conflicts: both versions, their base and the three-way merge proposal.",
  args: [],
  options: { project: projectOption, home: homeOption, json: jsonOption },
  details: `A conflict is kept when your edits here and another machine's overlap in lines (edits to different lines are
merged). The other machine's version is on disk ("theirsFrom": "disk"; after the undo of an earlier keep
server, as last synced: see \`memdir team conflicts --help\`); yours is kept in Memdir's data folder and in history.
JSON: as \`memdir team conflicts --json\` (keys are paths in the memory directory).
Exit codes: 0 no conflict, 1 conflicts to resolve, 2 error.`,
  async run({ values, io }) {
    const { loc, connection, dataDir } = await requireProject(values, io);
    return printConflicts(io, values, loc, await openSync(connection, io, dataDir, true), personalWords(connection));
  },
};

export const personalResolveCommand: CommandSpec = {
  name: ['personal', 'resolve'],
  summary: "Resolve a personal sync conflict: keep mine, the other machine's, both, or a merged text — one history entry, one undo.",
  args: ['<id>'],
  options: {
    project: projectOption,
    keep: { type: 'string', valueName: 'mine|server|both|merged', description: 'which version to keep', required: true },
    file: { type: 'string', valueName: 'F', description: "with --keep merged: the merged text (else the sync's own three-way merge, when nothing overlaps)" },
    allow: allowSecretOption,
    home: homeOption,
    json: jsonOption,
  },
  details: `As \`memdir team resolve\`: --keep server keeps the other machine's version (as on disk, or as last synced after the undo of an earlier keep; one history entry: yours
recorded just before it, its undo puts yours back); mine, both and merged write (history entry, source "sync") and push. JSON: as \`memdir team resolve --json\`.
${ALLOW_SECRET_HELP}
Exit codes: 0 resolved (and pushed), 1 resolved but not pushed yet, 2 refused.`,
  async run({ positionals, values, io }) {
    checkKeep(values);
    const { loc, connection, dataDir } = await requireProject(values, io);
    return resolveFromCli(io, positionals[0]!, values, loc, (localOnly) => openSync(connection, io, dataDir, localOnly), connection, personalWords(connection));
  },
};

export const personalDisconnectCommand: CommandSpec = {
  name: ['personal', 'disconnect'],
  summary: 'Stop syncing one project (--project), or disconnect this machine from your personal space; files, history and conflicts stay.',
  args: [],
  options: { project: optionalProjectOption, home: homeOption, json: jsonOption },
  details: `Without --project, this machine forgets the account, its token and its key, and every project stops syncing;
nothing is deleted on the server or here.
JSON: {"disconnected": bool, "projects": n}`,
  async run({ values, io }) {
    const dataDir = dataDirOf(io);
    if (typeof values.project === 'string') {
      const loc = await locate(values, io);
      const stopped = await disableProject(dataDir, loc.memoryDir);
      if (values.json) printJson(io, { disconnected: stopped, projects: stopped ? 1 : 0 });
      else io.out(stopped ? `${loc.dir} is no longer synced with your personal space.\n` : `${loc.dir} was not synced with your personal space.\n`);
      return EXIT_OK;
    }
    // The desktop app's encrypted store cannot be rewritten here: its entries stay until the app disconnects.
    const result = await disconnectAccount(dataDir, credentialsEncrypted(dataDir) ? null : credentialsOf(dataDir));
    if (values.json) printJson(io, result);
    else
      io.out(
        result.disconnected
          ? `Disconnected this machine from your personal space (${result.projects} project(s) stop syncing).\n`
          : 'This machine was not connected to a personal space.\n',
      );
    return EXIT_OK;
  },
};
