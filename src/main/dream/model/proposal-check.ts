/**
 * What a dream may write. Every edit a model proposes — and, as a last check, every change of
 * any dream before it is applied — is validated here:
 *   - the path stays inside the memory dir: one topic file at the top, or one in `team/`; never
 *     the index (Prune owns it), a dotfile, a folder, `..`, an absolute path, or a file Orient
 *     could not read (a symlink, binary, too large);
 *   - the content is a topic file with a name, a one-line description and a valid type;
 *   - a `user` memory never goes into the team memory (R-TYPES);
 *   - no secret that was not already in the memory dir (the scanner of src/main/secrets);
 *   - a new file: not a name taken on disk in another Unicode form or letter case;
 *   - deletions: only existing topic files, never team ones (a deletion does not propagate
 *     through sync, so a team memory would come back — R-SYNC).
 * The share of memories removed is checked on the whole plan, in run-dream.ts.
 */
import { TEAM_DIR } from '../../../shared/limits.js';
import { scopeRefusal } from '../../../shared/memory-types.js';
import { checkFileName, checkNewFileName, MemoryError, parseTopicFile } from '../../memdir/index.js';
import { visibleText } from '../../../shared/visible-text.js';
import { UnsafePathError, splitRelativePath } from '../../core/confined-path.js';
import { scanText } from '../../secrets/index.js';
import type { DreamPlan } from '../plan/dream-plan.js';
import type { MemorySnapshot } from '../plan/memory-snapshot.js';

/** A memory a dream writes is a short note; anything bigger is refused. */
export const MAX_PROPOSED_BYTES = 64 * 1024;

/** A proposal refused, with the reason given back to the model and shown in the report. */
export type ProposalCheck = { ok: true; rel: string; scope: 'private' | 'team' } | { ok: false; reason: string };

/** What a model gave where text was expected, in words ("a number"), for a refusal. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'boolean') return 'true or false';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Checks a path a model gave: confined, one topic file, private or team. `action` is what the
 * model asked to do with it, for the refusal's words: a write by default (`Refused x.md: …`),
 * `read`, `delete`, or `delete a.md as merged into` (`Refused to delete a.md as merged into x.md: …`).
 */
