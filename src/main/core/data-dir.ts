/**
 * Memdir's own data directory: history repositories, locks, caches, settings, session notes.
 * Never inside the user's memory dir or repository. `MEMDIR_DATA_DIR` overrides the platform
 * default (tests and portable installs use it).
 */
import os from 'node:os';
import path from 'node:path';

export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MEMDIR_DATA_DIR) return path.resolve(env.MEMDIR_DATA_DIR);
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Memdir');
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Memdir');
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'memdir');
}

let chosen: string | null = null;

/**
 * Say which data dir this process works in, when its front door knows it better than the
 * process's own environment (the CLI from the environment it was given, the app's context from
 * its options). What lives there for the whole process reads it with {@link processDataDir}.
 */
export function workInDataDir(dataDir: string): void {
  chosen = path.resolve(dataDir);
}

/** The data dir this process works in: the one its front door named, else its environment's. */
export function processDataDir(): string {
  return chosen ?? resolveDataDir(process.env);
}
