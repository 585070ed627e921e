/**
 * Disconnecting a project's team memory from its sync server — the one way, shared by the app's
 * Team sync view (TeamService.disconnect) and `memdir team disconnect` (issue 17, item 1: it was
 * written twice). The team files, their history and the conflicts stay; the connection and its
 * stored token go. An app running while the CLI disconnects notices the connection is gone at its
 * next scheduler tick (SyncScheduler: its engine stops, the Team sync view is told).
 */
import type { CredentialStore } from '../settings/index.js';
import { type ConnectionStore, type TeamConnection, tokenCredentialName } from './connections.js';

/** Where the connection and its token are kept, and what the caller does around the change. */
export interface DisconnectTeamDeps {
  connections: ConnectionStore;
  /** Where the token is; null when this process cannot change that store (the CLI, when the app keeps it encrypted). */
  credentials: CredentialStore | null;
  /** Called before the connection is removed: the app stops its engine, whose writes to the sync state must end first. */
  beforeRemove?: (connection: TeamConnection) => Promise<void>;
  /** The connection could not be removed (the app lets its engine run again). */
  removeFailed?: (connection: TeamConnection) => void;
}

/** What a disconnect did. */
export interface DisconnectTeamResult {
  /** The connection removed; null when the project was not connected. */
  connection: TeamConnection | null;
  /** Whether the stored token was deleted (false: there was no connection, or the store could not be changed here). */
  tokenDeleted: boolean;
}

/**
 * Forget the connection of the memory dir `memoryDir`, then its token. A token that cannot be
 * deleted does not undo the disconnect (the connection, which names the server, is gone; the
 * token alone syncs nothing): `tokenDeleted` says so.
 */
export async function disconnectTeam(memoryDir: string, deps: DisconnectTeamDeps): Promise<DisconnectTeamResult> {
  const connection = await deps.connections.forMemoryDir(memoryDir);
  if (!connection) return { connection: null, tokenDeleted: false };
  await deps.beforeRemove?.(connection);
  try {
    await deps.connections.remove(connection.id);
  } catch (error) {
    deps.removeFailed?.(connection);
    throw error;
  }
  const tokenDeleted = deps.credentials
    ? await deps.credentials.delete(tokenCredentialName(connection.id)).then(
        () => true,
        () => false,
      )
    : false;
  return { connection, tokenDeleted };
}
