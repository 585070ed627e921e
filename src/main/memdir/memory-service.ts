/**
 * Create, update, rename and delete memories, and apply safe health fixes — keeping the index
 * consistent. Every change goes through `transact` (lock, outside changes recorded first,
 * history entry after) and safe-fs (atomic, confined, no symlinks): one path for every writer.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  addIndexEntry,
  indexEntries,
  parseIndex,
  pointerHook,
  removeIndexEntries,
  retargetIndexEntries,
  serializeIndex,
  updateIndexEntry,
  type ParsedIndex,
} from '../../shared/index-format.js';
import { type IndexImpact, indexImpact } from '../../shared/index-impact.js';
import { lineFate, loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { teamFileOfMainLink } from '../../shared/index-state.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { sanitizePathKey } from '../../shared/path-key.js';
import { quoteName } from '../../shared/visible-text.js';
import { type MemoryType, type Scope, scopeRefusal } from '../../shared/memory-types.js';
import { memoryTextTooLarge, quotedLines } from '../../shared/size-text.js';
import { mergeLines } from '../../shared/line-merge.js';
import type { FixRequest } from '../../shared/problems.js';
import { type ChangeSource, type HistoryEntry, noteInChange, transact } from '../history/index.js';
import { builtIndexNote } from '../../shared/index-build.js';
import { predictBuiltIndex } from './scan-dir.js';
import { maskedName, refuseNewSecrets } from '../secrets/index.js';
import { MAX_MEMORY_DEPTH } from './list-memory-files.js';
import { MemoryError } from './memory-error.js';
import { batchedIndex, runIndexBatch } from './index-batch.js';
import { decode, factsOf } from './read-file.js';
import { removeFileConfined, renameConfined, syncingFoldersOnce, writeFileAtomic } from '../core/safe-fs.js';
import { confineOrNull, resolveInside } from '../core/confined-path.js';
import {
  type ParsedTopic,
  type TopicFields,
  frontmatterProblem,
  parseTopicFile,
  quoteCutValues,
  replaceFrontmatter,
  serializeTopicFile,
} from './topic-file.js';

export interface Where {
  /** The project's memory directory (history and locks are per memory directory). */
  memoryDir: string;
  scope: Scope;
  dataDir?: string;
}

export interface WriteResult {
  file: string;
  entry: HistoryEntry | null;
}

/** Path relative to the memory directory of a file in the given scope. */
/** A file's path relative to the memory dir: team files live in `team/`. */
export function inScope(scope: Scope, file: string): string {
  return scope === 'team' ? `${TEAM_DIR}/${file}` : file;
}

/**
 * Every index that points at a memory, and the name it has there: MEMORY.md first — as `team/x.md`
 * for a team memory, since Claude Code 2.1.332 loads no other index (index-state.ts) — then, for a
 * team memory, team/MEMORY.md as `x.md`: the team's shared table of contents, synced to teammates,
 * which loads nothing. A new memory gets a pointer in each; edit, rename and delete follow them all.
 */
export function pointerPlaces(where: Where, file: string): { index: Where; file: string }[] {
  const main = { index: { ...where, scope: 'private' as const }, file: inScope(where.scope, file) };
  return where.scope === 'team' ? [main, { index: where, file }] : [main];
}

/** The memory at a path in the memory directory (`team/x.md`, `x.md`): its scope's {@link Where}, and its name there. */
export function memoryAt(memoryDir: string, rel: string, dataDir?: string): { where: Where; file: string } {
  const team = teamFileOfMainLink(rel);
  return { where: { memoryDir, scope: team === null ? 'private' : 'team', ...(dataDir ? { dataDir } : {}) }, file: team ?? rel };
}

/**
 * {@link pointerPlaces} of a memory named by its path in the memory directory, each index by its
 * path there too (`MEMORY.md`, `team/MEMORY.md`): for the writers that work on paths (undo, restore).
 */
export function pointerPlacesAt(rel: string): { index: string; file: string }[] {
  const { where, file } = memoryAt('', rel);
  return pointerPlaces(where, file).map((p) => ({ index: inScope(p.index.scope, INDEX_FILE), file: p.file }));
}

/** The pointer that loads a memory: MEMORY.md's ({@link pointerPlaces}). Where a fix adds an orphan's. */
export function pointerHome(where: Where, file: string): { index: Where; file: string } {
  return pointerPlaces(where, file)[0]!;
}

/**
 * Change a memory's pointers in every index that has them ({@link pointerPlaces}); an index that
 * does not exist is left so. `edit` gets each index, the memory's name there and the place's number.
 */
export async function editPointers(where: Where, file: string, edit: (index: ParsedIndex, file: string, place: number) => ParsedIndex): Promise<void> {
  const places = pointerPlaces(where, file);
  for (let i = 0; i < places.length; i++) {
    const place = places[i]!;
    // In a bulk change: its one copy of the index, edited at once (no await between reading and editing it).
    const batched = await batchedIndex(place.index, () => readIndexFromDisk(place.index));
    if (batched) {
      batched.parsed = edit(batched.parsed, place.file, i);
      continue;
    }
    const index = await readIndex(place.index);
    if (index.text !== null) await writeIndex(place.index, edit(index.parsed, place.file, i), index.text);
  }
}

/**
 * Check the name of a topic file: one path segment ending in .md, not the index, not hidden.
 * Enough for a file that exists (whatever another program called it, it can be read, edited,
 * renamed and deleted); a new name must also pass `checkNewFileName`. The name is kept as given,
 * byte for byte: a decomposed `cafe\u0301.md` (macOS tools, archives) is its own file, and may sit
 * beside a composed `caf\u00e9.md` on Linux — normalising here would act on the other one.
 */
