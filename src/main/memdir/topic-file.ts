/**
 * Topic files (SPEC R-TOPIC): YAML frontmatter + markdown body. Reading splits the `---` block
 * off the way gray-matter did (BOM and CRLF tolerated), parses it with the one frontmatter
 * reader (frontmatter-yaml.ts) and checks it with the shared zod-backed rules; writing edits the
 * existing frontmatter in place — only the values that changed, every other byte kept — or,
 * where that cannot be done, through the `yaml` Document API, so unknown keys, their order and
 * comments survive a round trip.
 */
import YAML from 'yaml';
import { type CommentCut, type FrontmatterIssue, type MemoryMeta, commentCutIssue, readMemoryMeta } from '../../shared/frontmatter.js';
import type { MemoryType } from '../../shared/memory-types.js';
import { type FrontmatterSpan, locateFrontmatter } from '../../shared/frontmatter-span.js';
import { commentCutsOf, describeYamlError, parseFrontmatterYaml } from './frontmatter-yaml.js';

export { type FrontmatterSpan, locateFrontmatter };

export interface ParsedTopic {
  meta: MemoryMeta;
  issues: FrontmatterIssue[];
  /** The frontmatter as parsed (null when absent or unparsable). */
  data: Record<string, unknown> | null;
  /** The YAML between the fences as written (LF line ends), null when there is no closed block: what a person repairs. */
  frontmatter: string | null;
  body: string;
}

