/**
 * Every operation a model proposes (or a user edits) is checked before anything is written
 * (R-EXTRACT's "strict permissions", R-TYPES, R-NOTSAVE):
 *   - a known action and type, a name, a body within limits;
 *   - a plain file name in the scope's own folder: no folders, no `..`, no absolute path, not
 *     the index, not hidden — so the write can only land inside the memory directory (safe-fs
 *     then also refuses symlinks on the way);
 *   - the scope: the type's default when none is given; a `user` memory never goes to the
 *     team; a project without team memory gets private memories (a team folder is never
 *     created behind the user's back);
 *   - `create` only for a file that does not exist, `update` only for one that does;
 *   - no secret in anything that would be written.
 * R-NOTSAVE hints, index-limit warnings (in memory-store mode, where no index loads: a file over the
 * client's 4KB instead) do not refuse: they travel with the operation, and
 * in apply mode send it to the review queue instead of straight to disk.
 */
import path from 'node:path';
import type { ExtractOperation } from '../../shared/contract/extract.js';
import { indexImpact } from '../../shared/index-impact.js';
import { type MemoryType, type Scope, defaultScope, isMemoryType, scopeRefusal, typeFromFileName } from '../../shared/memory-types.js';
import { detectDerivable } from '../../shared/not-worth-saving.js';
import { visibleText } from '../../shared/visible-text.js';
import {
  checkFileName,
  checkNewFileName,
  formTwin,
  MemoryError,
  pointerHome,
  serializeTopicFile,
  storeFileSizeWarning,
  suggestFileName,
  twinClause,
} from '../memdir/index.js';
import { findSecrets } from './secret-guard.js';

/** The memory directory as the validator needs to know it. */
export interface ValidationTarget {
  /** Topic files that exist now in the private scope. */
  privateFiles: ReadonlySet<string>;
  /** Topic files of the team scope; null when the project has no team memory. */
  teamFiles: ReadonlySet<string> | null;
  /**
   * MEMORY.md: the one index the agent loads, a team memory's pointer (`team/x.md`) among them;
   * null in Claude Code's memory-store mode, where no index loads (claude-code-stores.ts).
   */
  indexText: string | null;
}

/** An operation that may be written (with warnings to show), or why it may not. */
export type ValidatedOperation =
  | { ok: true; operation: ExtractOperation; warnings: string[] }
  /** `operation` is the proposal as far as it could be read, kept for the record. */
  | { ok: false; operation: ExtractOperation; reason: string };

const MAX_BODY_CHARS = 200_000;
const ACTIONS: Record<string, ExtractOperation['action']> = {
  create: 'create',
  add: 'create',
  new: 'create',
  update: 'update',
  edit: 'update',
  modify: 'update',
  replace: 'update',
};