export function checkFileName(file: string): string {
  const name = file;
  if (name === '' || name.includes('/') || name.includes('\\') || name.includes('\0')) {
    throw new MemoryError(
      'invalid-name',
      `${quoteName(file)} is not a valid memory file name: use a plain name like feedback_testing.md, without folders or slashes.`,
    );
  }
  if (name.startsWith('.')) throw new MemoryError('invalid-name', `${quoteName(file)} starts with a dot; such files are hidden and never read as memories.`);
  if (!/\.md$/i.test(name)) throw new MemoryError('invalid-name', `${quoteName(file)} must end in .md.`);
  if (name.toUpperCase() === INDEX_FILE.toUpperCase()) throw new MemoryError('invalid-name', `${INDEX_FILE} is the index, not a memory.`);
  if (Buffer.byteLength(name) > 200) throw new MemoryError('invalid-name', `${quoteName(file)} is too long for a file name.`);
  return name;
}

/**
 * Check the name of a memory file about to be created (by the app, the CLI, extraction, a dream,
 * a move between scopes): `checkFileName`, and the team key rule of `sanitizePathKey` for one
 * segment — no `%xx`, `#`, `?`, control or bidi characters, Windows device names (`CON.md`,
 * `aux.md`), trailing dots or spaces — so it reads the same in a terminal, in a MEMORY.md link,
 * on Windows, and on the team server. Names of files that already exist are only held to
 * `checkFileName`: they can still be read, edited, renamed away and deleted.
 */
export function checkNewFileName(file: string, scope?: Scope): string {
  return checkFileName(checkNameEnters(file.normalize('NFC'), scope));
}

/**
 * {@link checkMemoryPath} for a path about to be created (a rename): every part obeys the rule of
 * {@link checkNewFileName}, in Unicode NFC — the only form Memdir writes (team sync takes no other).
 */
export function checkNewMemoryPath(file: string, scope?: Scope): string {
  return checkMemoryPath(checkNameEnters(file.normalize('NFC'), scope));
}

/**
 * The entry beside `rel` that holds its name, other than those in `except`: the name itself, or the same name in
 * another Unicode form (NFD `cafe\u0301.md` for NFC `caf\u00e9.md`), which would look the same everywhere
 * a person reads it; null when there is none. Read from the folder's listing, so a rename that changes
 * only letter case on a case-insensitive file system does not find its own source.
 */
async function takenBy(root: string, rel: string, except: readonly string[]): Promise<string | null> {
  const slash = rel.lastIndexOf('/');
  const folder = slash < 0 ? '' : rel.slice(0, slash);
  const exact = rel.slice(slash + 1);
  let names: string[];
  try {
    names = await fs.readdir(folder ? await resolveInside(root, folder) : root);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
  const at = (n: string) => (folder ? `${folder}/${n}` : n);
  const free = names.filter((n) => !except.includes(at(n)));
  const holder = free.includes(exact) ? exact : formTwin(free, exact);
  return holder === null ? null : at(holder);
}

/** How a refusal names `holder`, the same name as the one asked for in another Unicode form (see {@link formTwin}). */
export function twinClause(holder: string): string {
  return `${quoteName(holder)} is the same name, written in another Unicode form`;
}

/**
 * The name among `names` that is `name` written in another Unicode form (NFD `cafe\u0301.md` for NFC
 * `caf\u00e9.md`), or null: two such names look the same wherever a person reads them.
 */
export function formTwin(names: Iterable<string>, name: string): string | null {
  const key = name.normalize('NFC');
  for (const n of names) if (n !== name && n.normalize('NFC') === key) return n;
  return null;
}

/**
 * Whether the file system finds a file at `rel` that is none of `except`: on a case-insensitive file
 * system (macOS, Windows) `foo.md` opens `Foo.md`, which the listing above does not name — a write
 * there would replace another memory. The same file as one of `except` (a rename of letter case only) is not.
 */
async function sameFileElsewhere(root: string, rel: string, except: readonly string[]): Promise<boolean> {
  const statOf = async (name: string) => {
    const abs = await confineOrNull(root, name);
    return abs === null ? null : fs.lstat(abs).catch(() => null);
  };
  const found = await statOf(rel);
  if (!found) return false;
  for (const name of except) {
    const source = await statOf(name);
    if (source && source.ino === found.ino && source.dev === found.dev) return false;
  }
  return true;
}

/**
 * A memory may be written at the new name `rel` (create, rename, a move between scopes, every writer
 * that makes a file): refused when the name exists, as typed or in another Unicode form, other than
 * `except` (the source of a rename; the names an undo itself writes or takes away).
 * `advice` ends the sentence: what the person can do instead.
 */
export async function refuseTakenName(root: string, rel: string, advice: string, except?: string | readonly string[]): Promise<void> {
  const others = except === undefined ? [] : typeof except === 'string' ? [except] : except;
  const holder = (await takenBy(root, rel, others)) ?? ((await sameFileElsewhere(root, rel, others)) ? rel : null);
  if (holder === null) return;
  throw new MemoryError('exists', await takenSentence(rel, holder, advice));
}

/**
 * Why the name `rel` may not be written: `holder` has it, as typed or in another Unicode form. The names are
 * shown masked: a name holding a secret (saved anyway on purpose) is still not printed.
 */
export async function takenSentence(rel: string, holder: string, advice: string): Promise<string> {
  const shown = (await maskedName(rel)).masked;
  if (holder === rel) return `${shown} already exists; ${advice}`;
  return `${shown} already exists: ${twinClause((await maskedName(holder)).masked)}; ${advice}`;
}

/**
 * refuseTakenName as a sentence instead of a throw: why a file may not be made at `rel`, or null
 * when the name is free (a dream's proposal, a pulled key — they report a refusal and go on).
 */
export async function takenNameRefusal(root: string, rel: string, advice: string): Promise<string | null> {
  try {
    await refuseTakenName(root, rel, advice);
    return null;
  } catch (error) {
    if (error instanceof MemoryError) return error.message;
    throw error;
  }
}

/** The key rule applied to a memory's name, refused in words about the memory (and its scope, when known), not about sync keys. */
function checkNameEnters(file: string, scope: Scope | undefined): string {
  const check = sanitizePathKey(file);
  if (!check.ok) {
    const what = scope ? `the name of a ${scope} memory` : 'a memory file name';
    throw new MemoryError('invalid-name', `${quoteName(file)} cannot be ${what}: ${check.why}.`);
  }
  return file;
}

/**
 * The path of an existing memory relative to its memory directory: a plain name, or folders and
 * a name (`retros/2026-01.md`) — every `*.md` under the directory is a memory (R-RECALL-SELECT).
 * Each folder is a plain name (no `.`/`..`, no dot-folders, no `team/`: team memory is its own
 * scope); the last part passes {@link checkFileName}. Writes are still confined to the directory.
 */
export function checkMemoryPath(file: string): string {
  const parts = file.trim().split('/');
  const name = parts.pop()!;
  for (const folder of parts) {
    if (folder === '' || folder.startsWith('.') || folder.includes('\\') || /[\u0000-\u001f\u007f<>:"|?*]/.test(folder)) {
      throw new MemoryError('invalid-name', `${quoteName(file)} is not a valid memory path: folders must be plain names, like retros/2026-01.md.`);
    }
  }
  if (parts[0] === TEAM_DIR) throw new MemoryError('invalid-name', `${quoteName(file)} is in the team folder: open it as a team memory.`);
  if (parts.length > MAX_MEMORY_DEPTH) throw new MemoryError('invalid-name', `${quoteName(file)} is more than ${MAX_MEMORY_DEPTH} folders deep.`);
  return [...parts, checkFileName(name)].join('/');
}

/**
 * `check(name)` for a name a person typed, its refusal saying each secret in the name masked, as
 * the scanner masks it (R-SYNC-SECURITY): a token typed into the name box is not printed back in
 * a toast or a terminal. The checks above stay synchronous; the scan runs only on a refusal.
 */
async function maskedRefusal<T>(name: string, check: () => T): Promise<T> {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof MemoryError) || error.code !== 'invalid-name') throw error;
    const { masked, inName } = await maskedName(name);
    if (inName.length === 0) throw error;
    // The checks quote the name, or one of its parts, cut at 80 characters (a token across the cut is
    // not found whole in the sentence): each quoted form is replaced by the masked name's, then any
    // secret still there as written.
    const parts = name.split('/');
    const maskedParts = masked.split('/');
    let message = error.message.split(quoteName(name)).join(quoteName(masked));
    if (maskedParts.length === parts.length) parts.forEach((part, i) => (message = message.split(quoteName(part)).join(quoteName(maskedParts[i]!))));
    for (const f of inName) message = message.split(name.slice(...f.range)).join(f.match);
    throw new MemoryError('invalid-name', message);
  }
}

