/**
 * What an export would carry that is a secret (R-SYNC-SECURITY: a secret never leaves the machine
 * in any form). Everything the archive packs goes through the one scanner (src/main/secrets):
 * every file as it is packed (names included), the manifest, and — from the history bundle itself
 * — every file of every revision (each content once per path, named by the oldest revision that
 * holds it) and every revision's message. Undoing or editing out a token leaves it in the history,
 * which an export otherwise packs unseen (compressed inside the bundle, `grep` does not find it).
 */
import { readBundledTexts } from '../history/index.js';
import { reportedFinding, whereFound } from '../../shared/secret-types.js';
import { minuteUtc } from '../../shared/iso-time.js';
import { type Finding, fingerprintIn, scanContent, scanText } from '../secrets/index.js';

/** A secret the export would carry, masked, with the one sentence that says where it is. */
export interface ExportFinding {
  /** In a file as it is packed now, or in the history packed with it. */
  in: 'file' | 'history';
  /** In a file's text, its name, or (history) a revision's message. */
  where: 'content' | 'name' | 'message';
  /** The file's path in the archive (`memory/notes.md`, `agents/local/reviewer/x.md`), any secret in it masked; null for a message. */
  file: string | null;
  /** 1-based line and column in the text; null for a secret in a name. */
  line: number | null;
  column: number | null;
  /** The oldest revision holding it, and that revision's time (ISO 8601); null in a current file. */
  rev: string | null;
  time: string | null;
  /** For a history finding in a file: whether the file as packed now holds the same secret. */
  stillInFile: boolean | null;
  title: string;
  /** The secret masked as `memdir secrets scan` masks it. */
  match: string;
  rule: string;
  severity: Finding['severity'];
  /** What `--allow` takes to pack this finding anyway (empty when the scan itself failed: never allowed). */
  fingerprint: string;
  /** One sentence a person reads. */
  message: string;
}

/** A packed file: its path under the archive's root folder and its bytes. */
export interface PackedFile {
  path: string;
  data: Buffer;
}

function sentence(f: Omit<ExportFinding, 'message'>): string {
  const what = `${/^[AEIOU]/.test(f.title) ? 'an' : 'a'} ${f.title} (${f.match})`;
  const at =
    f.where === 'name' || f.line !== null ? whereFound({ where: f.where === 'name' ? 'name' : 'content', line: f.line ?? 0 }, (n) => `at line ${n}`) : '';
  const fp = f.fingerprint ? ` [fingerprint ${f.fingerprint}]` : '';
  if (f.in === 'file') return `${f.file} holds ${what} ${at}${fp}.`;
  const revision = `revision ${f.rev!.slice(0, 10)} of ${minuteUtc(f.time!)}`;
  if (f.where === 'message') return `The message of history ${revision} holds ${what}${fp}.`;
  return `${f.file} as ${revision} holds ${what} ${at}; ${f.stillInFile ? 'the file still holds it' : 'the file no longer holds it, only its history does'}${fp}.`;
}

function finding(
  base: Omit<ExportFinding, 'message' | 'title' | 'match' | 'rule' | 'severity' | 'fingerprint' | 'where' | 'line' | 'column'>,
  f: Finding,
  where?: 'message',
): ExportFinding {
  const reported = reportedFinding(f);
  const shaped = { ...base, ...reported, where: where ?? reported.where };
  return { ...shaped, message: sentence(shaped) };
}

/**
 * Every secret in what an export packs: `files` (paths under the archive's root folder) and the
 * history `bundle` (whose files are the memory dir's, packed under `memory/`). A history finding
 * is reported once per file and secret, at the oldest revision holding it. Findings whose
 * fingerprint is in `allow` are left out. Never throws for a finding: a scan that fails reports
 * a finding (the scanner fails closed).
 */
export async function findExportSecrets(files: readonly PackedFile[], bundle: Buffer | null, allow: ReadonlySet<string>): Promise<ExportFinding[]> {
  const found: ExportFinding[] = [];
  const current = new Set<string>();
  for (const file of files) {
    for (const f of await scanContent(file.path, file.data)) {
      current.add(`${file.path}\0${f.fingerprint}`);
      if (!fingerprintIn(allow, f.fingerprint)) found.push(finding({ in: 'file', file: f.file, rev: null, time: null, stillInFile: null }, f));
    }
  }
  if (!bundle) return found;
  const reported = new Set<string>();
  for (const text of await readBundledTexts(bundle)) {
    if (text.path === null) {
      for (const f of await scanText(text.data.toString('utf8'), { file: `revision ${text.rev}` })) {
        if (!fingerprintIn(allow, f.fingerprint))
          found.push(finding({ in: 'history', file: null, rev: text.rev, time: text.time, stillInFile: null }, f, 'message'));
      }
      continue;
    }
    const packedAs = `memory/${text.path}`;
    for (const f of await scanContent(packedAs, text.data)) {
      const key = `${packedAs}\0${f.where}\0${f.fingerprint}`;
      if (fingerprintIn(allow, f.fingerprint) || reported.has(key)) continue;
      reported.add(key);
      found.push(finding({ in: 'history', file: f.file, rev: text.rev, time: text.time, stillInFile: current.has(`${packedAs}\0${f.fingerprint}`) }, f));
    }
  }
  return found;
}
