/** Process helpers shared by the locks (issue 17: one `isProcessAlive` instead of two). */
import { errCode } from './fs-errors.js';

/** The largest pid any platform hands out (Linux caps at 2^22, but a lock file may say anything). */
export const MAX_PID = 2 ** 31 - 1;

/**
 * `kill(pid, 0)`: alive, or alive but someone else's (EPERM). A number no single process can have
 * is not alive: `kill(0, 0)` would ask about our own process group and `kill(-1, 0)` about every
 * process we may signal, both "alive". (Claude Code's lock also refuses pid 1: its parser,
 * `parseLockContent`, says so; a Memdir in a container may well be pid 1.)
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid > MAX_PID) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errCode(err) === 'EPERM';
  }
}
