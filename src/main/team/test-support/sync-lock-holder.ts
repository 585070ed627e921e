/**
 * Child process for the sync-state lock test: takes the lock of a connection's state folder,
 * prints "locked", and holds it until it is killed.
 *   sync-lock-holder.ts <stateDir>
 */
import { lockSyncState } from '../sync-state.js';

await lockSyncState(process.argv[2] ?? '');
process.stdout.write('locked\n');
setInterval(() => undefined, 1000);
