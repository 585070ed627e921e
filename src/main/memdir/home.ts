/**
 * R-HOME: where Claude Code keeps its state (settings, projects, transcripts, agent memory).
 * Nothing here touches the disk: the home may not exist yet, and that is not an error.
 */
import os from 'node:os';
import path from 'node:path';

/**
 * The user's own home directory (the one `~` means), read from the given environment so tests
 * and callers with a custom environment agree with what they pass in.
 */
export function userHomeDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = process.platform === 'win32' ? env.USERPROFILE : env.HOME;
  return fromEnv && fromEnv.length > 0 ? fromEnv : os.homedir();
}

/**
 * Expand a leading `~` or `~/…` (also `~\…` on any platform, as Claude Code does) to the user's
 * home. `~user/…` is left alone: Node has no portable way to look another user up.
 */
export function expandTilde(p: string, env: NodeJS.ProcessEnv = process.env): string {
  if (p === '~') return userHomeDir(env);
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(userHomeDir(env), p.slice(2));
  return p;
}

/**
 * The agent home (R-HOME): `$CLAUDE_CONFIG_DIR` when set and non-empty (`~` expanded, made
 * absolute against the current directory), else `~/.claude`. NFC-normalised like Claude Code's
 * own config-home path, so keys and paths built on it compare equal to the ones it writes.
 * The directory is never required to exist.
 */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CLAUDE_CONFIG_DIR;
  const home = configured ? path.resolve(expandTilde(configured, env)) : path.join(userHomeDir(env), '.claude');
  return home.normalize('NFC');
}

/** `<home>/projects`: one directory per project, named by R-SANITIZE. */
export function projectsRoot(home: string): string {
  return path.join(home, 'projects');
}
