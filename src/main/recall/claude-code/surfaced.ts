/**
 * "Already surfaced" as Claude Code derives it (2.1.332): the memories its recall loaded earlier
 * in the session are the `relevant_memories` attachments of the conversation, which the
 * transcript records as `{"type": "attachment", "attachment": {"type": "relevant_memories",
 * "memories": [{"path", "content", "mtimeMs", "header"}]}}`. A recall never loads them again,
 * and once their contents add up to 60 KiB the session recalls nothing more.
 *
 * The selector conversation itself (earlier queries and answers) lives only in Claude Code's
 * memory: a resumed session starts it afresh, which is what reading a transcript here gives.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { listProjectDirs, projectsRoot } from '../../memdir/index.js';
import { readLines } from '../../transcripts/index.js';

/** Claude Code stops recalling in a session once this many characters of memories were loaded. */
export const SESSION_RECALL_BUDGET_CHARS = 61_440;

/** Memories a session already loaded: relative file → characters of content. */
export type SurfacedMemories = Map<string, number>;

/** Find a session's transcript: a path to a `.jsonl` file, or a session id looked up under `projects/`. */
export async function findTranscript(home: string, session: string): Promise<string | null> {
  if (session.endsWith('.jsonl') || /[\\/]/.test(session)) {
    const stat = await fs.stat(session).catch(() => null);
    return stat?.isFile() ? path.resolve(session) : null;
  }
  if (!/^[A-Za-z0-9._-]+$/.test(session)) return null;
  for (const dir of await listProjectDirs(home)) {
    const file = path.join(projectsRoot(home), dir, `${session}.jsonl`);
    if ((await fs.stat(file).catch(() => null))?.isFile()) return file;
  }
  return null;
}

/**
 * The memories of `memoryDir` one transcript line shows recall loading (in order, with their
 * characters), or null when the line is not a recall attachment.
 */
export function recalledInLine(line: string, memoryDir: string): { file: string; chars: number }[] | null {
  if (!line.includes('"relevant_memories"')) return null;
  let record: { type?: unknown; attachment?: { type?: unknown; memories?: unknown } };
  try {
    record = JSON.parse(line) as typeof record;
  } catch {
    return null;
  }
  if (record?.type !== 'attachment' || record.attachment?.type !== 'relevant_memories' || !Array.isArray(record.attachment.memories)) return null;
  const root = path.resolve(memoryDir);
  const found: { file: string; chars: number }[] = [];
  for (const memory of record.attachment.memories as { path?: unknown; content?: unknown }[]) {
    if (typeof memory?.path !== 'string') continue;
    const file = path.relative(root, path.resolve(memory.path));
    if (file.startsWith('..') || path.isAbsolute(file)) continue;
    found.push({ file, chars: typeof memory.content === 'string' ? memory.content.length : 0 });
  }
  return found;
}

/** The memories of `memoryDir` a transcript shows as surfaced by recall. Bad lines are skipped. */
export async function surfacedInTranscript(transcript: string, memoryDir: string): Promise<SurfacedMemories> {
  const surfaced: SurfacedMemories = new Map();
  for await (const event of readLines(transcript, { final: true })) {
    if (event.kind !== 'line') continue;
    for (const { file, chars } of recalledInLine(event.text, memoryDir) ?? []) surfaced.set(file, (surfaced.get(file) ?? 0) + chars);
  }
  return surfaced;
}

/** Characters of memories the session loaded so far (what Claude Code weighs against its budget). */
export function surfacedChars(surfaced: SurfacedMemories): number {
  let total = 0;
  for (const chars of surfaced.values()) total += chars;
  return total;
}