/** A file name for a new memory from its type and name: `feedback_no_orm.md`. */
export function suggestFileName(type: string, name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60)
    .replace(/_+$/, '');
  return `${type}_${slug || Date.now().toString(36)}.md`;
}

/**
 * A memory file's text, confined to `root` (links refused); null when it (or the memory dir) does
 * not exist; a clear error when it is not text (`notText` words it for the caller, from the reason
 * "it is not valid UTF-8 text…"; by default "… cannot be edited"), or a folder.
 */
export async function readText(root: string, rel: string, notText?: (rel: string, reason: string) => string): Promise<string | null> {
  const abs = await confineOrNull(root, rel);
  if (abs === null) return null;
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if ((error as NodeJS.ErrnoException).code === 'EISDIR')
      throw new MemoryError('invalid-input', `${rel} is a folder, not a memory file: move or rename that folder first.`);
    throw error;
  }
  const outcome = decode(bytes, factsOf({ size: bytes.length, mtimeMs: 0, ctimeMs: 0, ino: 0 }));
  if (!outcome.ok) throw new MemoryError('invalid-input', notText ? notText(rel, outcome.reason) : `${rel} cannot be edited: ${outcome.reason}.`);
  return outcome.text;
}

/** A directory's index (`where.scope`'s MEMORY.md), parsed, and its text (null when there is none). */
export async function readIndex(where: Where): Promise<{ parsed: ParsedIndex; text: string | null }> {
  const batched = await batchedIndex(where, () => readIndexFromDisk(where));
  if (batched) return { parsed: batched.parsed, text: serializeIndex(batched.parsed) };
  return readIndexFromDisk(where);
}

async function readIndexFromDisk(where: Where): Promise<{ parsed: ParsedIndex; text: string | null }> {
  const text = await readText(where.memoryDir, inScope(where.scope, INDEX_FILE));
  return { parsed: parseIndex(text ?? ''), text };
}

/**
 * What a writer that creates MEMORY.md starts from (R-INDEX) — the one rule for every such writer
 * (writeIndex, a dream's Prune, a relink or import, a restore). Where there was none (`before` is
 * null) and the folder has memories, Claude Code 2.1.332 would build one at its next session start
 * (shared/index-build.ts); a MEMORY.md holding only the writer's pointers would stop that build and
 * leave every other memory unlisted for good. So the writer's change goes on top of what Claude
 * Code would have built from the memories there — its own (`own`: the paths it writes pointers
 * for) left out — as if a session had started first, and its history entry says so. '' when
 * nothing is seeded: an index that exists (an empty or blank one too: the client keeps it), the
 * team's index (it loads nothing), or nothing to list. Called inside the writer's `transact`.
 */