export function checkProposedPath(file: unknown, snapshot: MemorySnapshot, action?: string): ProposalCheck {
  if (typeof file !== 'string' || file.trim() === '') return { ok: false, reason: 'No file given.' };
  const given = file.trim().replace(/^\.\//, '');
  const refused = (shown: string) => (action ? `Refused to ${action} ${shown}` : `Refused ${shown}`);
  let parts: string[];
  try {
    parts = splitRelativePath(given, 'the memory directory', action ?? 'write');
  } catch (error) {
    if (error instanceof UnsafePathError) return { ok: false, reason: `${error.message}. A dream only writes inside the memory directory.` };
    throw error;
  }
  const scope = parts.length === 2 && parts[0] === TEAM_DIR ? 'team' : parts.length === 1 ? 'private' : null;
  if (!scope)
    return {
      ok: false,
      reason: `${refused(visibleText(given, { lines: false }))}: a dream writes only topic files at the top of the memory directory or in ${TEAM_DIR}/, not in other folders.`,
    };
  try {
    // A file the dream would create is held to the rule for names entering the memory dir (issue 15).
    if (snapshot.files.has(parts.join('/'))) checkFileName(parts.at(-1)!);
    else checkNewFileName(parts.at(-1)!);
  } catch (error) {
    if (error instanceof MemoryError)
      return {
        ok: false,
        reason: `${refused(visibleText(given, { lines: false }))}: ${error.message}${/MEMORY\.md/i.test(given) ? ' Prune rebuilds the index after Consolidate; do not edit it.' : ''}`,
      };
    throw error;
  }
  const rel = parts.join('/');
  const known = snapshot.files.get(rel);
  if (known && known.text === null) return { ok: false, reason: `${refused(rel)}: ${known.problem ?? 'it could not be read'}, so a dream leaves it alone.` };
  // A name held by no file (a folder `x.md/`): never written, deleted, merged into or read.
  const notFile = snapshot.notFiles.get(rel);
  if (notFile) return { ok: false, reason: `${refused(rel)}: ${notFile}, so a dream leaves it alone.` };
  return { ok: true, rel, scope };
}

/** Checks a proposed topic file's content (not its secrets: see {@link findNewSecrets}). */
export function checkProposedContent(rel: string, scope: 'private' | 'team', content: unknown): { ok: true } | { ok: false; reason: string } {
  if (typeof content !== 'string')
    return { ok: false, reason: `Refused ${rel}: its content is not text (${kindOf(content)}); write the whole topic file as text.` };
  if (content.trim() === '') return { ok: false, reason: `Refused ${rel}: no content.` };
  if (Buffer.byteLength(content) > MAX_PROPOSED_BYTES)
    return {
      ok: false,
      reason: `Refused ${rel}: ${Buffer.byteLength(content)} bytes is too long for a memory (at most ${MAX_PROPOSED_BYTES}); move detail out or split it.`,
    };
  const topic = parseTopicFile(content, rel.split('/').pop()!);
  const blocking = topic.issues.filter((i) => i.code === 'invalid-type' || i.code === 'bad-frontmatter');
  if (blocking.length > 0)
    return {
      ok: false,
      reason: `Refused ${rel}: ${blocking.map((i) => i.message).join(' ')} Write YAML frontmatter with name, a one-line description and type (user, feedback, project or reference).`,
    };
  const refusal = scopeRefusal(topic.meta.type, scope);
  if (refusal) return { ok: false, reason: `Refused ${rel}: ${refusal}` };
  return { ok: true };
}

/** Checks a proposed deletion against the staged state. */
export function checkProposedDelete(file: unknown, plan: DreamPlan): ProposalCheck {
  const path = checkProposedPath(file, plan.snapshot, 'delete');
  if (!path.ok) return path;
  if (path.scope === 'team') {
    return {
      ok: false,
      reason: `Refused to delete ${path.rel}: a deleted team memory comes back with the next pull (deletions do not propagate); retire it by merging its content into another and emptying it through the team view.`,
    };
  }
  if (!plan.exists(path.rel)) return { ok: false, reason: `Refused to delete ${path.rel}: there is no such memory.` };
  return path;
}

/**
 * Checks the memory a deletion names as the one it was merged into (`merged_into`): none, or an
 * existing topic file; refused in words about the delete.
 */
export function checkMergedInto(deleted: string, mergedInto: unknown, plan: DreamPlan): ProposalCheck | null {
  if (mergedInto === undefined || mergedInto === null) return null;
  if (typeof mergedInto !== 'string')
    return {
      ok: false,
      reason: `Refused to delete ${deleted}: merged_into is not text (${kindOf(mergedInto)}); name the memory it was merged into (feedback_x.md), or leave merged_into out.`,
    };
  if (mergedInto.trim() === '') return null;
  const into = checkProposedPath(mergedInto, plan.snapshot, `delete ${deleted} as merged into`);
  if (into.ok && !plan.exists(into.rel)) return { ok: false, reason: `Refused to delete ${deleted}: ${into.rel}, which it was merged into, does not exist.` };
  return into;
}

/** Fingerprints of the secrets already in the memory dir as Orient read it (computed once, lazily). */
export class KnownSecrets {
  #known: Promise<Set<string>> | null = null;

  constructor(private readonly snapshot: MemorySnapshot) {}

  get(): Promise<Set<string>> {
    this.#known ??= (async () => {
      const set = new Set<string>();
      for (const f of this.snapshot.files.values()) {
        if (f.text === null) continue;
        for (const finding of await scanText(f.text, { file: f.rel })) if (finding.fingerprint !== '') set.add(finding.fingerprint);
      }
      return set;
    })();
    return this.#known;
  }
}

/**
 * Secrets in `text` that were not in the memory dir before the dream, in words (never the
 * secret itself). A merge that moves an existing secret is not a new one; the secrets view
 * reports that secret anyway.
 */
export async function findNewSecrets(rel: string, text: string, known: KnownSecrets): Promise<string[]> {
  const findings = await scanText(text, { file: rel });
  if (findings.length === 0) return [];
  const before = await known.get();
  // One with no fingerprint (more secrets than are listed) is never known before.
  return findings.filter((f) => f.fingerprint === '' || !before.has(f.fingerprint)).map((f) => `${f.title} (${f.rule}) on line ${f.line}, ${f.match}`);
}
