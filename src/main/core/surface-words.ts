/**
 * How a person does something, in the words of each surface that shows a sentence: the app's (a
 * Settings field, a tab, a click) and the terminal's (an environment variable, a `memdir` command,
 * a key of Memdir's `<data dir>/settings.json`). A sentence that tells how is written once and asks
 * `way()` here for its words: the terminal's while a `memdir` command runs (src/cli/main.ts wraps
 * each run in `inTerminal`), the app's otherwise. One table with both columns: a rewording cannot
 * reach one surface and miss the other. Nothing rewrites text after it is made — a memory that
 * happens to hold the app's words prints as written. A sentence that is saved (a log's reason) is
 * not asked here: it is shown later on either surface, so it is worded true for both.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const WAYS = {
  moreModelTime: {
    app: 'allow more time in Settings',
    cli: "allow more time (model.timeoutMs, or recall.timeoutMs for a recall, in Memdir's settings.json)",
  },
  baseUrl: { app: 'the base URL in Settings (or ANTHROPIC_BASE_URL)', cli: "ANTHROPIC_BASE_URL (or model.baseURL in Memdir's settings.json)" },
  checkKey: { app: 'Check the key in Settings or ANTHROPIC_API_KEY', cli: "Check ANTHROPIC_API_KEY (or the key saved in the app's Settings)" },
  providerChosen: { app: 'is chosen in Settings', cli: "is chosen in Memdir's settings (model.provider in settings.json)" },
  addKey: { app: 'add one in Settings or set ANTHROPIC_API_KEY', cli: "set ANTHROPIC_API_KEY (or save one in the app's Settings)" },
  addKeyToUse: { app: 'Add a key in Settings to use a model.', cli: 'Set ANTHROPIC_API_KEY to use a model.' },
  addApiKey: { app: 'add an API key in Settings.', cli: 'set ANTHROPIC_API_KEY.' },
  recallModel: { app: 'the recall model in Settings', cli: "the recall model (model.models.recall in Memdir's settings.json)" },
  confirmDream: { app: 'Review and confirm it in the Dream tab.', cli: "Review it, then apply it with `memdir dream confirm` and the dream's id." },
  personalConnect: { app: 'connect again in Settings → Personal sync.', cli: 'connect again with `memdir personal connect`.' },
} as const satisfies Record<string, { app: string; cli: string }>;

type Surface = 'app' | 'cli';
const surface = new AsyncLocalStorage<Surface>();

/** Runs `fn` (a `memdir` command) so that every way said inside it, awaits included, is the terminal's. */
export function inTerminal<T>(fn: () => T): T {
  return surface.run('cli', fn);
}

/** How to do `key`, in the words of the surface this runs for: the terminal's inside `inTerminal`, else the app's. */
export function way(key: keyof typeof WAYS): string {
  return WAYS[key][surface.getStore() ?? 'app'];
}