/** `---` fence, the YAML inside, and the closing fence; groups: BOM, line ending, YAML. */
const FRONTMATTER = /^(\uFEFF)?---[ \t]*(\r?\n)(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;
/** What a frontmatter block says: its data (or why it cannot be read), and the memory's facts. */
export function readFrontmatterBlock(
  span: FrontmatterSpan,
  yaml: string,
  file: string,
): { data: Record<string, unknown> | null; meta: MemoryMeta; issues: FrontmatterIssue[]; unreadable?: true } {
  if (span.fence === 'none') return { data: null, ...readMemoryMeta(null, file) };
  if (span.fence === 'unclosed') return bad(file, `${file} opens a frontmatter block with --- but never closes it.`);
  let data: unknown;
  // Name and description values a ` #` comment cut short (R-HEALTH): none in nearly every file.
  const cuts: CommentCut[] = [];
  // A block of nothing but comments is empty frontmatter, not YAML to parse (as gray-matter had it).
  const first = yaml.search(/\S/);
  if (first === -1 || (yaml.charCodeAt(first) === 0x23 && !/\S/.test(yaml.replace(/^\s*#[^\n]+/gm, '')))) data = {};
  else {
    try {
      data = parseFrontmatterYaml(yaml, cuts);
    } catch (error) {
      // The YAML text starts on the `---` line: its lines are the file's.
      return bad(file, `${file} has frontmatter that is not valid YAML, ${describeYamlError(error, yaml, 1)}.`);
    }
  }
  if (data !== null && (typeof data !== 'object' || Array.isArray(data))) return bad(file, `${file} has frontmatter that is not a list of key: value pairs.`);
  const read = readMemoryMeta(data, file);
  // The YAML text starts on the `---` line, so its lines are the file's.
  if (cuts.length > 0) read.issues.push(...cuts.sort((a, b) => a.line - b.line).map((cut) => commentCutIssue(file, cut)));
  return { data: data as Record<string, unknown> | null, ...read };
}

function bad(file: string, message: string): { data: null; meta: MemoryMeta; issues: FrontmatterIssue[]; unreadable: true } {
  return { data: null, meta: readMemoryMeta(null, file).meta, issues: [{ code: 'bad-frontmatter', message }], unreadable: true };
}

/** Parse a topic file's text. Never throws: problems come back as issues. */
export function parseTopicFile(text: string, file: string): ParsedTopic {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const span = locateFrontmatter(text, start);
  const read = readFrontmatterBlock(span, text.slice(span.yamlStart, span.yamlEnd), file);
  const { data, meta, issues } = read;
  if (span.fence !== 'closed') return { meta, issues, data, frontmatter: null, body: text.slice(span.bodyStart) };
  // What a person repairs: the YAML between the fences as written. A block that cannot be read
  // still ends where its fence closes: the body is what follows.
  const fence = FRONTMATTER.exec(text);
  const frontmatter = (fence?.[3] ?? '').replace(/\r\n/g, '\n');
  const body = 'unreadable' in read && fence ? text.slice(fence[0].length) : text.slice(span.bodyStart);
  return { meta, issues, data, frontmatter, body };
}

/**
 * Why `yaml` cannot stand as a topic file's frontmatter (not YAML, or not `key: value` pairs),
 * or null. Checked before a person's repaired frontmatter is written: Memdir edits frontmatter
 * in place, and never rewrites a block it cannot read.
 */
export function frontmatterProblem(yaml: string): string | null {
  const doc = YAML.parseDocument(yaml, { uniqueKeys: false });
  // What a person repairs is the text between the fences: it starts on the file's line 2.
  if (doc.errors.length > 0)
    return `The frontmatter is still not valid YAML, ${describeYamlError(doc.errors[0], yaml, 2)}. Fix it, or rebuild it from the fields.`;
  if (doc.contents !== null && !YAML.isMap(doc.contents)) return 'The frontmatter must be a list of key: value lines.';
  return null;
}

/**
 * R-HEALTH's `quote-value` fix: the topic file `text` with each name and description a ` #` comment
 * cuts short written whole — the value and its comment, as one double-quoted value — in place,
 * every other byte kept (trailing spaces of that line aside). Null when nothing is cut, or when the
 * block does not parse as YAML as it is (the retry Claude Code applies then quotes such values itself).
 */
export function quoteCutValues(text: string): string | null {
  const fence = FRONTMATTER.exec(text);
  if (!fence?.[3]) return null;
  // Where the YAML starts in `text`: past the BOM and the opening fence's line.
  const at = text.indexOf('\n', fence[1]?.length ?? 0) + 1;
  const yaml = fence[3];
  const doc = YAML.parseDocument(yaml, { uniqueKeys: false, logLevel: 'error' });
  if (doc.errors.length > 0 || !YAML.isMap(doc.contents)) return null;
  const cuts: CommentCut[] = [];
  commentCutsOf(doc, yaml, cuts);
  if (cuts.length === 0) return null;
  let out = text;
  const splices = cuts.map((cut) => {
    const node = doc.getIn(cut.path, true) as YAML.Scalar;
    const from = node.range![0];
    let to = yaml.indexOf('\n', from);
    if (to === -1) to = yaml.length;
    if (yaml.charCodeAt(to - 1) === 0x0d) to--;
    const quoted = new YAML.Scalar(cut.written);
    quoted.type = YAML.Scalar.QUOTE_DOUBLE;
    return { from: at + from, to: at + to, text: new YAML.Document(quoted).toString({ lineWidth: 0 }).replace(/\n$/, '') };
  });
  for (const s of splices.sort((a, b) => b.from - a.from)) out = out.slice(0, s.from) + s.text + out.slice(s.to);
  // Read back: every value now says what was written, and nothing is cut any more.
  const check = FRONTMATTER.exec(out);
  const again = check?.[3] === undefined ? null : YAML.parseDocument(check[3], { uniqueKeys: false, logLevel: 'error' });
  if (!again || again.errors.length > 0) return null;
  for (const cut of cuts) if (again.getIn(cut.path) !== cut.written) return null;
  return out;
}

/** A file's text with its frontmatter block replaced by `yaml` (BOM and line endings kept). */
export function replaceFrontmatter(text: string, yaml: string): string {
  const fence = FRONTMATTER.exec(text);
  const eol = fence?.[2] ?? (text.includes('\r\n') ? '\r\n' : '\n');
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const rest = fence ? text.slice(fence[0].length) : bom ? text.slice(1) : text;
  const block = `---\n${yaml.replace(/\r\n/g, '\n').replace(/\n$/, '')}\n---\n`;
  return bom + (eol === '\r\n' ? block.replace(/\n/g, '\r\n') : block) + rest;
}

/** The fields Memdir edits; everything else in the frontmatter is left as it was. */
export interface TopicFields {
  name: string;
  description: string;
  type: MemoryType;
  originSessionId?: string | null;
  modified?: string | null;
}

/** One field Memdir sets: where it is in the document, and its new value (null: remove it). */
interface FieldEdit {
  path: string[];
  value: string | null;
}

const EDITABLE_IN_PLACE: ReadonlySet<unknown> = new Set([YAML.Scalar.PLAIN, YAML.Scalar.QUOTE_SINGLE, YAML.Scalar.QUOTE_DOUBLE]);

/**
 * The frontmatter `yaml` (LF line ends) with each changed field's value replaced where it is
 * written and every other byte kept: values unchanged, comments, spacing, flow lists, folded text
 * and quoting stay as the file had them, and a changed value keeps its quoting where YAML allows.
 * A field missing at the top level is added at the end. Null when a change cannot be made in
 * place (a value that is not a one-line scalar, a field to remove, one to add under `metadata:`):
 * the caller rewrites the block through the Document then. The result is read back and must say
 * what was asked, or it is not used.
 */
function editInPlace(yaml: string, doc: YAML.Document, edits: readonly FieldEdit[]): string | null {
  const splices: { from: number; to: number; text: string }[] = [];
  const added: string[] = [];
  const written = (value: string, type?: YAML.Scalar['type']): string | null => {
    const scalar = new YAML.Scalar(value);
    if (type) scalar.type = type;
    const text = new YAML.Document(scalar).toString({ lineWidth: 0 }).replace(/\n$/, '');
    return text.includes('\n') ? null : text;
  };
  for (const edit of edits) {
    const node = doc.getIn(edit.path, true);
    if (node === undefined) {
      if (edit.value === null) continue;
      if (edit.path.length !== 1) return null;
      const text = written(edit.value);
      if (text === null) return null;
      added.push(`${edit.path[0]}: ${text}`);
      continue;
    }
    if (YAML.isScalar(node) && typeof node.value === 'string' && node.value === edit.value) continue;
    if (!YAML.isScalar(node) || !node.range || !EDITABLE_IN_PLACE.has(node.type) || edit.value === null) return null;
    const text = written(edit.value, node.type);
    if (text === null) return null;
    // A value written empty (`name:`) starts right after the colon.
    splices.push({ from: node.range[0], to: node.range[1], text: node.range[0] === node.range[1] ? ` ${text}` : text });
  }
  let out = yaml;
  for (const s of splices.sort((a, b) => b.from - a.from)) out = out.slice(0, s.from) + s.text + out.slice(s.to);
  if (added.length > 0) out = `${out}${out === '' || out.endsWith('\n') ? '' : '\n'}${added.join('\n')}`;
  if (out === yaml) return out;
  const check = YAML.parseDocument(out, { uniqueKeys: false, logLevel: 'error' });
  if (check.errors.length > 0) return null;
  for (const edit of edits) if (edit.value !== null && check.getIn(edit.path) !== edit.value) return null;
  return out;
}

/**
 * A new memory's frontmatter as Claude Code 2.1.332 writes every memory it saves (recorded in
 * test/fixtures/claude-code-extract/): `name`, `description`, then everything else under
 * `metadata:`, `node_type: memory` first, the type, the session and the time last; the body after
 * one blank line. Claude Code also turns the name into a slug; Memdir keeps the name it was given
 * (a slug loses a name written in Chinese), and the client slugs it when it next writes the file.
 */
function newTopicFile(fields: TopicFields, body: string, eol: string): string {
  const metadata: Record<string, string> = { node_type: 'memory', type: fields.type };
  if (fields.originSessionId) metadata.originSessionId = fields.originSessionId;
  if (fields.modified) metadata.modified = fields.modified;
  const doc = new YAML.Document({ name: fields.name.trim(), description: fields.description.replace(/[\r\n]+/g, ' ').trim(), metadata });
  const text = `---\n${doc.toString({ lineWidth: 0 })}---\n\n${body.replace(/\r\n/g, '\n').replace(/^\n+/, '')}`;
  return eol === '\r\n' ? text.replace(/\n/g, '\r\n') : text;
}

/**
 * Produce the text of a topic file with these fields and body. When `previous` has a frontmatter
 * block, it is edited in place: only the values that changed are rewritten, every other byte of
 * the block kept (editInPlace), else through the Document (nested `metadata:` layout kept,
 * unknown keys and comments kept); line endings kept. Otherwise (no block, or one that cannot be
 * read) the file is written as Claude Code writes a new memory ({@link newTopicFile}).
 */
export function serializeTopicFile(fields: TopicFields, body: string, previous?: string): string {
  const match = previous !== undefined ? FRONTMATTER.exec(previous) : null;
  const eol = match?.[2] ?? (previous?.includes('\r\n') ? '\r\n' : '\n');
  if (!match) return newTopicFile(fields, body, eol);
  const written = (match[3] ?? '').replace(/\r\n/g, '\n');
  const doc = YAML.parseDocument(written, { uniqueKeys: false, logLevel: 'error' });
  // Frontmatter that cannot be edited in place is replaced by a clean one.
  if (doc.errors.length > 0 || !YAML.isMap(doc.contents)) return (match[1] ?? '') + newTopicFile(fields, body, eol);
  const nested = YAML.isMap(doc.get('metadata')) && doc.has('metadata') && !doc.has('type');
  const edits: FieldEdit[] = [];
  const setField = (key: string, value: string | null | undefined, inMetadata: boolean): void => {
    if (value !== undefined) edits.push({ path: inMetadata && nested ? ['metadata', key] : [key], value });
  };
  setField('name', fields.name.trim(), false);
  const description = fields.description.replace(/[\r\n]+/g, ' ').trim();
  // A description kept only under `metadata:` (Claude Code does not read it there; Health says to
  // move it) is not joined by an empty one at the top that nobody wrote.
  if (description !== '' || doc.has('description') || !doc.hasIn(['metadata', 'description'])) setField('description', description, false);
  setField('type', fields.type, true);
  setField('originSessionId', fields.originSessionId, true);
  setField('modified', fields.modified, true);
  let yamlText = editInPlace(written, doc, edits);
  if (yamlText === null) {
    for (const { path, value } of edits) {
      const node = doc.getIn(path, true);
      if (value === null) {
        if (node !== undefined) doc.deleteIn(path);
      } else if (!(YAML.isScalar(node) && node.value === value)) doc.setIn(path, value);
    }
    yamlText = doc.toString({ lineWidth: 0 }).replace(/\n$/, '');
  }
  const normalizedBody = body.replace(/\r\n/g, '\n');
  const text = `---\n${yamlText}\n---\n${normalizedBody}`;
  const withEol = eol === '\r\n' ? text.replace(/\n/g, '\r\n') : text;
  return (match[1] ?? '') + withEol;
}
