/**
 * How a waiting item (contract/team.ts) reads to a person, and which ones a command's exit code
 * counts — one place for the CLI, the main process and the renderer. No zod here: the renderer's
 * first screen imports it (vite.config.ts).
 */
import type { WaitingItem } from './contract/team.js';

/** The key of a waiting item about the whole synced folder (personal sync under Claude Code's user store), not one file in it. */
export const WHOLE_FOLDER_KEY = '.';

/** A waiting item's key as a person reads it: `prefix` + the key (`team/`), or words for the whole folder. */
export function waitingItemName(item: Pick<WaitingItem, 'key'>, prefix = ''): string {
  return item.key === WHOLE_FOLDER_KEY ? `the whole ${prefix ? `${prefix.replace(/\/$/, '')} ` : 'memory '}folder` : `${prefix}${item.key}`;
}

/**
 * The `claude-code-store` item whose folder holds `key` — the whole synced folder, or the key's
 * first folder — if any: such a key is left to Claude Code's own sync, not missing here.
 */
export function claudeCodeStoreOver<T extends Pick<WaitingItem, 'key' | 'reason'>>(items: readonly T[], key: string): T | undefined {
  const slash = key.indexOf('/');
  return items.find((w) => w.reason === 'claude-code-store' && (w.key === WHOLE_FOLDER_KEY || (slash > 0 && w.key === key.slice(0, slash))));
}

/**
 * What a person is told after resolving a conflict on `key` here when the sync that followed
 * (`waiting`) left its folder to Claude Code: the resolution is written here and Memdir's server
 * does not get it. Null otherwise. `prefix`: `team/` for a team.
 */
export function resolvedInClaudeCodeStore(key: string, waiting: readonly WaitingItem[], prefix = ''): string | null {
  const store = claudeCodeStoreOver(waiting, key);
  if (!store) return null;
  const folder = store.key === WHOLE_FOLDER_KEY ? waitingItemName(store, prefix) : `${prefix}${store.key}/`;
  return `${prefix}${key} is saved here but not sent to Memdir's server: ${folder} is a folder Claude Code syncs itself, so its own sync takes it from there.`;
}

/**
 * Whether a waiting item is one the user can act on, so a command's exit code says "look" (1):
 * not a file waiting for the next push, nor a folder Claude Code syncs itself (left to it for good).
 */
export function waitingNeedsYou(item: Pick<WaitingItem, 'reason'>): boolean {
  return item.reason !== 'pending' && item.reason !== 'claude-code-store';
}
