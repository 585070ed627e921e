/**
 * Personal sync: one person's private memory across their machines, end-to-end encrypted.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export {
  connectAccount,
  disableProject,
  disconnectAccount,
  enableProject,
  openPersonalSync,
  openPersonalSyncLocal,
  PASSPHRASE_WARNING,
  personalConnections,
  PersonalSyncError,
  readAccount,
} from './personal-account.js';
export { PersonalService } from './personal-service.js';
export { givenIdentity, identifyByRepository, type SyncIdentity } from './project-key.js';