export async function seedIndex(where: Where, before: string | null, own: Iterable<string>): Promise<string> {
  if (before !== null || where.scope !== 'private') return '';
  const built = predictBuiltIndex(where.memoryDir, { leaveOut: new Set(own) });
  if (built === null) return '';
  await noteInChange(where.memoryDir, builtIndexNote(built.listed.length));
  return built.text;
}

/**
 * Writes a directory's index when `parsed` differs from the text read (`before`) — the one place
 * the memory service writes an index. A MEMORY.md it creates is seeded ({@link seedIndex}): what
 * Claude Code would have built from the other memories there first, then the change's lines.
 */
export async function writeIndex(where: Where, parsed: ParsedIndex, before: string | null): Promise<void> {
  const batched = before === null ? null : await batchedIndex(where, () => readIndexFromDisk(where));
  if (batched) {
    batched.parsed = parsed;
    return;
  }
  const text = serializeIndex(parsed);
  if (text === before) return;
  const seed = await seedIndex(
    where,
    before,
    indexEntries(parsed).map((e) => e.file),
  );
  await writeFileAtomic(where.memoryDir, inScope(where.scope, INDEX_FILE), seed + text);
}

/** A memory's text, refused in words when it is larger than any scan would read (TOPIC_MAX_BYTES). */
function checkedSize(text: string): string {
  const tooLarge = memoryTextTooLarge(text);
  if (tooLarge) throw new MemoryError('invalid-input', tooLarge);
  return text;
}

/**
 * Runs `fn` (many memories changed inside one `transact`: a bulk change) with every index it edits
 * held in memory ({@link runIndexBatch}), and writes each index that changed once at the end: one
 * read and one atomic write of MEMORY.md for the whole change instead of one per memory.
 * `foldersOnce`: each folder `fn` writes in is fsynced once, when `fn` ends ({@link syncingFoldersOnce}),
 * not after every file — still before any index is written (and so before History records the
 * change): a crash never leaves MEMORY.md pointing at a memory whose rename is not yet on disk.
 * Only for changes whose files stand alone (a type change, a delete, a retire); a move's new file
 * must be durable before its old one goes, so a move keeps the fsync after each file.
 */
export function writingIndexesOnce<T>(opts: { foldersOnce?: boolean }, fn: () => Promise<T>): Promise<T> {
  return runIndexBatch(opts.foldersOnce ? () => syncingFoldersOnce(fn) : fn, async (held) => {
    // Changed on disk while the change ran (Claude Code appended a pointer), the write merges the
    // change's edits onto what is there, as every index write inside a change does (history's transact).
    for (const index of held) await writeIndex(index.where, index.parsed, index.before);
  });
}

function tx<T>(where: Where, source: ChangeSource, summary: string, fn: () => Promise<T>): Promise<{ result: T; entry: HistoryEntry | null }> {
  return transact(where.memoryDir, { source, summary, ...(where.dataDir ? { dataDir: where.dataDir } : {}) }, fn);
}

export interface CreateInput {
  fields: TopicFields;
  body: string;
  /** File name; derived from type and name when absent. */
  file?: string;
  /** The index line's hook; the description when absent. */
  hook?: string;
  source?: ChangeSource;
  /** Fingerprints of secrets to save anyway, on purpose (see {@link refuseNewSecrets}). */
  allowSecrets?: readonly string[];
  /** Write no index pointer: where no index loads (Claude Code's memory-store mode, as its extraction does). */
  noPointer?: boolean;
}

/** Create a topic file and its index pointer (none with `noPointer`). A secret in it is refused unless allowed. */
export async function createMemory(where: Where, input: CreateInput): Promise<WriteResult> {
  const refusal = scopeRefusal(input.fields.type, where.scope);
  if (refusal) throw new MemoryError('scope-refused', refusal);
  if (!input.fields.name.trim()) throw new MemoryError('invalid-input', 'A memory needs a name.');
  const typed = input.file ?? suggestFileName(input.fields.type, input.fields.name);
  const file = await maskedRefusal(typed, () => checkNewFileName(typed, where.scope));
  const rel = inScope(where.scope, file);
  const { result, entry } = await tx(where, input.source ?? 'manual', `Create ${rel}`, async () => {
    const text = checkedSize(serializeTopicFile(input.fields, input.body));
    // A secret in the name first: the sentence that the name exists would print it as typed.
    await refuseNewSecrets({ label: rel, text, before: null, name: file, allow: input.allowSecrets });
    await refuseTakenName(where.memoryDir, rel, 'pick another name or edit it.');
    await writeFileAtomic(where.memoryDir, rel, text);
    for (const place of input.noPointer ? [] : pointerPlaces(where, file)) {
      const index = await readIndex(place.index);
      const already = indexEntries(index.parsed).some((e) => e.file === place.file);
      const pointer = { title: input.fields.name, file: place.file, hook: input.hook ?? input.fields.description };
      if (!already) await writeIndex(place.index, addIndexEntry(index.parsed, pointer), index.text);
    }
    return file;
  });
  return { file: result, entry };
}

export interface UpdateInput {
  file: string;
  fields: TopicFields;
  body: string;
  /** The text the editor started from; when the file changed since, nothing is written. */
  baseText?: string;
  /** Repaired frontmatter (the YAML between the fences) to write in place of the file's own; the fields then go on top. */
  frontmatter?: string;
  hook?: string;
  source?: ChangeSource;
  /** Fingerprints of secrets to save anyway, on purpose (see {@link refuseNewSecrets}). */
  allowSecrets?: readonly string[];
}

