/**
 * No secret saved into a memory unasked (R-SYNC-SECURITY, for what a person writes): Claude Code
 * sends every memory to the model in every session, so a token typed into a personal memory
 * leaves the machine as surely as one pushed to the team. Every save of text a person wrote —
 * the editor, a new memory, MEMORY.md, a merged text resolving a conflict (app and CLI) — checks
 * the new text with the one scanner and refuses a secret the file did not hold before, unless its
 * fingerprint is allowed on purpose. A secret already in the file does not block unrelated edits.
 * A save that gives a file its name — a new memory, a rename, a move between private and team —
 * has the name checked too: it becomes the file's pointer in MEMORY.md, which Claude Code sends
 * to the model in every session as well. A secret the old name held already is not new when the
 * model was sent that name (a rename; a move to private of a team memory a loaded line of
 * MEMORY.md named as team/x.md — Claude Code does not send team/MEMORY.md); a move to the team is
 * checked whole, its name being new to the server.
 */
import { MemdirError } from '../../shared/errors.js';
import { placeOfLine } from '../../shared/frontmatter-span.js';
import { type Finding, type SecretOnSave, SCANNER_ERROR_RULE, whereFound } from '../../shared/secret-types.js';
import { listInWords, plural } from '../../shared/size-text.js';
import { fingerprintIn } from './fingerprint.js';
import { maskedPath, scanText } from './scanner.js';

/** A save refused because the text would hold a secret it did not hold before. */
export class SecretFoundError extends MemdirError<'secret-found'> {
  override readonly name = 'SecretFoundError';
  constructor(
    message: string,
    /** Each new secret, masked, with the fingerprint that saves it anyway. */
    readonly secrets: SecretOnSave[],
    hint: string,
  ) {
    super('secret-found', message, { hint });
  }
}

/** What a save would write, and what the file held before it (null: a new file). */
export interface GuardedSave {
  /** How the sentence names the file (`notes.md`, `team/MEMORY.md`). */
  label: string;
  text: string;
  /** What the file held before (null: a new file); for a merge, each side. */
  before: string | readonly string[] | null;
  /**
   * The name the save gives the file, relative to its scope's MEMORY.md (`reference_bot.md`,
   * `retros/2026.md`): a new memory, a rename, a move. Every part is checked, and `label`, which
   * ends with it, is shown masked. A secret in it counts as held before only when `nameBefore` holds it.
   */
  name?: string | undefined;
  /**
   * The name the file had, when the model has been sent it already (a rename; a move from team to
   * private of a memory MEMORY.md linked as team/x.md): a secret in it is nothing new. A move from private to team gives none: that name is
   * new to the server and to teammates.
   */
  nameBefore?: string | undefined;
  /** Fingerprints the person chose to save anyway. */
  allow?: readonly string[] | undefined;
}

function article(title: string): string {
  return /^[AEIOU]/.test(title) ? 'an' : 'a';
}

/**
 * Refuse (SecretFoundError) when `text` holds a secret that `before` did not hold and that is not
 * allowed. A secret is recognised by its fingerprint, so one already in the file (moved, or on a
 * line that shifted) is not new. A failed scan is not a reason to refuse a person's save (the
 * scanner fails closed before an upload, where it reports it): it is Memdir's fault, not theirs.
 *
 * Saved, it returns the secrets it let through only because they were allowed (each named by
 * the label, masked): a save that shares them on purpose records that choice where sync reads it.
 */
export async function refuseNewSecrets(save: GuardedSave): Promise<Finding[]> {
  const found = (await scanText(save.text, { file: save.label, ...(save.name !== undefined ? { name: save.name } : {}) })).filter(
    (f) => f.rule !== SCANNER_ERROR_RULE,
  );
  if (found.length === 0) return [];
  // Nothing new: allowed on purpose, or held before (a name's secret only by the name before it:
  // the text's do not count, the pointer is new to the index it goes into).
  const allowed = new Set(save.allow);
  const heldInText = new Set<string>();
  const heldInName = new Set<string>();
  const before = save.before === null ? [] : typeof save.before === 'string' ? [save.before] : save.before;
  // A finding with no fingerprint (more secrets than are listed) names no secret: it is never held before.
  const hold = (held: Set<string>, f: Finding) => {
    if (f.fingerprint !== '') held.add(f.fingerprint);
  };
  for (const text of before) if (text !== '') for (const f of await scanText(text, { file: save.label })) hold(heldInText, f);
  if (save.nameBefore !== undefined) for (const f of await scanText('', { file: save.label, name: save.nameBefore })) hold(heldInName, f);
  // A name holding a secret is never printed: the label ends with the name (GuardedSave), masked where it holds one.
  const label = save.name !== undefined ? maskedPath(save.label, save.name, found) : save.label;
  const fresh: (SecretOnSave & { inName: boolean })[] = [];
  const allowedOnPurpose: Finding[] = [];
  const seen = new Set<string>();
  for (const f of found) {
    const held = f.where === 'name' ? heldInName : heldInText;
    if (held.has(f.fingerprint) || seen.has(f.fingerprint)) continue;
    seen.add(f.fingerprint);
    if (f.fingerprint !== '' && fingerprintIn(allowed, f.fingerprint)) allowedOnPurpose.push({ ...f, file: label });
    else fresh.push({ title: f.title, match: f.match, line: f.line, fingerprint: f.fingerprint, inName: f.where === 'name' });
  }
  if (fresh.length === 0) return allowedOnPurpose;
  const named = fresh.map(
    (s) =>
      `${article(s.title)} ${s.title} (${s.match}) ${whereFound({ where: s.inName ? 'name' : 'content', line: s.line }, (n) => placeOfLine(save.text, n))} [fingerprint ${s.fingerprint}]`,
  );
  const what = named.length === 1 ? named[0] : `${plural(named.length, 'secret')}: ${listInWords(named)}`;
  const how = fresh.every((s) => s.inName)
    ? 'its name goes into MEMORY.md, which Claude Code sends to the model in every session'
    : 'Claude Code sends every memory to the model in every session';
  throw new SecretFoundError(
    `Nothing was saved: ${label} would hold ${what}, and ${how}, so it would leave this machine.`,
    fresh.map(({ inName: _inName, ...s }) => s),
    `Remove it (and revoke it if it is real), or save anyway on purpose by allowing ${fresh.length === 1 ? 'its fingerprint' : 'their fingerprints'}.`,
  );
}
