/**
 * The memory folders without MEMORY.md recorded from the real Claude Code 2.1.332
 * (test/fixtures/claude-code-index/observed-built.json): the files of each case (text, and the
 * mtime each file gets), the MEMORY.md the client left on disk after `claude -p hello` and the
 * index its transcript recorded as injected. index-build-live.test.ts lays them out, runs the
 * client and compares with the recording (`MEMDIR_RECORD_INDEX_FIXTURES=1` rewrites it);
 * index-build.test.ts replays the recording against Memdir without the binary.
 */
import fs from 'node:fs';
import path from 'node:path';

export const BUILT_CASE_FIXTURE = path.resolve(import.meta.dirname, '../fixtures/claude-code-index/observed-built.json');

/** A file of a case: its text and its mtime (seconds); `link`: a symbolic link to that file of the case instead. */
export type CaseFile = { text: string; mtime: number } | { link: string };

/** One case as laid out, and what the client did with it. */
export interface BuiltCase {
  files: Record<string, CaseFile>;
  /** Extra environment of the run (auto memory off). */
  env?: Record<string, string>;
  /**
   * Settings files of the run (auto memory off by a setting): `user` the config dir's settings.json,
   * `project` and `local` the launch directory's .claude/settings.json and settings.local.json.
   */
  settings?: Partial<Record<'user' | 'project' | 'local', Record<string, unknown>>>;
  /** MEMORY.md after the run (null: there is none). */
  written: string | null;
  /** The index text the transcript recorded as injected (null: none). */
  injected: string | null;
}

export interface BuiltFixture {
  claudeCode: string;
  how: string;
  cases: Record<string, BuiltCase>;
}

const T0 = 1_767_225_600;
const memory = (name: string, description: string | null) =>
  `---\nname: ${name}\n${description === null ? '' : `description: ${description}\n`}type: project\n---\n\nAbout ${name}.\n`;

/** The cases, without what the client did (`written`, `injected`). */
export function caseInputs(): Record<string, Omit<BuiltCase, 'written' | 'injected'>> {
  const mixed: Record<string, CaseFile> = {};
  const order = [
    ['alpha.md', memory('Alpha memory', 'short alpha hook')],
    ['beta_feedback.md', memory('Beta', 'word '.repeat(80).trim())],
    ['gamma.md', memory('Gamma', 'gamma   hook  with   spaces')],
    ['nofm.md', 'no frontmatter here\n'],
    ['notes.txt', 'not markdown\n'],
    ['.hidden.md', memory('Hidden', 'hidden hook')],
    ['sub/deep.md', memory('Deep', 'deep hook')],
    ['sub/MEMORY.md', memory('Sub index', 'a MEMORY.md in a subfolder')],
    ['team/t.md', memory('Team', 'team hook')],
    ['memory.md', memory('Lower', 'lower-case memory.md')],
    ['logs/l.md', memory('Log', 'log hook')],
    ['a[b].md', memory('Bracket', 'a bracket in the name')],
    ['nodesc.md', memory('No description', null)],
    ['emoji.md', memory('Emoji', `${'x'.repeat(120)} 😀😀😀 tail words here`)],
    ['a-very-long-file-name-that-leaves-almost-no-room-for-a-hook-after-the-link-itself-in-the-built-index-line.md', memory('Long', 'a hook with no room')],
  ] as const;
  order.forEach(([file, text], i) => (mixed[file] = { text, mtime: T0 + 60 * i }));
  // Two files of one mtime, older than the rest; a link to a memory.
  mixed['tie1.md'] = { text: memory('Tie one', 'tie one'), mtime: T0 - 3600 };
  mixed['tie2.md'] = { text: memory('Tie two', 'tie two'), mtime: T0 - 3600 };
  mixed['link.md'] = { link: 'alpha.md' };
  const many = (hook: (i: number) => string) =>
    Object.fromEntries(Array.from({ length: 160 }, (_, i) => [`m${100 + i}.md`, { text: memory(`M${100 + i}`, hook(100 + i)), mtime: T0 + i }]));
  const one = { 'a.md': { text: memory('A', 'a hook'), mtime: T0 } };
  return {
    mixed: { files: mixed },
    'lines-limit': { files: many((i) => `d${i}`) },
    'chars-limit': { files: many((i) => `memory number ${i} ${'lorem ipsum '.repeat(15).trim()}`) },
    'empty-index': { files: { ...one, 'MEMORY.md': { text: '', mtime: T0 } } },
    'blank-index': { files: { ...one, 'MEMORY.md': { text: '  \n\n', mtime: T0 } } },
    'team-only': { files: { 'team/a.md': { text: memory('A', 'a team hook'), mtime: T0 } } },
    // The keys Memdir keeps on edit, under `metadata:` as the client writes them; one description only there.
    'nested-keys': {
      files: {
        'nested-desc.md': {
          text: '---\nname: nested-desc\nmetadata:\n  type: reference\n  description: a description only under metadata\n  modified: 2031-06-01T00:00:00.000Z\n---\n\nBody.\n',
          mtime: T0 + 60,
        },
        'nested-keys.md': {
          text: '---\nname: nested-keys\ndescription: flat description, nested keys\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 11111111-2222-4333-8444-555555555555\n  modified: 2020-01-01T00:00:00.000Z\n---\n\nBody.\n',
          mtime: T0,
        },
      },
    },
    'memory-off': { files: one, env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' } },
    'memory-off-user': { files: one, settings: { user: { autoMemoryEnabled: false } } },
    'memory-off-project': { files: one, settings: { project: { autoMemoryEnabled: false } } },
    'memory-off-local': { files: one, settings: { local: { autoMemoryEnabled: false } } },
  };
}

/** Whether a case turns auto memory off (the environment switch or a setting). */
export function memoryOffIn(c: Pick<BuiltCase, 'env' | 'settings'>): boolean {
  return c.env?.CLAUDE_CODE_DISABLE_AUTO_MEMORY === '1' || Object.values(c.settings ?? {}).some((s) => s.autoMemoryEnabled === false);
}

/** Write a case's settings files: the user's in `configDir`, the project's and local ones in `launchDir`/.claude. */
export function writeCaseSettings(c: Pick<BuiltCase, 'settings'>, configDir: string, launchDir: string): void {
  const where = {
    user: path.join(configDir, 'settings.json'),
    project: path.join(launchDir, '.claude', 'settings.json'),
    local: path.join(launchDir, '.claude', 'settings.local.json'),
  };
  for (const [scope, values] of Object.entries(c.settings ?? {}) as [keyof typeof where, Record<string, unknown>][]) {
    fs.mkdirSync(path.dirname(where[scope]), { recursive: true });
    fs.writeFileSync(where[scope], `${JSON.stringify(values)}\n`);
  }
}

/** Lay a case's files out in `memoryDir`. */
export function layOut(memoryDir: string, files: Record<string, CaseFile>): void {
  for (const [file, f] of Object.entries(files)) {
    const abs = path.join(memoryDir, file);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    if ('link' in f) fs.symlinkSync(path.join(memoryDir, f.link), abs);
    else {
      fs.writeFileSync(abs, f.text);
      fs.utimesSync(abs, f.mtime, f.mtime);
    }
  }
}
