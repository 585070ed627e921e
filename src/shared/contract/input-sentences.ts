/**
 * What a refused request says to a person (issue 14, "limits as sentences"): each problem the
 * contract's schemas find becomes one sentence naming the field in words, the value and the
 * limit — "This memory is 2.1 MB; a memory can be at most 1 MB", "The query is 25,000
 * characters; a recall query can be at most 20,000 characters" — never a validator's wording,
 * a field path or a call name. The dispatcher (app) and the CLI both speak through here, and a
 * test walks the whole contract so a new limit without words fails it.
 */
import type * as z from 'zod';
import { formatBytesAgainst, formatCount } from '../size-text.js';
import { utf8Length } from '../utf8.js';

/** How a field is named in a sentence: "the name" (this value), "a memory's name" (any value). */
export interface FieldWords {
  the: string;
  a: string;
  /** What a string limit counts: characters (default) or, for a memory, bytes as written. */
  unit?: 'characters' | 'bytes' | 'seconds';
}

const MEMORY_BODY: FieldWords = { the: 'this memory', a: 'a memory', unit: 'bytes' };

/**
 * Words for each field that carries a limit, by its key; `call:path` entries override, and a
 * `key[]` entry names one item of a list (the list itself keeps the plain key's words).
 */
export const FIELD_WORDS: Record<string, FieldWords> = {
  dir: { the: 'the project folder name', a: 'a project folder name' },
  launchDir: { the: 'the directory the sessions start in', a: 'a directory sessions start in' },
  file: { the: 'the file name', a: 'a memory file name' },
  from: { the: 'the current file name', a: 'a memory file name' },
  to: { the: 'the new file name', a: 'a memory file name' },
  name: { the: 'the name', a: "a memory's name" },
  description: { the: 'the description', a: "a memory's description" },
  body: MEMORY_BODY,
  hook: { the: 'the index line', a: "an index line's hook" },
  text: { the: 'the text', a: 'the text' },
  'index.save:text': { the: 'MEMORY.md', a: 'MEMORY.md' },
  'team.resolve:text': { the: 'the merged memory', a: 'a merged memory' },
  fixes: { the: 'the list of fixes', a: 'a list of fixes' },
  first: { the: 'the list of private fixes applied first', a: 'a list of fixes' },
  limit: { the: 'the number of entries asked for', a: 'the number of entries' },
  id: { the: 'the id', a: 'an id' },
  home: { the: 'the folder path', a: 'a folder path' },
  query: { the: 'the query', a: 'a recall query' },
  session: { the: 'the session id', a: 'a session id' },
  key: { the: 'the API key', a: 'an API key' },
  reason: { the: 'the reason', a: 'a reason' },
  why: { the: 'the reason', a: 'a reason' },
  fingerprint: { the: 'the finding', a: 'a finding' },
  allowSecrets: { the: 'the list of secrets to save anyway', a: 'a list of secrets to save anyway' },
  'allowSecrets[]': { the: 'a secret to save anyway', a: "a secret's fingerprint" },
  baseHash: { the: 'the settings version', a: 'a settings version' },
  sessionId: { the: 'the session id', a: 'a session id' },
  server: { the: 'the server address', a: 'a server address' },
  team: { the: 'the team name', a: 'a team name' },
  token: { the: 'the token', a: 'a token' },
  pullIntervalSec: { the: 'the pull interval', a: 'the pull interval', unit: 'seconds' },
  theirsSha: { the: 'the server version', a: 'a server version' },
  line: { the: 'the line number', a: 'a line number' },
  baseText: { the: 'the version you started from', a: 'a version' },
  'drafts.keep:window': { the: 'the window id', a: 'a window id' },
  'drafts.keep:over': { the: 'the draft this window last saw', a: "a draft's time" },
  'drafts.discard:window': { the: 'the window id', a: 'a window id' },
  'drafts.discard:over': { the: 'the draft this window last saw', a: "a draft's time" },
  'history.restore:as': { the: 'the name to restore it as', a: 'a memory file name' },
  frontmatter: { the: 'the frontmatter', a: "a memory's frontmatter" },
  newFile: { the: 'the file name', a: 'a memory file name' },
  items: { the: 'the selection', a: 'a selection' },
  memoryDir: { the: 'the memory folder', a: 'a memory folder' },
  rev: { the: 'the revision', a: 'a revision' },
  type: { the: 'the type', a: "a memory's type" },
  scope: { the: 'the scope', a: 'a scope' },
  'team.move:to': { the: 'the scope', a: 'a scope' },
  'memories.bulk:action.to': { the: 'the scope', a: 'a scope' },
  keeper: { the: 'the memory kept', a: 'the memory kept' },
  others: { the: 'the list of memories merged into it', a: 'a merge' },
  n: { the: 'the conflict number', a: 'a conflict number' },
  keep: { the: 'the version to keep', a: 'a version to keep' },
  passphrase: { the: 'the passphrase', a: 'a passphrase' },
  'personal.enable:identity': { the: 'the name given to the project', a: "a project's name for personal sync" },
  dirs: { the: 'the list of projects', a: 'a group of projects' },
  'identity.keepApart:dirs': { the: 'the list of projects kept apart', a: 'a group kept apart' },
  into: { the: 'the project merged into', a: 'a project folder name' },
  'index.makeRoom:actions.into': { the: 'the line merged into', a: 'a line number' },
  lookIn: { the: 'the list of folders to look in', a: 'a search for orphans' },
  'lookIn[]': { the: 'the folder path', a: 'a folder path' },
  path: { the: 'the project path', a: 'a project path' },
  actions: { the: 'the list of changes', a: 'a Make room plan' },
  exclude: { the: 'the list of memories left out', a: 'a comparison' },
  'exclude[]': { the: 'the memory left out', a: 'a memory file name' },
  'others[]': { the: 'the memory merged', a: 'a memory file name' },
  'dirs[]': { the: 'the project folder name', a: 'a project folder name' },
};

