/**
 * What sub-agents were last given of their memory (R-AGENT), as their own transcripts recorded it.
 * Claude Code 2.1.332 writes a sub-agent's transcript to `<project>/<sessionId>/subagents/agent-<id>.jsonl`;
 * near its start an `attachment` record of type `prompt_snapshot` holds the sub-agent's system
 * prompt (`systemPrompt`: an array of strings). Its memory section names the memory directory
 * ("persistent, file-based memory system at `<dir>/`") and ends with `## MEMORY.md` and the index
 * text the sub-agent got, which closes its string (observed with the real client; checked live in
 * src/main/agents/claude-code-interop.test.ts).
 */
import path from 'node:path';
import { readLines } from './line-reader.js';
import { listTranscriptsIn } from './list-transcripts.js';

/** One sub-agent's memory as it was given to it. */
export interface SubAgentInjection {
  /** The memory directory its prompt named (no trailing separator). */
  memoryDir: string;
  /** The `## MEMORY.md` text it got; '' when its index was empty or absent (the client then says so in a sentence). */
  text: string;
  /** When it was given (the record's timestamp), or null when the record has none. */
  at: string | null;
  /** The session that launched the sub-agent. */
  sessionId: string;
}

/** What the client writes in place of an empty or absent index. */
const EMPTY_INDEX_SENTENCE = 'Your MEMORY.md is currently empty. When you save new memories, they will appear here.';
const SECTION = '\n## MEMORY.md\n\n';
/** The part of the prompt that follows the memory section when both share a string. */
const AFTER_SECTION = '\n\nMessages from the agent that launched you';
/** Sub-agent transcripts read, newest first: older ones can only repeat an older injection. */
const MAX_TRANSCRIPTS = 200;
/** A prompt snapshot comes within the first records; a transcript without one by then has none. */
const MAX_LINES = 50;

/** The memory section of one system prompt, or null when it has none. */
export function memorySectionOf(systemPrompt: readonly unknown[]): { memoryDir: string; text: string } | null {
  for (const part of systemPrompt) {
    if (typeof part !== 'string') continue;
    const dir = /persistent, file-based memory system at `([^`]+)`/.exec(part)?.[1];
    const start = part.indexOf(SECTION);
    if (!dir || start < 0) continue;
    const end = part.indexOf(AFTER_SECTION, start);
    const text = part.slice(start + SECTION.length, end < 0 ? undefined : end);
    return { memoryDir: dir.replace(/[/\\]+$/, ''), text: text === EMPTY_INDEX_SENTENCE ? '' : text };
  }
  return null;
}

/** The memory section of a sub-agent transcript's first prompt snapshot, with its timestamp. */
async function readInjection(file: string): Promise<{ memoryDir: string; text: string; at: string | null } | null> {
  let lines = 0;
  for await (const event of readLines(file)) {
    if (event.kind !== 'line') continue;
    if (++lines > MAX_LINES) break;
    if (!event.text.includes('"prompt_snapshot"')) continue;
    try {
      const record = JSON.parse(event.text) as { type?: unknown; timestamp?: unknown; attachment?: { type?: unknown; systemPrompt?: unknown } };
      if (record.type !== 'attachment' || record.attachment?.type !== 'prompt_snapshot' || !Array.isArray(record.attachment.systemPrompt)) continue;
      const section = memorySectionOf(record.attachment.systemPrompt);
      // The first snapshot is what it was launched with; one without memory means it had none.
      return section ? { ...section, at: typeof record.timestamp === 'string' ? record.timestamp : null } : null;
    } catch {
      // A half-written or foreign line: skipped, as SPEC §8 requires.
    }
  }
  return null;
}

/**
 * The newest injection into each of the `wanted` sub-agent memory directories, across the sub-agent
 * transcripts of the given transcript folders (a project's launch folders), keyed by the resolved
 * memory directory. Reading stops once each has been found.
 */
export async function lastSubAgentInjections(transcriptDirs: readonly string[], wanted: Iterable<string>): Promise<Map<string, SubAgentInjection>> {
  const left = new Set([...wanted].map((dir) => path.resolve(dir)));
  const files = (await listTranscriptsIn(transcriptDirs, { includeSubagents: true }).catch(() => [])).filter((f) => f.kind === 'subagent');
  const found = new Map<string, SubAgentInjection>();
  for (const file of files.slice(0, MAX_TRANSCRIPTS)) {
    if (left.size === 0) break;
    const injection = await readInjection(file.path).catch(() => null);
    const key = injection ? path.resolve(injection.memoryDir) : null;
    if (!injection || !key || !left.has(key)) continue;
    left.delete(key);
    found.set(key, { ...injection, sessionId: file.sessionId });
  }
  return found;
}
