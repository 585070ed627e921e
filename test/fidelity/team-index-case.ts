/**
 * The team-index case recorded from the real Claude Code 2.1.332 (test/fixtures/claude-code-index/
 * observed-team.json): a memory folder whose MEMORY.md points at `team/a.md` and whose
 * `team/MEMORY.md` points at `b.md`, each file holding a marker. The live test
 * (index-cut-live.test.ts) lays the files out, runs the client and compares with the recording;
 * team-index.test.ts replays the recording against Memdir without the binary.
 */
import path from 'node:path';

export const TEAM_CASE_FIXTURE = path.resolve(__dirname, '../fixtures/claude-code-index/observed-team.json');

/** What the fixture holds. */
export interface TeamCase {
  claudeCode: string;
  how: string;
  /** The memory folder's files, relative to it. */
  files: Record<string, string>;
  /** The transcript's instructions attachment: each file relative to the memory folder, its type and the text the agent got. */
  instructions: { file: string; type: string; content: string }[];
  /** Whether each marker of `files` was in a request the client sent the model. */
  reached: Record<string, boolean>;
}

/** Each `MARKER-…` word of the files, in order, and whether `sent` holds it. */
export function markersIn(files: Record<string, string>, sent: string): Record<string, boolean> {
  const markers = Object.values(files).flatMap((text) => text.match(/MARKER-[A-Z-]+[A-Z]/g) ?? []);
  return Object.fromEntries(markers.map((m) => [m, sent.includes(m)]));
}