/**
 * Rewrite a topic file (frontmatter edited in place) and keep its index line in step. A secret
 * the file did not hold before is refused unless allowed; one it already held does not block.
 */
export async function updateMemory(where: Where, input: UpdateInput): Promise<WriteResult> {
  const refusal = scopeRefusal(input.fields.type, where.scope);
  if (refusal) throw new MemoryError('scope-refused', refusal);
  const file = checkMemoryPath(input.file);
  const rel = inScope(where.scope, file);
  const { entry } = await tx(where, input.source ?? 'manual', `Edit ${rel}`, async () => {
    const current = await readText(where.memoryDir, rel);
    if (current === null) throw new MemoryError('not-found', `${rel} no longer exists; it may have been deleted or renamed outside Memdir.`);
    if (input.baseText !== undefined && current !== input.baseText) {
      throw new MemoryError('conflict', `${rel} was changed on disk while you were editing it; compare both versions before saving.`, current);
    }
    let base = current;
    if (input.frontmatter !== undefined) {
      const problem = frontmatterProblem(input.frontmatter);
      if (problem) throw new MemoryError('invalid-input', problem);
      base = replaceFrontmatter(current, input.frontmatter);
    }
    await writeEdit(where, file, { current, previous: parseTopicFile(current, file), base }, input);
  });
  return { file, entry };
}

/**
 * Change a memory's type (a bulk change's set-type): its text read and parsed once, inside the
 * change, then written as {@link updateMemory} writes an edit. A memory of that type already is
 * left (false: nothing written); one whose frontmatter cannot be read is refused, to be repaired first.
 */
export async function setMemoryType(where: Where, file: string, type: MemoryType): Promise<WriteResult & { changed: boolean }> {
  const refusal = scopeRefusal(type, where.scope);
  if (refusal) throw new MemoryError('scope-refused', refusal);
  const name = checkMemoryPath(file);
  const rel = inScope(where.scope, name);
  const { result, entry } = await tx(where, 'manual', `Edit ${rel}`, async () => {
    const current = await readText(where.memoryDir, rel);
    if (current === null) throw new MemoryError('not-found', `${rel} does not exist.`);
    const topic = parseTopicFile(current, name);
    if (topic.frontmatter !== null && topic.data === null)
      throw new MemoryError('invalid-input', `${name}: its frontmatter cannot be read; open it to repair it first.`);
    if (topic.meta.type === type) return false;
    const fields = { name: topic.meta.name, description: topic.meta.description, type };
    await writeEdit(where, name, { current, previous: topic, base: current }, { fields, body: topic.body });
    return true;
  });
  return { file: name, entry, changed: result };
}

/**
 * The one way an edit is written (updateMemory, setMemoryType): the new text from `fields` and
 * `body` over `base` (frontmatter edited in place), its size and new secrets checked, written
 * atomically, and the memory's pointers kept in step with its name and description.
 */
async function writeEdit(
  where: Where,
  file: string,
  was: { current: string; previous: ParsedTopic; base: string },
  input: Pick<UpdateInput, 'fields' | 'body' | 'hook' | 'allowSecrets'>,
): Promise<void> {
  const rel = inScope(where.scope, file);
  const { current, previous } = was;
  const text = checkedSize(serializeTopicFile(input.fields, input.body, was.base));
  await refuseNewSecrets({ label: rel, text, before: current, allow: input.allowSecrets });
  await writeFileAtomic(where.memoryDir, rel, text);
  await editPointers(where, file, (index, named) => {
    const pointer = indexEntries(index).find((e) => e.file === named);
    if (!pointer) return index;
    const title = pointer.title === previous.meta.name ? input.fields.name : pointer.title;
    // A hook written from the description (whole, or as a pointer holds it: one line, cut) follows it.
    const followed = pointer.hook === previous.meta.description || pointer.hook === pointerHook(previous.meta.description);
    const hook = input.hook ?? (followed ? input.fields.description : pointer.hook);
    return title !== pointer.title || hook !== pointer.hook ? updateIndexEntry(index, named, { title, hook }) : index;
  });
}

/**
 * Rename a topic file and retarget its index pointers. A new name holding a secret is refused
 * unless allowed (its pointer is MEMORY.md's, sent to the model: see {@link refuseNewSecrets}).
 * `clearsName`: the rename is to take a secret out of the name (the Alerts page), so a secret the
 * old name held is refused in the new one too.
 */
export async function renameMemory(
  where: Where,
  from: string,
  to: string,
  allowSecrets?: readonly string[],
  opts: { clearsName?: boolean } = {},
): Promise<WriteResult> {
  const source = await maskedRefusal(from, () => checkMemoryPath(from));
  const target = await maskedRefusal(to, () => checkNewMemoryPath(to, where.scope));
  // Only the name changes: the text it keeps is not checked again, nor a secret the old name held (the model has it already).
  const nameBefore = opts.clearsName ? {} : { nameBefore: source };
  await refuseNewSecrets({ label: inScope(where.scope, target), text: '', before: null, name: target, ...nameBefore, allow: allowSecrets });
  const { entry } = await tx(where, 'manual', `Rename ${inScope(where.scope, source)} to ${target}`, async () => {
    await refuseTakenName(where.memoryDir, inScope(where.scope, target), 'pick another name or edit it.', inScope(where.scope, source));
    await renameConfined(where.memoryDir, inScope(where.scope, source), inScope(where.scope, target));
    // Each index names it as it names the source: x.md in its own directory's, team/x.md in MEMORY.md.
    const to = pointerPlaces(where, target);
    await editPointers(where, source, (index, named, place) => retargetIndexEntries(index, named, to[place]!.file));
  });
  return { file: target, entry };
}

