/**
 * A schema check's complaint as a sentence a person can act on. Zod's own messages ("Invalid
 * input: expected string, received undefined") are written for programmers; whatever reads
 * outside data — transcripts, hook payloads, a server's answers, settings — reports through
 * this instead (issue 15: every rejection a clear error, never a validator dump).
 */
import { quoteName } from './visible-text.js';

/** The parts of a zod issue this reads (zod 4's `$ZodIssue`, kept structural). */
export interface SchemaIssue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: unknown;
  values?: readonly unknown[];
  origin?: unknown;
  maximum?: unknown;
  minimum?: unknown;
  format?: unknown;
  keys?: readonly unknown[];
}

const NOUNS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
  date: 'a date',
  nan: 'not a number',
  map: 'a map',
  record: 'an object',
};

function noun(type: unknown): string {
  return NOUNS[String(type)] ?? `a ${String(type)}`;
}

function unit(origin: unknown): string {
  return origin === 'string' ? ' characters' : origin === 'array' || origin === 'set' ? ' items' : '';
}

/** The field an issue is about: `"message.content"`, or "the value" for the whole thing. */
export function issueField(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'the value' : quoteName(path.map(String).join('.'), 120);
}

/** One issue as a sentence (no final period): `"version" should be a number, not text`. */
export function issueSentence(issue: SchemaIssue): string {
  const field = issueField(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const received = /received (\w+)/.exec(issue.message)?.[1];
      if (received === 'undefined') return `${field} is missing`;
      return `${field} should be ${noun(issue.expected)}${received && received !== issue.expected ? `, not ${noun(received)}` : ''}`;
    }
    case 'invalid_value': {
      const values = (issue.values ?? []).slice(0, 8).map((v) => (typeof v === 'string' ? quoteName(v, 40) : String(v)));
      return values.length === 1 ? `${field} should be ${values[0]}` : `${field} should be one of ${values.join(', ')}`;
    }
    case 'too_big':
      return `${field} is too ${issue.origin === 'string' ? 'long' : 'large'} (at most ${String(issue.maximum)}${unit(issue.origin)})`;
    case 'too_small':
      return `${field} is too ${issue.origin === 'string' ? 'short' : 'small'} (at least ${String(issue.minimum)}${unit(issue.origin)})`;
    case 'invalid_format':
      return issue.format && issue.format !== 'regex' ? `${field} is not a valid ${String(issue.format)}` : `${field} is not in the expected form`;
    case 'unrecognized_keys':
      return `${field} has fields that do not belong there (${(issue.keys ?? [])
        .slice(0, 5)
        .map((k) => quoteName(String(k), 40))
        .join(', ')})`;
    case 'invalid_union':
      return `${field} is in none of the accepted forms`;
    default:
      return `${field} is not valid`;
  }
}

/** The first issue of a failed check as a sentence, or a general one when there is none. */
export function firstIssueSentence(issues: readonly SchemaIssue[]): string {
  return issues[0] ? issueSentence(issues[0]) : 'it does not have the expected shape';
}
