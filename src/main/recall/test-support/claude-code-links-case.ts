/**
 * Links out of the memory directory, as the real Claude Code 2.1.332 offers them to its recall
 * (test/fixtures/claude-code/recall-links-2.1.332.json): a memory file that is a link to a file
 * outside, and a folder that is a link to a folder outside. The client follows both and offers
 * their memories; Memdir does not follow them, and its scan must say so — the client's view
 * being wider than Memdir's list. The live test (claude-code-interop.test.ts, 'links out') lays
 * them out and records; list-memory-files.test.ts replays the recording without the binary.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export const RECALL_LINKS_FIXTURE = path.resolve(__dirname, '../../../../test/fixtures/claude-code/recall-links-2.1.332.json');

/** What the fixture holds. */
export interface RecallLinksRecording {
  claudeCode: string;
  how: string;
  /** The selector's manifest lines (without `- ` and the time) of files reached through the links. */
  offered: string[];
}

const memory = (name: string) => `---\nname: ${name}\ndescription: reached through a link\ntype: project\n---\n\nBody.\n`;

/** Lay the links out in `memoryDir`, their targets in `outside` (a folder beside it, created). */
export async function writeLinksOut(memoryDir: string, outside: string): Promise<void> {
  await fs.mkdir(path.join(outside, 'folder'), { recursive: true });
  await fs.writeFile(path.join(outside, 'folder', 'far.md'), memory('Far'));
  await fs.writeFile(path.join(outside, 'file.md'), memory('Linked file'));
  await fs.symlink(path.join(outside, 'folder'), path.join(memoryDir, 'linked'));
  await fs.symlink(path.join(outside, 'file.md'), path.join(memoryDir, 'linked-file.md'));
}

/** The manifest lines of files reached through {@link writeLinksOut}'s links, without `- ` and the time, sorted. */
export function offeredThroughLinks(manifest: string): string[] {
  return manifest
    .split('\n')
    .filter((l) => /^- (?:\[\w+\] )?linked/.test(l))
    .map((l) => l.slice(2).replace(/ \([^)]*Z\)/, ''))
    .sort();
}
