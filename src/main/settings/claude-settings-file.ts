/**
 * The one writer of Claude Code's settings files (`<home>/settings.json`): "Connect to Claude
 * Code" adds its hooks there, the Settings view's autoDream switch sets `autoDreamEnabled`.
 *
 * The file belongs to the user and to Claude Code, so it is edited like a guest would
 * (STYLE.md): minimal text edits ({@link JsoncDocument}) that keep every other byte; a change is
 * planned first — a diff the user can read — and applied only if the file is still the one the
 * plan was made from (`baseHash`); the write is atomic, after the previous file is kept beside
 * it (`settings.json.memdir-backup`); a symlinked file (dotfiles) is written through to its
 * target with the target's mode; a file that does not parse is never written.
 *
 * Claude Code 2.1.332 reads settings as strict JSON: a file with a comment or a trailing comma
 * is ignored whole (observed: its hooks never run). Such a file is still edited byte for byte —
 * it is the user's — but the plan carries a warning saying nothing in it is in force.
 */
import { failureWords } from '../../shared/failure-words.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { writeFileAtomic } from '../core/safe-fs.js';
import { JsoncDocument, JsoncSyntaxError } from './jsonc-edit.js';
import { MemdirError } from '../../shared/errors.js';

/** A settings file that cannot be changed safely (`invalid`), or changed since the plan (`conflict`). */
export class SettingsFileError extends MemdirError<'invalid-file' | 'conflict'> {
  override readonly name = 'SettingsFileError';
}

/** The user's own Claude Code settings: `<home>/settings.json`. */
export function userSettingsFile(home: string): string {
  return path.join(home, 'settings.json');
}

/** A settings file read for editing. */
export interface SettingsFileRead {
  file: string;
  /** The file's text, or null when there is none. */
  text: string | null;
  /** The document, or null when it cannot be edited (then `problems` says why). */
  doc: JsoncDocument | null;
  /** Why it cannot be edited, in words. */
  problems: string[];
  /** What the user should know about it (Claude Code ignores it, …). */
  warnings: string[];
}

/** Read `file` for editing. Never throws: trouble is in `problems`. */
export async function readSettingsFile(file: string): Promise<SettingsFileRead> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { file, text: null, doc: new JsoncDocument('{}'), problems: [], warnings: [] };
    const why = failureWords(error);
    return { file, text: null, doc: null, problems: [`${file} cannot be read (${why}); Memdir leaves it alone.`], warnings: [] };
  }
  let doc: JsoncDocument;
  try {
    doc = new JsoncDocument(text);
  } catch (error) {
    if (!(error instanceof JsoncSyntaxError)) throw error;
    return {
      file,
      text,
      doc: null,
      problems: [`${file} cannot be changed: ${error.message}. Fix it first — Memdir never rewrites a file it cannot read.`],
      warnings: [],
    };
  }
  return { file, text, doc, problems: [], warnings: strictJsonWarnings(file, text) };
}

function strictJsonWarnings(file: string, text: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return [];
  try {
    JSON.parse(body);
    return [];
  } catch {
    return [
      `${file} has comments or trailing commas. Claude Code reads its settings as strict JSON and ignores this whole file — every setting in it, Memdir's hooks included — until they are removed.`,
    ];
  }
}

/** Identifies a file's content (or its absence) for the "still the same file?" check. */
export function settingsHash(text: string | null): string {
  return createHash('sha256')
    .update(text ?? '\0missing')
    .digest('hex')
    .slice(0, 16);
}

/** A change to a settings file, planned and not yet written. */
export interface SettingsEditPlan {
  file: string;
  changed: boolean;
  /** The file's text now (null: there is none), and after the change (null: cannot be changed). */
  before: string | null;
  after: string | null;
  /** Identifies `before`: applying refuses when the file no longer matches it. */
  baseHash: string;
  /** A unified diff of the change (empty when nothing changes). */
  diff: string;
  problems: string[];
  warnings: string[];
}

/** What an edit does to the document; it may throw a {@link JsoncSyntaxError} for a shape it cannot edit. */
export type SettingsEdit = (doc: JsoncDocument, read: SettingsFileRead) => void;

/** What `edit` would do to `file`. Writes nothing. */
export async function planSettingsEdit(file: string, edit: SettingsEdit): Promise<SettingsEditPlan> {
  const read = await readSettingsFile(file);
  const base = { file, before: read.text, baseHash: settingsHash(read.text), warnings: read.warnings };
  if (!read.doc) return { ...base, changed: false, after: null, diff: '', problems: read.problems };
  const baseline = read.doc.text;
  try {
    edit(read.doc, read);
  } catch (error) {
    if (!(error instanceof JsoncSyntaxError)) throw error;
    return { ...base, changed: false, after: null, diff: '', problems: [`${file} cannot be changed: ${error.message}; Memdir leaves it alone.`] };
  }
  const changed = read.doc.text !== baseline;
  // A new file ends with a newline, as editors write them.
  const after = read.text === null ? `${read.doc.text}\n` : read.doc.text;
  const name = path.basename(file);
  const patch = changed
    ? createTwoFilesPatch(read.text === null ? '/dev/null' : `a/${name}`, `b/${name}`, read.text ?? '', after, '', '', {
        context: 3,
        headerOptions: FILE_HEADERS_ONLY,
      })
    : '';
  const diff = patch ? `diff --git a/${name} b/${name}\n${read.text === null ? 'new file mode 100644\n' : ''}${patch}` : '';
  return { ...base, changed, after: changed ? after : read.text, diff, problems: [] };
}

/** What applying wrote. */
export interface SettingsEditResult {
  file: string;
  changed: boolean;
  /** The copy of the previous file, or null when there was none (or nothing changed). */
  backup: string | null;
}

/**
 * Apply `edit` to `file` if it is still the file `baseHash` was computed from.
 * @throws {SettingsFileError} `invalid` for a file Memdir must not touch, `conflict` when it
 * changed since the plan.
 */
export async function applySettingsEdit(file: string, baseHash: string, edit: SettingsEdit): Promise<SettingsEditResult> {
  const plan = await planSettingsEdit(file, edit);
  if (plan.problems.length > 0) throw new SettingsFileError('invalid-file', plan.problems.join(' '));
  if (plan.baseHash !== baseHash) throw new SettingsFileError('conflict', `${file} changed since the change was shown; look at it again before applying.`);
  if (!plan.changed || plan.after === null) return { file, changed: false, backup: null };
  let target = file;
  let mode = 0o600;
  let backup: string | null = null;
  if (plan.before !== null) {
    // A symlinked settings.json (a dotfiles repository) is written through, not replaced.
    target = await fs.realpath(file);
    mode = (await fs.stat(target)).mode & 0o777;
    backup = `${file}.memdir-backup`;
    await writeFileAtomic(path.dirname(backup), path.basename(backup), plan.before, { mode: 0o600 });
  }
  await writeFileAtomic(path.dirname(target), path.basename(target), plan.after, { mode });
  return { file, changed: true, backup };
}