/**
 * Retire a team memory (R-SYNC: deletions do not propagate): its text emptied, which the next sync
 * shares, so it never comes back and teammates see it retired. A retired memory is no memory: the
 * scan lists it nowhere and Health offers no pointer to it (shared/memory-types.ts, isRetiredMemory). Pointers are the caller's.
 */
export async function retireMemoryFile(memoryDir: string, rel: string): Promise<void> {
  await writeFileAtomic(memoryDir, rel, '');
}

/**
 * Retire a team memory — the one front door for the app's Retire and `memdir team retire`: its text
 * emptied (a 0-byte file, written atomically: {@link retireMemoryFile}) and its pointers taken out of
 * team/MEMORY.md and MEMORY.md, as one history entry that one undo takes back whole. The next sync
 * shares the empty file, so it stays retired for every teammate (R-SYNC: a deletion would not
 * propagate). A private memory is not retired (delete it), nor one already retired.
 */
export async function retireMemory(where: Where, file: string): Promise<WriteResult> {
  const name = checkMemoryPath(file);
  const rel = inScope(where.scope, name);
  if (where.scope !== 'team')
    throw new MemoryError(
      'invalid-input',
      `${rel} is a private memory: only a team memory is retired (its emptied text shared by the sync). Delete a private memory instead.`,
    );
  const { entry } = await tx(where, 'manual', `Retire ${rel}`, async () => {
    const abs = await confineOrNull(where.memoryDir, rel);
    const found = abs === null ? null : await fs.lstat(abs).catch(() => null);
    if (found === null) throw new MemoryError('not-found', `${rel} does not exist.`);
    if (!found.isFile()) throw new MemoryError('invalid-input', `${rel} is not a memory file: move or rename it first.`);
    if (found.size === 0) throw new MemoryError('invalid-input', `${rel} is already retired (its text is empty).`);
    await retireMemoryFile(where.memoryDir, rel);
    await editPointers(where, name, (index, named) => removeIndexEntries(index, named));
  });
  return { file: name, entry };
}

/**
 * Delete a topic file and its pointers. The content stays in history, restorable any time. Its text
 * is never read: a file that is not UTF-8 (or too large to open) deletes too, its bytes kept in history.
 */
export async function deleteMemory(where: Where, file: string): Promise<WriteResult> {
  const name = checkMemoryPath(file);
  const rel = inScope(where.scope, name);
  const { entry } = await tx(where, 'manual', `Delete ${rel}`, async () => {
    const abs = await confineOrNull(where.memoryDir, rel);
    const found = abs === null ? null : await fs.lstat(abs).catch(() => null);
    if (found === null) throw new MemoryError('not-found', `${rel} does not exist.`);
    if (found.isDirectory()) throw new MemoryError('invalid-input', `${rel} is a folder, not a memory file: move or rename that folder first.`);
    await removeFileConfined(where.memoryDir, rel);
    await editPointers(where, name, (index, named) => removeIndexEntries(index, named));
  });
  return { file: name, entry };
}

/**
 * Replace the whole index text (the app's MEMORY.md editor). With `baseText` (the text the edit
 * started from), a file changed on disk since — Claude Code appending a pointer — gets the edit
 * merged onto it line by line (the one three-way merge, shared/line-merge.ts): `merged` says so.
 * Where both changed the same lines it is refused with a conflict that quotes them and carries what
 * is on disk now, writing nothing. A secret it did not hold before is refused unless allowed.
 */
export async function saveIndexText(
  where: Where,
  text: string,
  baseText?: string,
  allowSecrets?: readonly string[],
): Promise<WriteResult & { merged: boolean }> {
  const rel = inScope(where.scope, INDEX_FILE);
  let merged = false;
  const { entry } = await tx(where, 'manual', `Edit ${rel}`, async () => {
    const current = await readText(where.memoryDir, rel);
    let mine = text;
    if (baseText !== undefined && (current ?? '') !== baseText) {
      const lf = (t: string) => t.replace(/\r\n/g, '\n');
      const merge = mergeLines(lf(baseText), lf(text), lf(current ?? ''), {}, { besideInsertions: true });
      if (!merge.clean) {
        throw new MemoryError(
          'conflict',
          `${rel} was changed on disk while you were editing it, on lines you changed too (${quotedLines(merge.theirsInConflict)}): nothing was saved. Compare both versions and keep theirs, yours, or a merge of both.`,
          current ?? '',
        );
      }
      mine = merge.text;
      merged = true;
    }
    // The file keeps its line endings, as a topic file does (topic-file.ts): an editor hands back
    // `\n` lines, and a save rewriting every CRLF of the file is a change nobody asked for.
    const written = current !== null ? mine.replace(/\r?\n/g, parseIndex(current).eol) : mine;
    await refuseNewSecrets({ label: rel, text: written, before: current, allow: allowSecrets });
    await writeFileAtomic(where.memoryDir, rel, written);
  });
  return { file: INDEX_FILE, entry, merged };
}

/** How {@link applyFixes} runs. */
export interface FixOptions {
  source?: ChangeSource;
  /**
   * Add orphans even where their pointer would land below the cut (R-INDEX). Off by default:
   * adding stops at the first pointer that would not reach the agent, and the rest are held back
   * for the user to choose (make room first, or add them below the cut anyway).
   */
  pastCut?: boolean;
}

/** What a set of fixes does to MEMORY.md, worked out before anything is written. */
export interface FixPlan {
  /** The index text after the fixes. */
  text: string;
  /** Topic files the fixes rewrite (quote-value), with their new text. */
  topics: ReadonlyMap<string, string>;
  applied: FixRequest[];
  /** Orphans not added because their pointer would fall below the cut. */
  heldBack: FixRequest[];
  /** Requests that no longer apply (the problem is gone). */
  stale: FixRequest[];
  impact: IndexImpact;
}

