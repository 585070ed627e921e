/**
 * How history entries are written into commit messages and read back from `git log`.
 * A commit message is `<summary>\n\n[<body>\n\n]Memdir-Source: <source>`.
 */

/** One change to one file in a history entry. */
export interface HistoryFileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** The old path of a renamed file. */
  from?: string;
}

/** One point in the history of a memory dir: a commit of the shadow repository. */
export interface HistoryEntry {
  /** Full commit id; pass it back to diff, read and restore. */
  rev: string;
  /** Commit time, ISO 8601 with offset. */
  time: string;
  /** Who made the change: a ChangeSource, or what an older/newer Memdir wrote. */
  source: string;
  /** One line a person reads in the history list. */
  summary: string;
  files: HistoryFileChange[];
}

/**
 * A memory an undo anyway brought back under its earlier name, after the later change `rev`
 * had taken it away from `path` (deleted it, or renamed it away): undoing `rev` must not bring
 * it back a second time.
 */
export interface BroughtBack {
  rev: string;
  path: string;
  /** The name the memory is back under. */
  as: string;
}

/** A HistoryEntry with its parent ids, for callers that walk the history. */
export interface LoggedEntry extends HistoryEntry {
  parents: string[];
  /** What this entry brought back (an undo anyway), from its trailers. */
  broughtBack: BroughtBack[];
  /** The turn of a merge this entry is a step of (see ChangeDescription.turn), from its trailer; null for any other entry. */
  turn: string | null;
}

/** A logged entry as callers see it: without its parents and trailers. */
export function toEntry({ parents: _parents, broughtBack: _broughtBack, turn: _turn, ...entry }: LoggedEntry): HistoryEntry {
  return entry;
}

const TRAILER = 'Memdir-Source';
/** One per folder a change created (relative to the memory dir, see safe-fs `noteWrites`): what its undo takes away when empty. */
const CREATED_TRAILER = 'Memdir-Created-Folder';
/** One per memory an undo anyway brought back (see BroughtBack), as JSON: paths may hold any character. */
const BROUGHT_BACK_TRAILER = 'Memdir-Brought-Back';
/** The turn of a merge (relink, import, their undo) whose step this entry is: what putting that turn back undoes, and nothing else. */
const TURN_TRAILER = 'Memdir-Turn';
/** One per file the change took away (deleted, renamed away) whose permission bits were not a new file's, as JSON: git keeps no modes but 755. */
export const MODE_TRAILER = 'Memdir-Mode';
const OWN_TRAILERS = [TRAILER, CREATED_TRAILER, BROUGHT_BACK_TRAILER, TURN_TRAILER, MODE_TRAILER];

/** A file a change took away, with its permission bits then (see MODE_TRAILER). */
export interface TakenMode {
  path: string;
  mode: number;
}

/** `git log` arguments producing what `parseLog` reads (use with `-z --name-status`). */
export const LOG_FORMAT = '--format=%x1e%H%x1f%cI%x1f%P%x1f%B%x1f';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** A one-line subject: control characters and newlines become spaces, at most 200 characters. */
export function cleanSummary(summary: string): string {
  const line = summary.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return line === '' ? 'Update memories' : line.slice(0, 200);
}

/**
 * Builds a commit message, with a trailer for each folder the change created, each memory it
 * brought back and the turn of a merge it is a step of. A body line that looks like one of our trailers is dropped so it cannot spoof them.
 */
export function formatMessage(
  summary: string,
  source: string,
  body?: string,
  createdFolders: readonly string[] = [],
  broughtBack: readonly BroughtBack[] = [],
  turn: string | null = null,
  modes: readonly TakenMode[] = [],
): string {
  const cleanBody = (body ?? '')
    .replace(CONTROL, '')
    .split('\n')
    .filter((line) => !OWN_TRAILERS.some((t) => line.startsWith(`${t}:`)))
    .join('\n')
    .trim();
  const created = createdFolders
    .filter((f) => !/[\u0000-\u001f\u007f]/.test(f))
    .map((f) => `${CREATED_TRAILER}: ${f}\n`)
    .join('');
  // JSON escapes every control character, so each stays one line.
  const back = broughtBack.map((b) => `${BROUGHT_BACK_TRAILER}: ${JSON.stringify({ rev: b.rev, path: b.path, as: b.as })}\n`).join('');
  const taken = modes.map((m) => `${MODE_TRAILER}: ${JSON.stringify({ path: m.path, mode: m.mode.toString(8) })}\n`).join('');
  const step = turn !== null && /^[A-Za-z0-9-]{1,80}$/.test(turn) ? `${TURN_TRAILER}: ${turn}\n` : '';
  return `${cleanSummary(summary)}\n\n${cleanBody ? `${cleanBody}\n\n` : ''}${created}${back}${taken}${step}${TRAILER}: ${source}\n`;
}

