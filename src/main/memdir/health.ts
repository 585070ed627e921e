/**
 * Index health (SPEC R-HEALTH): every problem a memory directory can have, each with its
 * file, line and a sentence a person understands, plus the fix when one is safe.
 * Pure: the scanner gathers the facts, this decides what is wrong.
 */
import { type IndexLoad, type ParsedIndex, indexEntries } from '../../shared/index-format.js';
import { INDEX_FILE, INDEX_MAX_BYTES, INDEX_MAX_LINES } from '../../shared/limits.js';
import type { DerivableHint } from '../../shared/not-worth-saving.js';
import { type Problem, type ProblemCode, type FixKind, SEVERITY_OF } from '../../shared/problems.js';
import type { FrontmatterIssue } from '../../shared/frontmatter.js';

export interface TopicFacts {
  file: string;
  /** Why the file could not be read, when it could not. */
  unreadable?: { code: 'unreadable' | 'unsafe-link'; reason: string };
  issues?: FrontmatterIssue[];
  /** R-NOTSAVE hints found in its body. */
  hints?: DerivableHint[];
}

export interface HealthInput {
  index: { exists: boolean; parsed: ParsedIndex | null; load: IndexLoad | null; unreadable?: { code: 'unreadable' | 'unsafe-link'; reason: string } };
  topics: TopicFacts[];
  /** Other paths (relative) the index points at that exist on disk but are not topic files. */
  otherExisting: ReadonlySet<string>;
  /** Entries in the directory that are not readable as topic files at all (e.g. a directory named x.md). */
  strays: { file: string; reason: string }[];
}

export function problem(code: ProblemCode, file: string | null, line: number | null, message: string, fix: FixKind | null = null, target?: string): Problem {
  return { code, file, line, message, severity: SEVERITY_OF[code], fix, ...(target !== undefined ? { target } : {}) };
}

export function assessHealth(input: HealthInput): Problem[] {
  const problems: Problem[] = [];
  const { index } = input;
  const topicFiles = new Set(input.topics.map((t) => t.file));

  if (index.unreadable) {
    problems.push(problem(index.unreadable.code, INDEX_FILE, null, `${INDEX_FILE} cannot be used: ${index.unreadable.reason}. The agent starts without its memory index.`));
  }

  const pointed = new Map<string, number>();
  if (index.parsed) {
    for (const line of index.parsed.lines) {
      if (line.kind === 'malformed') {
        problems.push(problem('malformed-line', INDEX_FILE, line.line, `Line ${line.line} of ${INDEX_FILE} looks like a pointer but ${line.reason}, so it points at nothing: "${clip(line.raw)}".`));
      }
    }
    for (const entry of indexEntries(index.parsed)) {
      if (entry.file.startsWith('..')) {
        problems.push(problem('unsafe-link', INDEX_FILE, entry.line, `Line ${entry.line} of ${INDEX_FILE} points outside the memory directory (${entry.file}); Memdir never follows such links.`, null, entry.file));
        continue;
      }
      const seen = pointed.get(entry.file);
      if (seen !== undefined) {
        problems.push(problem('duplicate-pointer', INDEX_FILE, entry.line, `Line ${entry.line} of ${INDEX_FILE} points at ${entry.file} again (first on line ${seen}); the repeat only uses up index space.`, 'dedupe-pointer', entry.file));
        continue;
      }
      pointed.set(entry.file, entry.line);
      if (!topicFiles.has(entry.file) && !input.otherExisting.has(entry.file)) {
        problems.push(problem('dangling-link', INDEX_FILE, entry.line, `Line ${entry.line} of ${INDEX_FILE} points at ${entry.file}, which does not exist; the agent is told about a memory it cannot read.`, 'drop-pointer', entry.file));
      }
    }
    if (index.load && index.load.firstCutLine !== null) {
      const cut = indexEntries(index.parsed).filter((e) => e.line >= index.load!.firstCutLine!).length;
      const which = index.load.overLines ? `${index.load.lines} lines (limit ${INDEX_MAX_LINES})` : `${index.load.bytes.toLocaleString('en-US')} bytes (limit ${INDEX_MAX_BYTES.toLocaleString('en-US')})`;
      problems.push(
        problem(
          'over-limit',
          INDEX_FILE,
          index.load.firstCutLine,
          `${INDEX_FILE} is ${which}: from line ${index.load.firstCutLine} on it never reaches the agent, so ${cut} ${cut === 1 ? 'memory is' : 'memories are'} silently forgotten. Shorten hooks, merge entries or move detail into topic files.`,
        ),
      );
    }
  }

  for (const topic of input.topics) {
    if (topic.unreadable) {
      problems.push(problem(topic.unreadable.code, topic.file, null, `${topic.file} cannot be read: ${topic.unreadable.reason}.`));
      continue;
    }
    for (const issue of topic.issues ?? []) problems.push(problem(issue.code, topic.file, issue.code === 'bad-frontmatter' ? 1 : null, issue.message));
    if (index.parsed !== null || index.exists === false) {
      if (!pointed.has(topic.file)) {
        problems.push(
          problem('orphan', topic.file, null, `${topic.file} is not listed in ${INDEX_FILE}, so the agent never sees it at session start${index.exists ? '' : ` (there is no ${INDEX_FILE} yet)`}.`, 'add-to-index'),
        );
      }
    }
    for (const hint of topic.hints ?? []) problems.push(problem('not-worth-saving', topic.file, null, `${topic.file}: ${hint.message}`));
  }

  for (const stray of input.strays) problems.push(problem('unreadable', stray.file, null, `${stray.file} cannot be read: ${stray.reason}.`));
  return problems;
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 80 ? `${trimmed.slice(0, 77)}…` : trimmed;
}
