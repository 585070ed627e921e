/**
 * The Claude Code version a project's transcripts were written by: the one reader behind the
 * MEMORY.md view (the version words the cut warning) and `dream status` (it picks the dream rule).
 * Every transcript record carries `version` (observed with 2.1.88 and 2.1.332); the newest
 * session transcript that names one decides, its first line naming one read as JSON, so spacing
 * and key order do not matter. Cheap: at most the newest few transcripts, each only until that line.
 */
import { firstTranscriptField } from '../memdir/index.js';
import { listTranscriptsIn } from './list-transcripts.js';

/** At most this many transcripts, newest first, are read (a new session's file may have no record yet). */
const NEWEST_TRANSCRIPTS = 5;

/** What a project's transcripts say of the Claude Code that wrote them. */
export interface TranscriptsVersion {
  /** The version the newest transcript naming one records, or null. */
  version: string | null;
  /** Whether the project has a session transcript at all: without one, no session has run yet; with one and no version, its transcripts do not say. */
  hasTranscript: boolean;
}

/** See the module comment. `transcriptDirs` are the project's launch folders (R-LAYOUT); never throws. */
export async function claudeCodeVersionIn(transcriptDirs: readonly string[]): Promise<TranscriptsVersion> {
  const sessions = await listTranscriptsIn(transcriptDirs).catch(() => []);
  for (const t of sessions.slice(0, NEWEST_TRANSCRIPTS)) {
    const version = await firstTranscriptField(t.path, 'version');
    if (version) return { version, hasTranscript: true };
  }
  return { version: null, hasTranscript: sessions.length > 0 };
}
