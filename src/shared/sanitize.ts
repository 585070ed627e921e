/**
 * R-SANITIZE: the directory name Claude Code gives a project under `projects/`.
 * Every UTF-16 code unit outside [A-Za-z0-9] becomes `-` (nothing collapsed); a result longer
 * than 200 is cut to 200 and `-<base-36 hash>` appended: djb2, the hash Claude Code 2.1.332's
 * native build appends too (src/main/memdir/claude-code-interop.test.ts). A build whose runtime
 * hashed otherwise would write another suffix, so look-ups of long names match on the prefix.
 */
import { SANITIZED_MAX_LENGTH } from './limits.js';

/** djb2 over UTF-16 code units as a signed 32-bit integer (the JavaScript `| 0` idiom). */
export function djb2(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) - hash + text.charCodeAt(i)) | 0;
  return hash;
}

/** The sanitised directory name of a canonical project key. */
export function sanitizeDirName(key: string): string {
  const sanitized = key.replace(/[^a-zA-Z0-9]/g, '-');
  if (sanitized.length <= SANITIZED_MAX_LENGTH) return sanitized;
  return `${sanitized.slice(0, SANITIZED_MAX_LENGTH)}-${Math.abs(djb2(key)).toString(36)}`;
}

/**
 * Whether an existing directory name under `projects/` belongs to this key: equal, or — for
 * long keys, whose hash suffix depends on the runtime that wrote it — the same 200-char prefix.
 */
export function dirNameMatchesKey(dirName: string, key: string): boolean {
  const wanted = sanitizeDirName(key);
  if (dirName === wanted) return true;
  if (wanted.length <= SANITIZED_MAX_LENGTH) return false;
  const prefix = wanted.slice(0, SANITIZED_MAX_LENGTH);
  return dirName.length > SANITIZED_MAX_LENGTH && dirName.startsWith(`${prefix}-`);
}
