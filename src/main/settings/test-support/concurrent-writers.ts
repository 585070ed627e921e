/**
 * What the concurrent-writer tests of settings.json and credentials.json have each writer save:
 * the app saves its settings while `memdir` in a terminal saves others, each one at a time.
 */
import type { AppSettingsPatch } from '../app-settings.js';

/** Per writer, settings each set once to a value other than its default (so a lost one shows). */
export const SETTINGS_PATCHES: Record<'app' | 'cli', AppSettingsPatch[]> = {
  app: [
    { theme: 'dark' },
    { model: { provider: 'offline' } },
    { model: { timeoutMs: 90_000 } },
    { model: { maxRetries: 5 } },
    { dream: { minHours: 12 } },
    { dream: { minSessions: 9 } },
    { dream: { maxTurns: 20 } },
    { dream: { checkEveryMinutes: 30 } },
  ],
  cli: [
    { recall: { timeoutMs: 30_000 } },
    { recall: { searchBodies: true } },
    { extraction: { enabled: false } },
    { extraction: { mode: 'apply' } },
    { extraction: { quietSeconds: 10 } },
    { session: { idleMinutes: 300 } },
    { session: { enabled: false } },
    { workspaces: { folders: ['/home/me/work'] } },
  ],
};