/** The action a word names, or null: the table's own words only (a model may write `constructor`). */
const actionOf = (word: string | null): ExtractOperation['action'] | null => (word !== null && Object.hasOwn(ACTIONS, word) ? ACTIONS[word]! : null);

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const oneLine = (text: string): string =>
  text
    .replace(/[\r\n]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Read whatever the proposer sent into the operation shape, before judging it. */
function normalize(raw: Record<string, unknown>): {
  op: ExtractOperation;
  action: string | null;
  scope: string | null;
  type: string | null;
  file: string | null;
} {
  const action = str(raw.action)?.trim().toLowerCase() ?? null;
  const type = str(raw.type)?.trim().toLowerCase() ?? null;
  const scope = str(raw.scope)?.trim().toLowerCase() ?? null;
  const file = str(raw.file)?.trim().replace(/^\.\//, '') ?? null;
  const name = oneLine(str(raw.name) ?? '');
  const op: ExtractOperation = {
    action: actionOf(action) ?? 'create',
    file: file ?? '',
    scope: scope === 'team' ? 'team' : 'private',
    type: isMemoryType(type) ? type : (typeFromFileName(file ?? '') ?? 'feedback'),
    name,
    description: oneLine(str(raw.description) ?? ''),
    body: str(raw.body) ?? '',
    hook: str(raw.hook) !== null ? oneLine(str(raw.hook)!) || null : null,
    reason: str(raw.reason) !== null ? oneLine(str(raw.reason)!).slice(0, 500) || null : null,
  };
  return { op, action, scope, type, file };
}

/** Check one proposed operation (see the module comment). Never throws. */
export async function validateOperation(raw: unknown, target: ValidationTarget): Promise<ValidatedOperation> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const op: ExtractOperation = {
      action: 'create',
      file: '',
      scope: 'private',
      type: 'feedback',
      name: '',
      description: '',
      body: typeof raw === 'string' ? raw : '',
      hook: null,
      reason: null,
    };
    return { ok: false, operation: op, reason: 'The operation is not an object.' };
  }
  const { op, action, scope, type, file } = normalize(raw as Record<string, unknown>);
  const refuse = (reason: string): ValidatedOperation => ({ ok: false, operation: op, reason });
  const givenFile = (raw as Record<string, unknown>).file;
  if (givenFile !== undefined && givenFile !== null && typeof givenFile !== 'string') {
    const shown = String(JSON.stringify(givenFile));
    return refuse(`The file name it gave is not text (${visibleText(shown.length > 60 ? `${shown.slice(0, 60)}…` : shown, { lines: false })}).`);
  }

  if (action !== null && !actionOf(action)) return refuse(`"${action}" is not an action extraction may take (create or update).`);
  if (type !== null && !isMemoryType(type)) return refuse(`"${type}" is not a memory type (user, feedback, project or reference).`);
  if (type === null && !typeFromFileName(file ?? '')) return refuse('The operation has no type.');
  if (!op.name) return refuse('The memory has no name.');
  if (op.name.length > 200) return refuse('The name is longer than 200 characters.');
  if (!op.description) op.description = op.name;
  if (op.description.length > 1000) return refuse('The description is longer than 1,000 characters.');
  if (op.body.trim() === '') return refuse('The memory has no body.');
  if (op.body.length > MAX_BODY_CHARS) return refuse(`The body is longer than ${MAX_BODY_CHARS.toLocaleString('en')} characters.`);
  if (op.hook && op.hook.length > 500) return refuse('The index hook is longer than 500 characters.');

  const warnings: string[] = [];
  if (scope !== null && scope !== 'private' && scope !== 'team') return refuse(`"${scope}" is not a scope (private or team).`);
  const wanted: Scope = (scope as Scope | null) ?? defaultScope(op.type as MemoryType);
  const refusal = scopeRefusal(op.type, wanted);
  if (refusal) {
    op.scope = 'team';
    return refuse(`Refused a "user" memory for the team: ${refusal}`);
  }
  op.scope = wanted;
  if (op.scope === 'team' && target.teamFiles === null) {
    op.scope = 'private';
    if (scope === 'team') warnings.push('This project has no team memory: kept private (share it from the app if it belongs to the team).');
  }

  if (file === null || file === '') {
    op.file = op.action === 'create' ? suggestFileName(op.type, op.name) : '';
    if (!op.file) return refuse('An update must name the file it changes.');
  }
  if (path.isAbsolute(op.file) || /^[A-Za-z]:[\\/]/.test(op.file) || op.file.split(/[\\/]/).includes('..')) {
    return refuse(`"${op.file}" is outside the memory directory: extraction writes only plain file names inside it.`);
  }
  try {
    // A new file's name is held to the rule for names entering the memory dir (issue 15).
    op.file = op.action === 'create' ? checkNewFileName(op.file) : checkFileName(op.file);
  } catch (error) {
    if (error instanceof MemoryError) return refuse(error.message);
    throw error;
  }
  const existing = op.scope === 'team' ? target.teamFiles! : target.privateFiles;
  const where = op.scope === 'team' ? 'team memory' : 'memory';
  if (op.action === 'create' && existing.has(op.file)) return refuse(`${op.file} already exists in the ${where}; an update of it was expected.`);
  // The same name in another Unicode form is taken too: the write would be refused when accepted (refuseTakenName).
  const twin = existing.has(op.file) ? null : formTwin(existing, op.file);
  if (op.action === 'create' && twin !== null) return refuse(`${op.file} already exists in the ${where}: ${twinClause(twin)}; an update of it was expected.`);
  if (op.action === 'update' && twin !== null) return refuse(`${op.file} does not exist in the ${where}: ${twinClause(twin)}; update it by that exact name.`);
  if (op.action === 'update' && !existing.has(op.file)) return refuse(`${op.file} does not exist in the ${where}, so it cannot be updated.`);

  const secrets = await findSecrets([
    { label: 'name', text: op.name },
    { label: 'description', text: op.description },
    { label: 'body', text: op.body },
    { label: 'index hook', text: op.hook ?? '' },
  ]);
  if (secrets.length > 0) return refuse(`It would write a secret: ${secrets.join('; ')}.`);

  for (const hint of detectDerivable(op.body)) warnings.push(hint.message);
  if (target.indexText === null) {
    // Memory-store mode: no pointer, and the client's size rule instead of the index's.
    const size = storeFileSizeWarning(op.file, Buffer.byteLength(serializeTopicFile({ name: op.name, description: op.description, type: op.type }, op.body)));
    if (size) warnings.push(size);
  } else if (op.action === 'create') {
    // Measured where the pointer that loads it goes: MEMORY.md, `team/x.md` for a team memory (pointerHome).
    const home = pointerHome({ memoryDir: '', scope: op.scope }, op.file).file;
    const impact = indexImpact(target.indexText, { kind: 'add', title: op.name, file: home, hook: op.hook ?? op.description });
    if (impact.changedIsCut) warnings.push('MEMORY.md is past its limit: this pointer would be cut and never reach the agent. Shorten the index first.');
    else if (impact.newlyCut.length > 0)
      warnings.push(
        `Adding this pointer would push ${impact.newlyCut.length} entr${impact.newlyCut.length === 1 ? 'y' : 'ies'} past MEMORY.md's limit (${impact.newlyCut.slice(0, 3).join(', ')}).`,
      );
  }
  return { ok: true, operation: op, warnings };
}
