/**
 * What the agent sees of MEMORY.md (R-INDEX), for `memdir show --loaded` and the app's index
 * view: Memdir's prediction of the text Claude Code will load at the next session start, beside
 * the ground truth — the text the newest transcript recorded as injected (an `attachment` record
 * of type `instructions` holding `{path, type: "AutoMem", content}`, observed with Claude Code
 * 2.1.332), and the Claude Code version the project's transcripts name (it words the cut warning;
 * read by `claudeCodeVersionIn`, as `dream status` reads it). With auto memory off Claude Code
 * injects no index at all (observed with 2.1.332: no `AutoMem` attachment): the text is then empty
 * and `autoMemoryOff` says which setting, from which file or variable. While Claude Code syncs the
 * memory with its stores it injects none either (claude-code-stores.ts): `storesLoadNoIndex` says so.
 */
import path from 'node:path';
import { loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { INDEX_FILE } from '../../shared/limits.js';
import type { MemorySummary, ProjectSettings } from '../../shared/scan-types.js';
import { autoMemoryOffSentence } from '../../shared/settings-text.js';
import { predictBuiltIndex, readIndexTextAsClaudeCode, storesLoadNoIndex } from '../memdir/index.js';
import { builtIndexSentence } from '../../shared/index-build.js';

import { claudeCodeVersionIn } from './claude-code-version.js';
import { listTranscriptsIn } from './list-transcripts.js';
import { readLines } from './line-reader.js';

/** The contract of `memdir show <project> --loaded --json` (README). */
export interface AgentIndexView {
  /** The index text exactly as Claude Code will load it next (empty: it loads none). */
  text: string;
  truncated: boolean;
  /** Why it is cut, in Claude Code's words, or null. */
  reason: string | null;
  /** The Claude Code version the project's transcripts name (it decides the warning's wording), or null. */
  claudeCodeVersion: string | null;
  /** Whether the project has a transcript at all: false, no session has run yet; true with no version, its transcripts do not say. */
  hasTranscript: boolean;
  /** The index text the newest transcript recorded as injected, or null when it recorded none. */
  lastInjected: string | null;
  /** With auto memory off (Claude Code then loads no index): why, naming the setting and where it came from; else null. */
  autoMemoryOff: string | null;
  /** While Claude Code syncs this memory with its stores (it then loads no index): which folders, and what it means; else null. */
  storesLoadNoIndex: string | null;
  /**
   * With no MEMORY.md but memories: Claude Code 2.1.332 writes one at its next session start and
   * loads it (index-build.ts); this says so, and `text` is what it will load. Else null.
   */
  builtByClaudeCode: string | null;
  /**
   * With no MEMORY.md but memories: the file Claude Code would write, byte for byte — what an edit of
   * the missing index starts from (as every writer that creates MEMORY.md does). Null otherwise, and
   * while auto memory is off or the memory is synced with stores: Claude Code 2.1.332 then writes
   * none (recorded: observed-built.json, memory-off*), so an edit starts from nothing. One
   * prediction gives this and `text`.
   */
  builtFile: string | null;
}

/** Read one transcript for the last `AutoMem` instructions it injected: the index text, or null. */
export async function readInjectedIndex(transcript: string): Promise<string | null> {
  let content: string | null = null;
  for await (const event of readLines(transcript, { final: true })) {
    if (event.kind !== 'line') continue;
    const text = event.text;
    if (!text.includes('"AutoMem"') || !text.includes('"instructions"')) continue;
    try {
      const record = JSON.parse(text) as { type?: unknown; attachment?: { type?: unknown; files?: unknown } };
      if (record.type !== 'attachment' || record.attachment?.type !== 'instructions' || !Array.isArray(record.attachment.files)) continue;
      const file = (record.attachment.files as { type?: unknown; content?: unknown; path?: unknown }[]).find(
        (f) => f?.type === 'AutoMem' && typeof f.content === 'string' && typeof f.path === 'string' && path.basename(f.path) === INDEX_FILE,
      );
      if (file) content = file.content as string;
    } catch {
      // A half-written or foreign line: skipped, as SPEC §8 requires.
    }
  }
  return content;
}

/**
 * The newest transcript of a project, across the folders of every directory its sessions were
 * launched in (R-LAYOUT: a session started in a subdirectory lives in that directory's folder), or null.
 */
async function newestTranscript(transcriptDirs: readonly string[]): Promise<string | null> {
  const files = await listTranscriptsIn(transcriptDirs).catch(() => []);
  return files[0]?.path ?? null;
}

/** What the agent sees of a memory directory's index, and what it was last given. */
export async function agentIndexView(where: {
  transcriptDirs: readonly string[];
  memoryDir: string;
  settings: Pick<ProjectSettings, 'autoMemoryEnabled' | 'autoMemoryEnabledSource' | 'autoMemoryEnabledFrom' | 'memoryStores'>;
  /** The folder's memories as a scan just found them (the app's, through its scan cache): the built index is predicted from them, no memory read again. */
  memories?: readonly MemorySummary[];
}): Promise<AgentIndexView> {
  const transcript = await newestTranscript(where.transcriptDirs);
  const lastInjected = transcript ? await readInjectedIndex(transcript) : null;
  const { version, hasTranscript } = await claudeCodeVersionIn(where.transcriptDirs);
  const autoMemoryOff = autoMemoryOffSentence(where.settings);
  const stores = storesLoadNoIndex(where.memoryDir, where.settings.memoryStores);
  // Checked first: Claude Code then neither builds an index nor loads one (observed-built.json: memory-off*;
  // loaded-2.1.332.json), so there is nothing to predict and no memory is read for it.
  if (autoMemoryOff || stores)
    return {
      text: '',
      truncated: false,
      reason: null,
      claudeCodeVersion: version,
      hasTranscript,
      lastInjected,
      autoMemoryOff,
      storesLoadNoIndex: stores,
      builtByClaudeCode: null,
      builtFile: null,
    };
  const built = predictBuiltIndex(where.memoryDir, where.memories ? { memories: where.memories } : {});
  const read = built ? { text: built.text } : readIndexTextAsClaudeCode(where.memoryDir);
  const load = loadIndexAsClaudeCode(read.text, { version, ...('fileBytes' in read ? { fileBytes: read.fileBytes } : {}) });
  return {
    text: load.text,
    truncated: load.truncated,
    reason: load.reason,
    claudeCodeVersion: version,
    hasTranscript,
    lastInjected,
    autoMemoryOff: null,
    storesLoadNoIndex: null,
    builtByClaudeCode: built ? builtIndexSentence(built) : null,
    builtFile: built?.text ?? null,
  };
}
