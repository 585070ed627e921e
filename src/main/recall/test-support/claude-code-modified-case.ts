/**
 * Does Claude Code 2.1.332 read or write the frontmatter keys Memdir keeps on edit (`modified`,
 * `originSessionId`, flat or under `metadata:`)? Memories with a `modified` that disagrees with the
 * file's mtime (years older, years newer), one without, and one whose description is only under
 * `metadata:`, written beside the recall scenario and recalled in one session. Recorded in
 * test/fixtures/claude-code/recall-modified-2.1.332.json: the selector's manifest lines for these
 * files (their order and times), what it then loaded, and whether the session changed the files.
 * The live check is in claude-code-interop.test.ts; recall-like-claude-code.test.ts replays it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export const RECALL_MODIFIED_FIXTURE = path.join('test', 'fixtures', 'claude-code', 'recall-modified-2.1.332.json');

/** 2026-01-01T12:00:00Z in seconds: the recall scenario's clock (its newest file is 15 s older). */
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0) / 1000;

/** The files, newest mtime first (seconds before T0); each `modified` disagrees with its mtime. */
export const MODIFIED_FILES: readonly { file: string; text: string; age: number }[] = [
  {
    file: 'mod_flat_old.md',
    text: '---\nname: Flat old\ndescription: flat modified years before its mtime\ntype: project\noriginSessionId: 11111111-2222-4333-8444-555555555555\nmodified: 2020-01-01T00:00:00.000Z\n---\nFlat.\n',
    age: 2,
  },
  { file: 'mod_none.md', text: '---\nname: None\ndescription: no modified at all\ntype: user\n---\nNone.\n', age: 3 },
  {
    file: 'mod_nested_future.md',
    text: '---\nname: nested-future\ndescription: nested modified years after its mtime\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 11111111-2222-4333-8444-555555555555\n  modified: 2031-01-01T00:00:00.000Z\n---\n\nNested.\n',
    age: 4,
  },
  {
    file: 'mod_nested_desc.md',
    text: '---\nname: nested-desc\nmetadata:\n  type: reference\n  description: a description only under metadata\n  modified: 2031-06-01T00:00:00.000Z\n---\n\nNested description.\n',
    age: 5,
  },
];

/** The prompt, and the selector's answer: the two files whose `modified` lies most. */
export const MODIFIED_QUERY = {
  query: 'what do we know about the flat and nested memories',
  answer: '{"selected_memories":["mod_flat_old.md","mod_nested_future.md"]}',
};

/** Write the files into `memoryDir` with their mtimes (after the scenario: they are the newest). */
export async function writeModifiedFiles(memoryDir: string): Promise<void> {
  for (const { file, text, age } of MODIFIED_FILES) {
    const abs = path.join(memoryDir, file);
    await fs.writeFile(abs, text);
    await fs.utimes(abs, T0 - age, T0 - age);
  }
}

/** Each file's text and mtime (ms) now: what a session must leave as it was. */
export async function modifiedFilesNow(memoryDir: string): Promise<Record<string, { text: string; mtimeMs: number }>> {
  const out: Record<string, { text: string; mtimeMs: number }> = {};
  for (const { file } of MODIFIED_FILES) {
    const abs = path.join(memoryDir, file);
    out[file] = { text: await fs.readFile(abs, 'utf8'), mtimeMs: (await fs.stat(abs)).mtimeMs };
  }
  return out;
}

/** The manifest lines of the {@link MODIFIED_FILES}, in the order the manifest has them. */
export function modifiedLinesOf(manifest: string): string[] {
  return manifest.split('\n').filter((l) => /^- (?:\[\w+\] )?mod_/.test(l));
}

/** What {@link RECALL_MODIFIED_FIXTURE} holds. */
export interface RecallModifiedRecording {
  claudeCode: string;
  how: string;
  files: typeof MODIFIED_FILES;
  /** The selector's manifest lines for the files, in its order. */
  offered: string[];
  /** What the client loaded after the selector's answer. */
  loaded: string[][];
  /** Whether every file's bytes and mtime were as written after the session. */
  unchanged: boolean;
}