/** The memories a commit message says its undo anyway brought back (see formatMessage); a trailer that does not read is skipped. */
function parseBroughtBack(message: string): BroughtBack[] {
  const found: BroughtBack[] = [];
  for (const m of message.matchAll(new RegExp(`^${BROUGHT_BACK_TRAILER}:[ \\t]*(\\{.*\\})[ \\t]*$`, 'gm'))) {
    try {
      const b = JSON.parse(m[1]!) as Partial<BroughtBack>;
      if (typeof b.rev === 'string' && typeof b.path === 'string' && typeof b.as === 'string') found.push({ rev: b.rev, path: b.path, as: b.as });
    } catch {
      // Not one we wrote.
    }
  }
  return found;
}

/** The modes a commit message says its change's files had when it took them away (see MODE_TRAILER), by path; a trailer that does not read is skipped. */
export function parseTakenModes(message: string): Map<string, number> {
  const found = new Map<string, number>();
  if (!message.includes(`${MODE_TRAILER}:`)) return found;
  for (const m of message.matchAll(new RegExp(`^${MODE_TRAILER}:[ \\t]*(\\{.*\\})[ \\t]*$`, 'gm'))) {
    try {
      const t = JSON.parse(m[1]!) as { path?: unknown; mode?: unknown };
      if (typeof t.path === 'string' && typeof t.mode === 'string' && /^[0-7]{1,4}$/.test(t.mode)) found.set(t.path, Number.parseInt(t.mode, 8));
    } catch {
      // Not one we wrote.
    }
  }
  return found;
}

/** The folders a commit message says its change created (see formatMessage). */
export function parseCreatedFolders(message: string): string[] {
  return [...message.matchAll(new RegExp(`^${CREATED_TRAILER}:[ \\t]*(.+)$`, 'gm'))].map((m) => m[1]!.trim());
}

function parseStatus(tokens: string[]): HistoryFileChange[] {
  const files: HistoryFileChange[] = [];
  for (let i = 0; i < tokens.length; ) {
    const code = tokens[i++] ?? '';
    if (code.startsWith('R') || code.startsWith('C')) {
      const from = tokens[i++] ?? '';
      const to = tokens[i++] ?? '';
      files.push(code.startsWith('R') ? { path: to, status: 'renamed', from } : { path: to, status: 'added' });
    } else {
      const p = tokens[i++] ?? '';
      files.push({ path: p, status: code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified' });
    }
  }
  return files;
}

/** Parses `git log -z --name-status LOG_FORMAT` output, newest first. */
export function parseLog(out: string): LoggedEntry[] {
  return out
    .split('\x1e')
    .slice(1)
    .map((record) => {
      const [rev = '', time = '', parents = '', body = '', rest = ''] = record.split('\x1f');
      // After the format come NUL, newline, then NUL-separated status/path tokens.
      const tokens = rest.replace(/^\0/, '').replace(/^\n/, '').split('\0');
      if (tokens.at(-1) === '') tokens.pop();
      const trailer = [...body.matchAll(new RegExp(`^${TRAILER}:\\s*(.+)$`, 'gm'))].at(-1)?.[1]?.trim();
      return {
        rev,
        time,
        parents: parents.split(' ').filter(Boolean),
        source: trailer ?? 'unknown',
        summary: body.split('\n')[0]?.trim() ?? '',
        files: parseStatus(tokens),
        broughtBack: parseBroughtBack(body),
        turn: [...body.matchAll(new RegExp(`^${TURN_TRAILER}:[ \\t]*([A-Za-z0-9-]+)[ \\t]*$`, 'gm'))].at(-1)?.[1] ?? null,
      };
    });
}
