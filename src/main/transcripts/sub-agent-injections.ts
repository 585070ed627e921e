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
import { type TranscriptFile, listTranscriptsIn } from './list-transcripts.js';

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
/** A prompt snapshot comes within the first records; a transcript without one by then has none. */
const MAX_LINES = 50;
/** Bytes per read: the snapshot is near the start, so a transcript's first chunk usually holds it. */
const CHUNK_BYTES = 64 * 1024;
/**
 * How much later than a transcript's last write its snapshot's timestamp may say it was given (a
 * file system keeping mtimes to the second or two, say) and still be found: older transcripts are
 * read until they were last written this long before the best injection found.
 */
const MTIME_SLACK_MS = 2000;
/** Transcripts read at once. */
const READ_AHEAD = 8;

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

/** A transcript's first snapshot's memory section, with its timestamp. */
type Injection = { memoryDir: string; text: string; at: string | null };

/** The memory section of a sub-agent transcript's first prompt snapshot, with its timestamp. */
async function readInjection(file: string): Promise<Injection | null> {
  let lines = 0;
  for await (const event of readLines(file, { chunkBytes: CHUNK_BYTES })) {
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
 * What each sub-agent transcript read in this process holds (its injection, or null for none), with
 * the size and mtime it had then: a transcript is read again only once it has changed, so opening
 * the Agents view again reads only transcripts new or changed since.
 */
const seen = new Map<string, { size: number; mtimeMs: number; injection: Injection | null }>();
/** One copy of each text given: many sub-agents are given the same index. */
const texts = new Map<string, string>();

async function injectionOf(file: TranscriptFile): Promise<Injection | null> {
  const known = seen.get(file.path);
  if (known && known.size === file.size && known.mtimeMs === file.mtimeMs) return known.injection;
  const read = await readInjection(file.path).catch(() => null);
  let text = read ? texts.get(read.text) : undefined;
  if (read && text === undefined) texts.set(read.text, (text = read.text));
  const injection = read && text !== undefined ? { ...read, text } : null;
  seen.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, injection });
  return injection;
}

/** When an injection was given, for comparing: one without a timestamp ranks below every one with. */
function givenMs(injection: Injection): number {
  const ms = injection.at === null ? NaN : Date.parse(injection.at);
  return Number.isFinite(ms) ? ms : -Infinity;
}

/**
 * The newest injection into each of the `wanted` sub-agent memory directories — the one given last,
 * by its snapshot's timestamp, whichever transcript was written last (sub-agents run side by side) —
 * across every sub-agent transcript of the given transcript folders (a project's launch folders),
 * the first 50 lines of each, keyed by the resolved memory directory. Transcripts are read newest
 * first, and reading stops once each directory has an injection given after the next transcript was
 * last written (it cannot hold a later one).
 */
export async function lastSubAgentInjections(transcriptDirs: readonly string[], wanted: Iterable<string>): Promise<Map<string, SubAgentInjection>> {
  const left = new Set([...wanted].map((dir) => path.resolve(dir)));
  const files = (await listTranscriptsIn(transcriptDirs, { includeSubagents: true }).catch(() => [])).filter((f) => f.kind === 'subagent');
  forgetGone(transcriptDirs, files);
  const found = new Map<string, SubAgentInjection & { ms: number }>();
  // Read a few ahead at a time: at most that many more than the early stop needs.
  const ahead: Promise<Injection | null>[] = [];
  for (const [i, file] of files.entries()) {
    if (left.size === found.size && [...found.values()].every((f) => f.ms > file.mtimeMs + MTIME_SLACK_MS)) break;
    while (ahead.length < i + READ_AHEAD && ahead.length < files.length) ahead.push(injectionOf(files[ahead.length]!));
    const injection = await ahead[i]!;
    const key = injection ? path.resolve(injection.memoryDir) : null;
    if (!injection || !key || !left.has(key)) continue;
    const ms = givenMs(injection);
    const best = found.get(key);
    // Newest transcripts come first: of two given at the same time, the one written last.
    if (!best || ms > best.ms) found.set(key, { ...injection, sessionId: file.sessionId, ms });
  }
  return new Map([...found].map(([key, { ms: _ms, ...injection }]) => [key, injection]));
}

/** Forgets the transcripts of these folders that are no longer on disk. */
function forgetGone(transcriptDirs: readonly string[], files: readonly TranscriptFile[]): void {
  const listed = new Set(files.map((f) => f.path));
  const under = transcriptDirs.map((dir) => path.resolve(dir) + path.sep);
  let forgot = false;
  for (const file of seen.keys()) if (!listed.has(file) && under.some((dir) => file.startsWith(dir))) forgot = seen.delete(file) || forgot;
  if (!forgot) return;
  // And the texts only they were given.
  const kept = new Set([...seen.values()].map((s) => s.injection?.text));
  for (const text of texts.keys()) if (!kept.has(text)) texts.delete(text);
}