/** What the files say, gathered before planning (the plan itself is pure). */
interface FixFacts {
  /** Title and hook of each orphan to add; null when it is gone or unreadable. */
  topics: ReadonlyMap<string, { title: string; hook: string } | null>;
  /** Pointer targets that exist on disk (a dangling pointer's file may have come back). */
  existing: ReadonlySet<string>;
  /** Topic files with a value a comment cuts short, and their text with it quoted. */
  quoted: ReadonlyMap<string, string>;
}

/**
 * The fixes applied to an index text (R-HEALTH), pointers out first — they make room — then
 * orphans in, in the order asked, each checked against the cut: without `pastCut`, the first
 * orphan whose pointer would not reach the agent stops the adding, and it and the rest are held
 * back (a dream that left pointers out to fit is not undone by a click, and nothing pushes the
 * index past its limit unasked).
 */
export function planFixes(indexText: string, fixes: readonly FixRequest[], facts: FixFacts, pastCut = false): FixPlan {
  let parsed = parseIndex(indexText);
  const applied: FixRequest[] = [];
  const heldBack: FixRequest[] = [];
  const stale: FixRequest[] = [];
  const dropLines = new Set<number>();
  const entries = indexEntries(parsed);
  // Quoting rewrites a topic file, not the index: it applies while the file still has a value to quote.
  const topics = new Map<string, string>();
  for (const fix of fixes) {
    if (fix.kind !== 'quote-value') continue;
    const quoted = facts.quoted.get(fix.file);
    if (quoted === undefined || topics.has(fix.file)) stale.push(fix);
    else {
      topics.set(fix.file, quoted);
      applied.push(fix);
    }
  }
  for (const fix of fixes) {
    if (fix.kind === 'add-to-index' || fix.kind === 'quote-value' || !fix.line) continue;
    const pointer = entries.find((e) => e.line === fix.line && e.file === fix.file);
    // A dangling pointer whose file came back, or a repeat whose first pointer is gone, is left alone.
    const noLongerApplies =
      !pointer ||
      dropLines.has(pointer.line) ||
      (fix.kind === 'drop-pointer' ? facts.existing.has(pointer.file) : !entries.some((e) => e.file === fix.file && e.line < pointer.line));
    if (noLongerApplies) {
      stale.push(fix);
      continue;
    }
    dropLines.add(pointer!.line);
    applied.push(fix);
  }
  for (const line of [...dropLines].sort((a, b) => b - a)) {
    const target = indexEntries(parsed).find((e) => e.line === line);
    if (target) parsed = removeIndexEntries(parsed, target.file, new Set([line]));
  }
  let stopped = false;
  for (const fix of fixes) {
    if (fix.kind !== 'add-to-index') continue;
    const topic = facts.topics.get(fix.file) ?? null;
    if (!topic || indexEntries(parsed).some((e) => e.file === fix.file)) {
      stale.push(fix);
      continue;
    }
    if (stopped) {
      heldBack.push(fix);
      continue;
    }
    const next = addIndexEntry(parsed, { title: topic.title, file: fix.file, hook: topic.hook });
    const added = indexEntries(next).findLast((e) => e.file === fix.file)!;
    if (!pastCut && lineFate(loadIndexAsClaudeCode(serializeIndex(next)), added.line) !== 'loaded') {
      stopped = true;
      heldBack.push(fix);
      continue;
    }
    parsed = next;
    applied.push(fix);
  }
  const text = applied.some((f) => f.kind !== 'quote-value') ? serializeIndex(parsed) : indexText;
  return { text, topics, applied, heldBack, stale, impact: indexImpact(indexText, { kind: 'replace', text }) };
}

async function gatherFixFacts(where: Where, fixes: readonly FixRequest[]): Promise<FixFacts> {
  const dir = where.scope === 'team' ? path.join(where.memoryDir, TEAM_DIR) : where.memoryDir;
  const topics = new Map<string, { title: string; hook: string } | null>();
  const existing = new Set<string>();
  const quoted = new Map<string, string>();
  for (const fix of fixes) {
    if (fix.kind !== 'quote-value' || quoted.has(fix.file)) continue;
    const text = await readText(where.memoryDir, inScope(where.scope, checkMemoryPath(fix.file))).catch(() => null);
    const after = text === null ? null : quoteCutValues(text);
    if (after !== null) quoted.set(fix.file, after);
  }
  for (const fix of fixes) {
    if (fix.kind === 'quote-value') continue;
    if (fix.kind === 'add-to-index') {
      const name = checkMemoryPath(fix.file);
      // An orphan whose description is quoted in the same batch gets its pointer's hook from the whole description.
      const text = quoted.get(fix.file) ?? (await readText(where.memoryDir, inScope(where.scope, name)).catch(() => null));
      const topic = text === null ? null : parseTopicFile(text, name);
      topics.set(fix.file, topic ? { title: topic.meta.name, hook: topic.meta.description } : null);
    } else if (
      await fs.lstat(path.join(dir, fix.file)).then(
        () => true,
        () => false,
      )
    )
      existing.add(fix.file);
  }
  return { topics, existing, quoted };
}

/** A team orphan's pointer goes into MEMORY.md ({@link pointerHome}); every other fix acts on its directory's own index. */
function goesToMain(where: Where, fix: FixRequest): boolean {
  return where.scope === 'team' && fix.kind === 'add-to-index';
}

/** The texts the fixes act on: the directory's own index, and MEMORY.md when a team orphan's pointer goes there. */
async function readFixIndexes(where: Where, fixes: readonly FixRequest[]): Promise<{ own: string | null; main: string | null }> {
  const own = (await readIndex(where)).text;
  const main = fixes.some((f) => goesToMain(where, f)) ? (await readIndex({ ...where, scope: 'private' })).text : null;
  return { own, main };
}

