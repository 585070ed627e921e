/**
 * Recall in Claude Code 2.1.332's memory-store mode (`CLAUDE_MEMORY_STORES`), recorded with the
 * real client (src/main/recall/claude-code/claude-code-interop.test.ts) and replayed against
 * Memdir's Claude Code recall (scan-memories.test.ts): the one place that says what the runs are
 * and how a selector manifest is written down for them.
 */
import path from 'node:path';
import { LOADED_FILES } from '../../team/test-support/claude-code-stores-cases.js';

/** What the selector is offered with the setting and without it, on one memory dir. */
export const STORES_RECALL_FIXTURE = path.join('test', 'fixtures', 'claude-code', 'recall-stores-2.1.332.json');

/** What the client does with a setting it cannot use, and with the setting in a settings file's env block. */
export const STORES_SETTING_FIXTURE = path.join('test', 'fixtures', 'claude-code', 'stores-setting-2.1.332.json');

/** The prompt of every run (two words or more, so the selector is asked). */
export const STORES_RECALL_QUERY = 'how do we deploy the build';

/**
 * Files beside the stores' loading layout ({@link LOADED_FILES}) that pin the rule down: a store
 * file two levels down and one in a dot folder, a MEMORY.md in a team folder that is no store,
 * and files whose description is empty, null, a number, or missing (the line of text the client
 * then offers: blank lines skipped, `#`s and a space dropped, cut at 120 characters).
 */
export const STORES_RECALL_EXTRA: Record<string, string> = {
  'team/memstore_team/deep/b.md': '---\nname: B\ndescription: MARKER-STORE-DEEP-DESC\ntype: project\n---\n',
  'team/memstore_team/.hidden/h.md': '---\nname: H\ndescription: MARKER-STORE-HIDDEN-DESC\ntype: project\n---\n',
  'team/sub/MEMORY.md': '- [D](deeper.md) — MARKER-TEAMSUB-INDEX\n',
  'emptydesc.md': '---\nname: Empty\ndescription: ""\ntype: user\n---\nMARKER-EMPTYDESC-BODY\n',
  'nulldesc.md': '---\nname: Null\ndescription:\ntype: user\n---\nMARKER-NULLDESC-BODY\n',
  'numdesc.md': '---\nname: Num\ndescription: 42\ntype: user\n---\nMARKER-NUMDESC-BODY\n',
  'longline.md': `MARKER-LONG ${'abcdefghij '.repeat(14)}end\n`,
  'headings.md': '\n  \n###   Deep heading   \nrest\n',
  'nospace.md': '#NoSpace heading\n',
  'blank.md': '---\nname: Blank\ntype: user\n---\n\n   \n',
};

/** Every file the store-mode recall runs write into the memory dir beside the recall scenario. */
export const STORES_RECALL_FILES: Record<string, string> = { ...LOADED_FILES, ...STORES_RECALL_EXTRA };

/**
 * A selector's first message as the recordings keep it: its lines without `- `, sorted (files
 * written in one clock tick tie on time, so the newest-first order varies), the time of a file
 * written by the run (not the scenario's 2026-01-01) made `<time>`.
 */
export function recordedManifest(first: string): string[] {
  return first
    .replace(/^Available memories:\n- /, '')
    .replace(/\(20\d\d-\d\d-\d\dT[\d:.]+Z\)/g, (t) => (t.startsWith('(2026-01-01') ? t : '(<time>)'))
    .split('\n- ')
    .sort();
}

/** What {@link STORES_RECALL_FIXTURE} holds. */
export interface StoresRecallRecording {
  client: string | null;
  how: string;
  stores: string;
  files: Record<string, string>;
  query: string;
  withoutStores: string[];
  withStores: string[];
}

/** Values of `CLAUDE_MEMORY_STORES` the client cannot use as a store list (not JSON, an empty list, not a list, blanks). */
export const INVALID_STORE_VALUES = ['notjson', '[]', '{}', '   '] as const;
