/**
 * Topic-file frontmatter (SPEC R-TOPIC): `name`, `description`, `type`, optional
 * `originSessionId` and timestamps — flat, or nested under `metadata:` as found in the wild.
 * Parsing the YAML happens in main; this file checks and normalises the parsed object.
 */
import * as z from 'zod';
import { quoteName } from './visible-text.js';
import { MEMORY_TYPES, type MemoryType, isMemoryType } from './memory-types.js';

const optionalText = z
  .union([z.string(), z.number(), z.date()])
  .transform((v) => (v instanceof Date ? v.toISOString() : String(v)))
  .optional();

/** The known keys of a topic file's frontmatter; unknown keys pass through untouched. */
export const frontmatterSchema = z
  .object({
    name: z.string().trim().min(1, 'name is empty'),
    description: z.string(),
    type: z.enum(MEMORY_TYPES, { error: () => `type must be one of ${MEMORY_TYPES.join(', ')}` }),
    originSessionId: optionalText,
    created: optionalText,
    modified: optionalText,
  })
  .loose();
export type Frontmatter = z.infer<typeof frontmatterSchema>;

/** A memory's facts as the rest of Memdir sees them, whatever the frontmatter layout. */
export interface MemoryMeta {
  name: string;
  description: string;
  type: MemoryType | null;
  originSessionId: string | null;
  created: string | null;
  modified: string | null;
  /** Which layout the file used. */
  layout: 'flat' | 'nested' | 'none';
}

export interface FrontmatterIssue {
  code: 'bad-frontmatter' | 'invalid-type' | 'cut-by-comment';
  message: string;
  /** The file's line (1-based) the issue is on, when it is one line. */
  line?: number;
}

/** The keys whose values recall and the index use: a comment cutting one of them short is a problem. */
export const READ_KEYS: ReadonlySet<string> = new Set(['name', 'description']);

/**
 * A plain (unquoted) frontmatter value that YAML ends at ` #`, reading the rest of its line as a
 * comment: `description: PRs #45-#61 merged` reads as `PRs` — in Memdir and in Claude Code, whose
 * recall manifest sends the value as read (R-RECALL-SELECT).
 */
export interface CommentCut {
  /** The key's path: `['description']`, or `['metadata', 'description']`. */
  path: string[];
  /** 1-based line of the YAML text the value is on. */
  line: number;
  /** What YAML reads. */
  read: string;
  /** What was written: the value and the comment after it, up to the end of the line. */
  written: string;
}

/** The issue of a cut value of a read key, on its line of the file (the YAML text's lines are the file's: it starts on the `---` line). */
export function commentCutIssue(file: string, cut: CommentCut): FrontmatterIssue {
  const key = cut.path[cut.path.length - 1]!;
  return {
    code: 'cut-by-comment',
    line: cut.line,
    message: `${file}: the ${key} stops at " #", because YAML reads the rest of the line as a comment: Claude Code reads ${quoteName(cut.read, 80)}, not ${quoteName(cut.written, 120)}. Quote the value to keep all of it.`,
  };
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value instanceof Date) return value.toISOString();
  return null;
}

/** The file's name, standing in for a missing one. */
function nameFromFile(file: string): string {
  return (file.split('/').pop() ?? file).replace(/\.md$/i, '');
}

/** A field, flat or under `metadata:`. (Functions, not closures: this runs for every memory of a scan.) */
function pick(record: Record<string, unknown>, nested: Record<string, unknown> | null, key: string): unknown {
  return record[key] ?? nested?.[key];
}

/**
 * Normalise parsed frontmatter (flat or nested `metadata:`) into MemoryMeta, listing what is
 * wrong in plain words. Never throws: a bad file still shows up, with its problems.
 */
export function readMemoryMeta(data: unknown, file: string): { meta: MemoryMeta; issues: FrontmatterIssue[] } {
  if (data === null || data === undefined || typeof data !== 'object' || Array.isArray(data)) {
    const issues = [
      { code: 'bad-frontmatter' as const, message: `${file} has no frontmatter: add a --- block with name, description and type so recall can find it.` },
    ];
    return {
      // No type from the file's name: Claude Code reads none from a file without frontmatter it can read.
      meta: { name: nameFromFile(file), description: '', type: null, originSessionId: null, created: null, modified: null, layout: 'none' },
      issues,
    };
  }
  const record = data as Record<string, unknown>;
  const metadata = record.metadata;
  const nested = metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : null;
  const name = text(pick(record, nested, 'name'))?.trim() || '';
  // The description is read at the top only: Claude Code 2.1.332 never reads one under `metadata:`
  // (its recall manifest and the MEMORY.md it builds: recall-modified-2.1.332.json, observed-built.json).
  const description = text(record.description)?.trim() ?? '';
  const rawType = pick(record, nested, 'type');
  const type = isMemoryType(rawType) ? rawType : null;

  const issues: FrontmatterIssue[] = [];
  if (!name) issues.push({ code: 'bad-frontmatter', message: `${file} has no name in its frontmatter.` });
  if (!description && nested && text(nested.description)?.trim())
    issues.push({
      code: 'bad-frontmatter',
      message: `${file} keeps its description under metadata:, where Claude Code does not read it, so recall never sees it. Move the description to the top of the frontmatter, beside name.`,
    });
  else if (!description)
    issues.push({ code: 'bad-frontmatter', message: `${file} has no description: recall chooses memories by their description, so this one is hard to find.` });
  else if (description.includes('\n') || description.includes('\r'))
    issues.push({ code: 'bad-frontmatter', message: `${file} has a description over several lines; recall expects one line.` });
  if (rawType === undefined || rawType === null || rawType === '') {
    issues.push({ code: 'invalid-type', message: `${file} has no type: set it to one of ${MEMORY_TYPES.join(', ')}.` });
  } else if (!type) {
    const shown = typeof rawType === 'object' ? (Array.isArray(rawType) ? 'a list' : 'a nested block') : quoteName(String(rawType), 60);
    issues.push({ code: 'invalid-type', message: `${file} has type ${shown}, which is not one of ${MEMORY_TYPES.join(', ')}.` });
  }
  return {
    meta: {
      name: name || nameFromFile(file),
      description,
      type: type ?? null,
      originSessionId: text(pick(record, nested, 'originSessionId')),
      created: text(pick(record, nested, 'created') ?? pick(record, nested, 'createdAt')),
      modified: text(pick(record, nested, 'modified') ?? pick(record, nested, 'updated') ?? pick(record, nested, 'modifiedAt')),
      layout: nested && (nested.type !== undefined || nested.name !== undefined) && record.type === undefined ? 'nested' : 'flat',
    },
    issues,
  };
}