/**
 * The fixes planned on the index each writes: a team orphan's pointer, `team/x.md`, on MEMORY.md
 * (checked against its cut), the rest on the directory's own index. The plan together names the
 * requests as asked, and its impact is MEMORY.md's when it adds pointers there (the part the agent
 * loads), else the own index's.
 */
function planRouted(
  where: Where,
  indexes: { own: string | null; main: string | null },
  fixes: readonly FixRequest[],
  facts: FixFacts,
  pastCut = false,
): { plan: FixPlan; own: FixPlan; main: FixPlan | null } {
  const toMain = fixes.filter((f) => goesToMain(where, f));
  const own = planFixes(indexes.own ?? '', toMain.length > 0 ? fixes.filter((f) => !goesToMain(where, f)) : fixes, facts, pastCut);
  if (toMain.length === 0) return { plan: own, own, main: null };
  const home = (file: string) => pointerHome(where, file).file;
  const mainFacts = { ...facts, topics: new Map([...facts.topics].map(([file, topic]) => [home(file), topic])) };
  const main = planFixes(
    indexes.main ?? '',
    toMain.map((f) => ({ ...f, file: home(f.file) })),
    mainFacts,
    pastCut,
  );
  // Back to the requests as asked (x.md), so the caller matches them to its problems.
  const asked = (list: FixRequest[]) => list.map((f) => toMain.find((t) => home(t.file) === f.file)!);
  const plan: FixPlan = {
    ...own,
    applied: [...own.applied, ...asked(main.applied)],
    heldBack: asked(main.heldBack),
    stale: [...own.stale, ...asked(main.stale)],
    impact: main.impact,
  };
  return { plan, own, main };
}

/** What fixing one problem alone would do to the loaded part. */
export interface FixEffect {
  fix: FixRequest;
  /** `loaded`: its pointer would reach the agent; `below-cut`: it would not (held back); `frees`: a pointer out; `quotes`: a value made whole; `stale`: nothing to do. */
  alone: 'loaded' | 'below-cut' | 'frees' | 'quotes' | 'stale';
}

/**
 * R-INDEX, before a fix is applied: what the fixes would do together (the plan, nothing written)
 * and what each would do alone — so Health shows the effect on the loaded part on every button.
 * `first`: the private fixes applied before these team fixes ("Fix all" applies the private scope
 * first): the team's pointers are then planned on MEMORY.md as those leave it, so the two previews
 * add up and hold back what applying them in that order holds back. Each alone is still against
 * MEMORY.md as it is.
 */
export async function previewFixes(
  where: Where,
  fixes: readonly FixRequest[],
  options: { first?: readonly FixRequest[] } = {},
): Promise<{ plan: FixPlan; each: FixEffect[] }> {
  const indexes = await readFixIndexes(where, fixes);
  const facts = await gatherFixFacts(where, fixes);
  const mine: Where = { ...where, scope: 'private' };
  const first = fixes.some((f) => goesToMain(where, f)) && options.first?.length ? options.first : null;
  const afterFirst = first
    ? { ...indexes, main: planRouted(mine, await readFixIndexes(mine, first), first, await gatherFixFacts(mine, first)).plan.text }
    : indexes;
  const plan = planRouted(where, afterFirst, fixes, facts).plan;
  const each = fixes.map((fix): FixEffect => {
    const alone = planRouted(where, indexes, [fix], facts).plan;
    const verdict =
      alone.applied.length > 0
        ? fix.kind === 'add-to-index'
          ? 'loaded'
          : fix.kind === 'quote-value'
            ? 'quotes'
            : 'frees'
        : alone.heldBack.length > 0
          ? 'below-cut'
          : 'stale';
    return { fix, alone: verdict };
  });
  return { plan, each };
}

/**
 * Apply safe fixes (R-HEALTH): add orphans to the index (stopping at the cut unless `pastCut`),
 * drop dangling pointers, drop repeated pointers, quote values a comment cuts short (in the topic
 * file, in place). Each fix is re-checked against the files as they are now, so a stale request
 * (the problem already gone) does nothing rather than damage. One history entry for all of them.
 */
export async function applyFixes(
  where: Where,
  fixes: FixRequest[],
  options: FixOptions = {},
): Promise<{ applied: FixRequest[]; heldBack: FixRequest[]; impact: IndexImpact; entry: HistoryEntry | null }> {
  const summary = (n: number, index = true) => `Fix ${n} ${index ? 'index ' : ''}${n === 1 ? 'problem' : 'problems'}`;
  // The history entry names the fixes made, not the ones asked: orphans held back at the cut are
  // not fixed. transact records its description after the change, so the count is set in it.
  const description = { source: options.source ?? 'fix', summary: summary(fixes.length), ...(where.dataDir ? { dataDir: where.dataDir } : {}) };
  const { result, entry } = await transact(where.memoryDir, description, async () => {
    const indexes = await readFixIndexes(where, fixes);
    const { plan, own, main } = planRouted(where, indexes, fixes, await gatherFixFacts(where, fixes), options.pastCut ?? false);
    for (const [file, text] of plan.topics) await writeFileAtomic(where.memoryDir, inScope(where.scope, checkMemoryPath(file)), text);
    if (own.applied.some((f) => f.kind !== 'quote-value')) await writeIndex(where, parseIndex(own.text), indexes.own);
    if (main && main.applied.length > 0) await writeIndex({ ...where, scope: 'private' }, parseIndex(main.text), indexes.main);
    description.summary = summary(plan.applied.length, plan.topics.size === 0);
    return plan;
  });
  return { applied: result.applied, heldBack: result.heldBack, impact: result.impact, entry };
}
