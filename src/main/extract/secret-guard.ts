/**
 * No automatic writer stores a secret (R-SYNC-SECURITY's scanner, reused before extraction
 * writes): every text an operation would put on disk is scanned, and any finding refuses the
 * operation. Findings are described by rule and place, never by the secret itself.
 */
import { scanText } from '../secrets/index.js';

/** A text about to be written, named for the message. */
export interface GuardedText {
  label: string;
  text: string;
}

/** One sentence per secret found in `texts` (empty when there is none). */
export async function findSecrets(texts: readonly GuardedText[]): Promise<string[]> {
  const problems: string[] = [];
  for (const { label, text } of texts) {
    if (text.trim() === '') continue;
    for (const finding of await scanText(text, { file: label })) {
      problems.push(`${finding.title} in the ${label} (line ${finding.line}, ${finding.match})`);
    }
  }
  return problems;
}
