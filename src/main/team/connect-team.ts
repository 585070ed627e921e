/**
 * Connecting a project's team memory to a sync server — the one way, shared by the app's Team
 * sync view (TeamService.connect) and `memdir team connect` (issue 17, item 1: it was written
 * twice, and the two had drifted in their wording).
 */
import type { CredentialStore } from '../settings/index.js';
import { type ConnectionStore, type TeamConnection, TeamConfigError, checkServerUrl, checkTeamName, tokenCredentialName, tokenIdOf } from './connections.js';
import { TeamClient } from './team-client.js';

/** What to connect, as the person gave it. */
export interface ConnectTeamInput {
  memoryDir: string;
  /** The project's directory name under projects/. */
  dir: string;
  server: string;
  team: string;
  token: string;
  allowHttp?: boolean;
  pullIntervalSec?: number;
}

/** Where the connection and its token are kept, and what the caller does around the change. */
export interface ConnectTeamDeps {
  connections: ConnectionStore;
  credentials: CredentialStore;
  fetch?: typeof fetch;
  /**
   * Called once the server accepted the token, before the connection changes: the app stops the
   * previous connection's engine, whose last writes to the sync state must not land after `save`
   * has started that state over for another server or team.
   */
  beforeSave?: (previous: TeamConnection | null) => Promise<void>;
  /** The connection or its token could not be stored (the app lets the previous engine run again). */
  saveFailed?: (previous: TeamConnection | null) => void;
}

/**
 * Check the URL, the team name and the token's shape; ask the server who the token belongs to (it
 * must be this team) and whether it answers; then keep the connection in the data dir and the token
 * in the credential store. Nothing is stored when any check fails. The first sync is the caller's.
 */
export async function connectTeam(input: ConnectTeamInput, deps: ConnectTeamDeps): Promise<{ connection: TeamConnection; previous: TeamConnection | null }> {
  const server = await checkServerUrl(input.server, input.allowHttp === true);
  const team = await checkTeamName(input.team);
  const token = input.token.trim();
  const tokenId = tokenIdOf(token);
  if (!tokenId) throw new TeamConfigError('That is not a Memdir team token (they look like mdt_…, from `memdir server admin issue-token`).');
  const client = new TeamClient({ server, team, token, ...(deps.fetch ? { fetch: deps.fetch } : {}), timeoutMs: 15_000 });
  const me = await client.me();
  // A personal token reaches no team at all (its `team` is the space's internal name, never one to connect to).
  if (me.scope === 'personal')
    throw new TeamConfigError(
      `This is a token of ${me.user ?? 'someone'}'s personal space; team sync needs a token of team "${team}" (memdir server admin issue-token ${team} --member <name>).`,
    );
  if (me.team !== team)
    throw new TeamConfigError(`This token belongs to team "${me.team}", not "${team}". Use a token issued for ${team}, or connect to ${me.team}.`);
  await client.checksums();
  const previous = await deps.connections.forMemoryDir(input.memoryDir);
  await deps.beforeSave?.(previous);
  try {
    const connection = await deps.connections.save({
      memoryDir: input.memoryDir,
      dir: input.dir,
      server,
      team,
      member: me.member,
      tokenId,
      connectedAt: new Date().toISOString(),
      pullIntervalSec: input.pullIntervalSec ?? previous?.pullIntervalSec ?? 60,
    });
    await deps.credentials.set(tokenCredentialName(connection.id), token);
    return { connection, previous };
  } catch (error) {
    deps.saveFailed?.(previous);
    throw error;
  }
}
