/**
 * Team sync: connections to a sync server, the sync engine and its scheduler, alerts, moving a memory between scopes.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { AlertCenter } from './alert-center.js';
export { connectTeam, type ConnectTeamDeps, type ConnectTeamInput } from './connect-team.js';
export { disconnectTeam, type DisconnectTeamDeps, type DisconnectTeamResult } from './disconnect-team.js';
export {
  checkServerUrl,
  checkTeamName,
  connectionDir,
  ConnectionStore,
  isLoopbackHost,
  readToken,
  TeamConfigError,
  type TeamConnection,
  teamDataDir,
  tokenCredentialName,
  tokenIdOf,
} from './connections.js';
export { sha256Hex } from './hash-cache.js';
export { moveAllowsOf, moveMemoryScope } from './move-scope.js';
export {
  heldByServer,
  refuseChangingSharedKey,
  refuseRetiringUnshared,
  retiredInsteadOfDeleted,
  retiredNote,
  retireInstead,
  type SharedKeyChange,
} from './shared-keys.js';
export { type Running, SyncScheduler } from './sync-scheduler.js';
export { PERSONAL_SPACE } from './sync-space.js';
export { type CommitOutcome, type Conditional, type PulledEntries, type PutOutcome, type SpaceClient, TeamClient, TeamClientError } from './team-client.js';
export { TeamPathError } from './team-paths.js';
export { type TeamHost, TeamService, type TeamServiceOptions } from './team-service.js';
export type { TakenBack } from './sync/conflicts.js';
export { TeamSync, TeamSyncError, type TeamSyncOptions } from './team-sync.js';
