/**
 * Topic files (SPEC R-TOPIC): YAML frontmatter + markdown body. Reading is split by gray-matter
 * (BOM and CRLF tolerated) and checked by the shared zod-backed rules; writing edits the
 * existing frontmatter in place through the `yaml` Document API, so unknown keys, their order
 * and comments survive a round trip.
 */
import matter from 'gray-matter';
import YAML from 'yaml';
import { type FrontmatterIssue, type MemoryMeta, readMemoryMeta } from '../../shared/frontmatter.js';
import type { MemoryType } from '../../shared/memory-types.js';
import { parseFrontmatterYaml } from './frontmatter-yaml.js';

export interface ParsedTopic {
  meta: MemoryMeta;
  issues: FrontmatterIssue[];
  /** The frontmatter as parsed (null when absent or unparsable). */
  data: Record<string, unknown> | null;
  /** The YAML between the fences as written (LF line ends), null when there is no closed block: what a person repairs. */
  frontmatter: string | null;
  body: string;
}

// gray-matter caches results by input when called without options; passing options (even
// empty) turns that off, which matters when scanning thousands of files.
const MATTER_OPTIONS = { engines: { yaml: (source: string) => parseFrontmatterYaml(source) as object } };

/** `---` fence, the YAML inside, and the closing fence; groups: BOM, line ending, YAML. */
const FRONTMATTER = /^(\uFEFF)?---[ \t]*(\r?\n)(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

function yamlErrorLine(error: unknown): string {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  return message.replace(/\s+/g, ' ').trim();
}

/** Parse a topic file's text. Never throws: problems come back as issues. */
export function parseTopicFile(text: string, file: string): ParsedTopic {
  let data: unknown = null;
  let body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const hasFence = /^(?:\uFEFF)?---[ \t]*\r?\n/.test(text);
  let frontmatter: string | null = null;
  if (hasFence) {
    const fence = FRONTMATTER.exec(text);
    if (!fence) return bad(file, `${file} opens a frontmatter block with --- but never closes it.`, body, null);
    frontmatter = (fence[3] ?? '').replace(/\r\n/g, '\n');
    // A block that cannot be read still ends where its fence closes: the body is what follows.
    const after = text.slice(fence[0].length);
    try {
      const parsed = matter(text, MATTER_OPTIONS);
      data = parsed.data;
      body = parsed.content;
    } catch (error) {
      return bad(file, `${file} has frontmatter that is not valid YAML (${yamlErrorLine(error)}).`, after, frontmatter);
    }
    if (data !== null && (typeof data !== 'object' || Array.isArray(data))) {
      return bad(file, `${file} has frontmatter that is not a list of key: value pairs.`, after, frontmatter);
    }
  }
  const { meta, issues } = readMemoryMeta(hasFence ? data : null, file);
  return { meta, issues, data: hasFence ? (data as Record<string, unknown>) : null, frontmatter, body };
}

function bad(file: string, message: string, body: string, frontmatter: string | null): ParsedTopic {
  const { meta } = readMemoryMeta(null, file);
  return { meta, issues: [{ code: 'bad-frontmatter', message }], data: null, frontmatter, body };
}

/**
 * Why `yaml` cannot stand as a topic file's frontmatter (not YAML, or not `key: value` pairs),
 * or null. Checked before a person's repaired frontmatter is written: Memdir edits frontmatter
 * in place, and never rewrites a block it cannot read.
 */
export function frontmatterProblem(yaml: string): string | null {
  const doc = YAML.parseDocument(yaml, { uniqueKeys: false });
  if (doc.errors.length > 0) return `The frontmatter is still not valid YAML (${yamlErrorLine(doc.errors[0])}); fix it, or rebuild it from the fields.`;
  if (doc.contents !== null && !YAML.isMap(doc.contents)) return 'The frontmatter must be a list of key: value lines.';
  return null;
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

/**
 * Produce the text of a topic file with these fields and body. When `previous` is given, its
 * frontmatter is edited in place (nested `metadata:` layout kept, unknown keys and comments
 * kept, line endings kept); otherwise a flat frontmatter is written.
 */
export function serializeTopicFile(fields: TopicFields, body: string, previous?: string): string {
  const match = previous !== undefined ? FRONTMATTER.exec(previous) : null;
  const eol = match?.[2] ?? (previous?.includes('\r\n') ? '\r\n' : '\n');
  let doc: YAML.Document;
  if (match) {
    doc = YAML.parseDocument((match[3] ?? '').replace(/\r\n/g, '\n'), { uniqueKeys: false, logLevel: 'error' });
    if (doc.errors.length > 0 || !YAML.isMap(doc.contents)) doc = new YAML.Document({});
  } else {
    doc = new YAML.Document({});
  }
  const nested = YAML.isMap(doc.get('metadata')) && doc.has('metadata') && !doc.has('type');
  const setField = (key: string, value: string | null | undefined, inMetadata: boolean): void => {
    if (value === undefined) return;
    const path = inMetadata && nested ? ['metadata', key] : [key];
    if (value === null) {
      if (doc.hasIn(path)) doc.deleteIn(path);
      return;
    }
    doc.setIn(path, value);
  };
  setField('name', fields.name.trim(), false);
  setField('description', fields.description.replace(/[\r\n]+/g, ' ').trim(), false);
  setField('type', fields.type, true);
  setField('originSessionId', fields.originSessionId, true);
  setField('modified', fields.modified, true);
  const yamlText = doc.toString({ lineWidth: 0 }).replace(/\n$/, '');
  const normalizedBody = body.replace(/\r\n/g, '\n');
  const text = `---\n${yamlText}\n---\n${normalizedBody}`;
  const withEol = eol === '\r\n' ? text.replace(/\n/g, '\r\n') : text;
  return (match?.[1] ?? '') + withEol;
}
