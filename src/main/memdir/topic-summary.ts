/**
 * What a scan keeps of a topic file: its facts (name, description, type, layout), its
 * frontmatter problems and its R-NOTSAVE hints — never its body, so a cache of 100,000 memories
 * stays small. Taken from the file's bytes without decoding the body (derivable-bytes.ts); the
 * same answer as `parseTopicFile` + `detectDerivable` on the decoded text, property-tested.
 */
import type { FrontmatterIssue, MemoryMeta } from '../../shared/frontmatter.js';
import { type DerivableHint, derivableHints } from '../../shared/not-worth-saving.js';
import { countDerivableBytes } from './derivable-bytes.js';
import { textProblem } from './read-file.js';
import { locateFrontmatter, readFrontmatterBlock } from './topic-file.js';

export interface TopicSummary {
  /** The facts the scan shows (the rest of the frontmatter is read when a memory is opened). */
  meta: Pick<MemoryMeta, 'name' | 'description' | 'type' | 'layout'>;
  issues: FrontmatterIssue[];
  hints: DerivableHint[];
}

/** Summarise a topic file from its bytes, or say why they are not text. */
export function summarizeTopicBytes(bytes: Buffer, file: string): TopicSummary | { problem: string } {
  const latin1 = bytes.toString('latin1');
  const problem = textProblem(bytes, latin1);
  if (problem) return { problem };
  const span = locateFrontmatter(latin1, latin1.startsWith('\xef\xbb\xbf') ? 3 : 0);
  const { meta, issues } = readFrontmatterBlock(span, bytes.toString('utf8', span.yamlStart, span.yamlEnd), file);
  return { meta, issues, hints: derivableHints(countDerivableBytes(latin1, bytes, span.bodyStart, bytes.length)) };
}
