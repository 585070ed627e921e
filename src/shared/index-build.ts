/**
 * The index Claude Code writes when a memory folder has topic files but no MEMORY.md (R-INDEX,
 * R-LAYOUT) — the one rule for it. Claude Code 2.1.332 ("memory index backfill", read from its
 * bundle and recorded: test/fixtures/claude-code-index/observed-built.json) does it at session
 * start, before it loads the index: it writes MEMORY.md to disk (atomically, never over a file
 * that appeared meanwhile) and then loads that file as any other. So it happens once; afterwards
 * Memdir reads the file like any index. Until then every surface that says what the agent gets at
 * session start (the scan's loaded/unlisted, `memdir show`, `--loaded`, lint, the app's index tab)
 * predicts it from here; Memdir itself writes nothing.
 *
 * When: auto memory on, not in memory-store mode, and no entry named `MEMORY.md` at the top of the
 * memory folder — an empty or blank MEMORY.md is kept as it is (and loads nothing), as is one that
 * cannot be read. What: its recall scan of regular files (no links followed, a file with a second
 * hard link left out), newest mtime first (ties in the order the folder lists them); a path with
 * a segment starting with `.` or named `team`, `logs`, `sessions` or `proposals` (any case) is left
 * out, as is any file named MEMORY.md; each memory one line
 * `- [<file name without .md>](<relative path>) — <hook>`, the hook its frontmatter description
 * with control characters removed and white space collapsed, shortened with `…` so the line stays
 * within 150 characters (no hook when it has no description); a file whose path holds `[`, `]`,
 * `(`, `)`, a line break or a control character is skipped. At most 140 lines and 17,500
 * characters (70% of the load limits), each line ending in a newline; the rest is left out.
 */
import { dropInvisible, shortenLine } from './index-load.js';
import { INDEX_FILE, INDEX_MAX_CHARS, INDEX_MAX_LINES, SKIPPED_TOP_FOLDERS, TEAM_DIR } from './limits.js';

/** The share of the load limits a built index may use (Claude Code 2.1.332). */
const BUILT_SHARE = 0.7;
/** Lines a built index holds at most: 140. */
export const BUILT_MAX_LINES = Math.floor(INDEX_MAX_LINES * BUILT_SHARE);
/** Characters (UTF-16 units, newlines included) a built index holds at most: 17,500. */
export const BUILT_MAX_CHARS = Math.floor(INDEX_MAX_CHARS * BUILT_SHARE);
/** How long a line with a hook may get. */
const BUILT_LINE_CHARS = 150;

/** A memory as the build sees it: its path relative to the memory folder (`/`-separated) and its frontmatter description, if any. */
export interface BuildCandidate {
  file: string;
  description: string | null;
}

/** The index Claude Code would write, and which memories it lists and leaves out. */
export interface BuiltIndex {
  /** The file's text ('' when nothing is linkable: then Claude Code writes nothing). */
  text: string;
  /** Memories it lists, in its order. */
  listed: string[];
  /** Memories past its 140 lines or 17,500 characters. */
  leftOut: string[];
  /** Memories whose path cannot stand in a link (brackets, parentheses, control characters). */
  skipped: string[];
}

function folderKey(name: string): string {
  return name
    .normalize('NFC')
    .replace(/[. ]+$/, '')
    .toLowerCase();
}

/** Whether Claude Code's build considers this relative path (`/`-separated) at all. */
export function isBuildCandidatePath(file: string): boolean {
  const segments = file.split('/');
  if (!file.endsWith('.md') || segments[segments.length - 1] === INDEX_FILE) return false;
  return !segments.some((s) => s.startsWith('.') || s === '' || [TEAM_DIR, ...SKIPPED_TOP_FOLDERS].includes(folderKey(s)));
}

const NOT_IN_LINK = /[[\]()\n\r\u2028\u2029]/;

function lineOf(candidate: BuildCandidate): string | null {
  const file = candidate.file;
  if (NOT_IN_LINK.test(file) || dropInvisible(file.replace(/[\t\n\r\u2028\u2029]/g, '')) !== file) return null;
  const base = file.slice(file.lastIndexOf('/') + 1);
  const link = `- [${base.endsWith('.md') ? base.slice(0, -3) : base}](${file})`;
  const hook = dropInvisible((candidate.description ?? '').replace(/\r\n?|[\u2028\u2029]/g, '\n'))
    .replace(/\s+/g, ' ')
    .trim();
  const room = BUILT_LINE_CHARS - link.length - 3;
  if (hook === '' || room <= 1) return link;
  return `${link} \u2014 ${dropInvisible(shortenLine(hook, room))}`;
}

/** The index Claude Code builds from these memories, given newest first (see the file comment). */
export function buildIndexLikeClaudeCode(candidates: readonly BuildCandidate[]): BuiltIndex {
  const built: BuiltIndex = { text: '', listed: [], leftOut: [], skipped: [] };
  let full = false;
  for (const candidate of candidates) {
    if (!isBuildCandidatePath(candidate.file)) continue;
    const line = lineOf(candidate);
    if (line === null) {
      built.skipped.push(candidate.file);
      continue;
    }
    full ||= built.listed.length + 1 > BUILT_MAX_LINES || built.text.length + line.length + 1 > BUILT_MAX_CHARS;
    if (full) built.leftOut.push(candidate.file);
    else {
      built.text += `${line}\n`;
      built.listed.push(candidate.file);
    }
  }
  return built;
}

function memories(count: number): string {
  return `${count} ${count === 1 ? 'memory' : 'memories'}`;
}

/** What `memdir show`, lint and the app's index tab say of a folder whose index Claude Code will build. */
export function builtIndexSentence(built: Pick<BuiltIndex, 'listed' | 'leftOut' | 'skipped'>): string {
  const out = built.leftOut.length + built.skipped.length;
  const left =
    out === 0
      ? ''
      : `; ${memories(out)} ${out === 1 ? 'is' : 'are'} left out of it (it lists at most ${BUILT_MAX_LINES} lines and ${BUILT_MAX_CHARS.toLocaleString('en-US')} characters, and no file whose name holds brackets or parentheses)`;
  return `There is no ${INDEX_FILE}: Claude Code 2.1.332 writes one at its next session start, listing ${memories(built.listed.length)} newest first, and loads it${left}.`;
}

/**
 * What a change that created MEMORY.md says of the pointers it wrote first (memory-service's
 * writeIndex): those Claude Code would have built there (R-INDEX).
 */
export function builtIndexNote(pointers: number): string {
  return `${INDEX_FILE} written with the ${pointers === 1 ? 'pointer' : `${pointers} pointers`} Claude Code would have built`;
}