/** The words for the field at `path` of `call`'s input, or null when there are none. */
export function wordsFor(call: string, path: readonly PropertyKey[]): FieldWords | null {
  const keys = path.filter((k): k is string => typeof k === 'string');
  const last = keys[keys.length - 1];
  if (last === undefined) return null;
  // Own entries only: a field a person named `constructor` has no words here.
  const words = (key: string): FieldWords | undefined => (Object.hasOwn(FIELD_WORDS, key) ? FIELD_WORDS[key] : undefined);
  const item = typeof path[path.length - 1] === 'number' ? (words(`${call}:${keys.join('.')}[]`) ?? words(`${last}[]`)) : undefined;
  return item ?? words(`${call}:${keys.join('.')}`) ?? words(last) ?? null;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// zod's own wording starts like this; a schema's custom message ("A memory needs a name.") does not.
const ZOD_WORDING = /^(Too (big|small)|Invalid|Expected|Unrecognized)/;

type Issue = z.core.$ZodIssue & { input?: unknown };

function measure(value: unknown, words: FieldWords): number | null {
  if (typeof value === 'string') return words.unit === 'bytes' ? utf8Length(value) : value.length;
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'number') return value;
  return null;
}

function amount(n: number, words: FieldWords, origin: string): string {
  if (origin === 'array') return `${formatCount(n)} ${n === 1 ? 'item' : 'items'}`;
  if (origin === 'number' || origin === 'int') return words.unit === 'seconds' ? `${formatCount(n)} ${n === 1 ? 'second' : 'seconds'}` : formatCount(n);
  return `${formatCount(n)} ${n === 1 ? 'character' : 'characters'}`;
}

/** One sentence for one problem found in the input of `call`. */
export function sentenceOf(call: string, issue: Issue): string {
  if (issue.message && !ZOD_WORDING.test(issue.message)) return issue.message;
  const words = wordsFor(call, issue.path) ?? { the: 'one of the values', a: 'that value' };
  const The = capital(words.the);
  switch (issue.code) {
    case 'too_big':
    case 'too_small': {
      const over = issue.code === 'too_big';
      const limit = Number(over ? issue.maximum : issue.minimum);
      const inclusive = issue.inclusive !== false;
      const value = measure(issue.input, words);
      const sized = issue.origin === 'string' || issue.origin === 'array';
      if (!over && sized && value === 0) return `${The} is empty; ${words.a} cannot be empty.`;
      let shown: string;
      let max: string;
      if (words.unit === 'bytes' && issue.origin === 'string' && value !== null) [shown, max] = formatBytesAgainst(value, limit);
      else {
        shown = value === null ? 'not the right size' : amount(value, words, issue.origin);
        max = amount(limit, words, issue.origin);
      }
      const array = issue.origin === 'array';
      const rule = over
        ? inclusive
          ? `can ${array ? 'have' : 'be'} at most ${max}`
          : `must be less than ${max}`
        : inclusive
          ? `must ${array ? 'have' : 'be'} at least ${max}`
          : `must be more than ${max}`;
      return `${The} ${array ? 'has' : 'is'} ${shown}; ${words.a} ${rule}.`;
    }
    case 'invalid_value':
      if (issue.input === undefined) return `${The} is missing.`;
      return `${The} is ${JSON.stringify(issue.input)}; it must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'invalid_type':
      return issue.input === undefined
        ? `${The} is missing.`
        : `${The} is not the right kind of value (it should be ${issue.expected === 'string' ? 'text' : issue.expected}).`;
    case 'invalid_format':
      return `${The} is not in the expected form.`;
    case 'unrecognized_keys':
      return `The request holds something Memdir does not know (${issue.keys.join(', ')}).`;
    default:
      return `${The} is not valid.`;
  }
}

/** Every problem `schema` finds in `input`, as sentences; empty when the input is fine. */
export function inputSentences(call: string, schema: z.ZodType, input: unknown, onlyFields?: readonly string[]): string[] {
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) return [];
  const issues = parsed.error.issues.filter((i) => !onlyFields || onlyFields.includes(String(i.path[0])));
  return [...new Set(issues.map((i) => sentenceOf(call, i as Issue)))];
}
