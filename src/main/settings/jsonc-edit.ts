/**
 * Minimal text edits of a JSON (or JSON-with-comments) document, the way a guest edits someone
 * else's file: change only the bytes meant, keep every other byte — comments, inline arrays,
 * trailing commas, tabs, CRLF — and make removing a value the exact inverse of adding it, so
 * that adding then removing leaves the file byte-identical.
 *
 * jsonc-parser gives the syntax tree with offsets; the edits are computed here rather than by
 * its `modify`, because `modify` re-formats the whole line around an insertion (an inline
 * `"Stop": [{…}]` is split over many lines), its removal does not undo its insertion (an empty
 * `{}` comes back as `{\n  }`) and it drops a comment that sits between two members.
 *
 * Layout of inserted text follows its neighbours: an element added after others goes on its own
 * line with their indentation when they are on their own lines, or inline (`, {"a": 1}`) when
 * they share one; an empty container is opened over several lines, indented one unit (tab or
 * spaces, as the file indents) deeper than its own line.
 */
import { type Edit, type JSONPath, type Node, type ParseError, applyEdits, findNodeAtLocation, getNodeValue, parseTree } from 'jsonc-parser';
import { MemdirError } from '../../shared/errors.js';

/** A document that cannot be edited safely, in words. */
export class JsoncSyntaxError extends MemdirError<'invalid-file'> {
  override readonly name = 'JsoncSyntaxError';
  constructor(message: string) {
    super('invalid-file', message);
  }
}

interface Layout {
  eol: string;
  /** One level of indentation: a tab, or the file's number of spaces. */
  unit: string;
  /** `"a": 1` (true) or `"a":1`. */
  spaced: boolean;
}

function detectLayout(text: string): Layout {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  const indents = [...text.matchAll(/\n([ \t]+)\S/g)].map((m) => m[1]!);
  const spaces = indents.filter((i) => !i.includes('\t')).map((i) => i.length);
  const unit = indents[0]?.startsWith('\t') ? '\t' : ' '.repeat(spaces.length > 0 ? Math.min(...spaces) : 2);
  const spaced = !/"\s*:[^\s]/.test(text) || /"\s*:\s/.test(text);
  return { eol, unit, spaced };
}

/** `value` on one line: `{"a": 1, "b": [2]}` (spaced) or `{"a":1,"b":[2]}`. */
function inlineJson(value: unknown, spaced: boolean): string {
  if (Array.isArray(value)) return `[${value.map((v) => inlineJson(v, spaced)).join(spaced ? ', ' : ',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${spaced ? ' ' : ''}${inlineJson(v, spaced)}`).join(spaced ? ', ' : ',')}}`;
  }
  return JSON.stringify(value);
}

/** `value` over several lines, its first line at the caller's position, later ones at `indent`. */
function blockJson(value: unknown, indent: string, layout: Layout): string {
  return JSON.stringify(value, null, layout.unit).replace(/\n/g, `${layout.eol}${indent}`);
}

/** The leading whitespace of the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

const isBlank = (s: string) => /^\s*$/.test(s);

/** The member node (a property, or an array element) a child value belongs to. */
function memberOf(node: Node): Node {
  return node.parent?.type === 'property' ? node.parent : node;
}

/** Where a container's children are: `{` or `[` at `offset`, its closing one at the end. */
function interior(container: Node): { open: number; close: number } {
  return { open: container.offset + 1, close: container.offset + container.length - 1 };
}

/**
 * A JSON-with-comments document being edited. Every operation re-parses the text it produced,
 * so offsets never go stale; `text` is the result so far.
 */
export class JsoncDocument {
  private current: string;
  private root: Node;
  private readonly layout: Layout;
  /** A byte-order mark kept aside: jsonc-parser does not read one, Claude Code's files may have it. */
  private readonly bom: string;

  /** @throws {JsoncSyntaxError} when `text` is not a JSON object (comments and trailing commas allowed). */
  constructor(text: string) {
    this.bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
    this.current = text.slice(this.bom.length);
    if (isBlank(this.current)) this.current = '{}';
    this.layout = detectLayout(this.current);
    this.root = this.parse(this.current);
  }

  private parse(text: string): Node {
    const errors: ParseError[] = [];
    const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
    if (errors.length > 0 || !root) {
      const at = errors[0] ? lineColumn(text, errors[0].offset) : null;
      throw new JsoncSyntaxError(at ? `it is not valid JSON (line ${at.line}, column ${at.column})` : 'it is not valid JSON');
    }
    if (root.type !== 'object') throw new JsoncSyntaxError('it does not hold a JSON object');
    return root;
  }

  /** The edited text (with the byte-order mark it came with). */
  get text(): string {
    return this.bom + this.current;
  }

  /** The plain value at `path` (comments dropped), or undefined when there is none. */
  value(path: JSONPath = []): unknown {
    const node = this.node(path);
    return node ? getNodeValue(node) : undefined;
  }

  /** The node at `path`, or undefined. */
  node(path: JSONPath): Node | undefined {
    return path.length === 0 ? this.root : findNodeAtLocation(this.root, path);
  }

  private apply(edits: Edit[]): void {
    const next = applyEdits(this.current, edits);
    this.root = this.parse(next);
    this.current = next;
  }

  private container(path: JSONPath, type: 'object' | 'array'): Node {
    const node = this.node(path);
    if (!node || node.type !== type)
      throw new JsoncSyntaxError(`${path.length === 0 ? 'the document' : `"${path.join('.')}"`} is not ${type === 'object' ? 'an object' : 'a list'}`);
    return node;
  }

  /** The text of a new member (`"key": value` or `value`) placed at a position with `indent`. */
  private memberText(key: string | null, value: unknown, inline: boolean, indent: string): string {
    const colon = this.layout.spaced || !inline ? ': ' : ':';
    const body = inline ? inlineJson(value, this.layout.spaced) : blockJson(value, indent, this.layout);
    return key === null ? body : `${JSON.stringify(key)}${colon}${body}`;
  }

  /** Add a member at the end of the container at `path` (see the module comment for layout). */
  private add(path: JSONPath, type: 'object' | 'array', key: string | null, value: unknown): void {
    const container = this.container(path, type);
    const { open, close } = interior(container);
    const children = container.children ?? [];
    const last = children.at(-1);
    if (!last) {
      const inside = this.current.slice(open, close);
      const outer = lineIndent(this.current, container.offset);
      const inner = outer + this.layout.unit;
      const member = this.memberText(key, value, false, inner);
      // An empty container's whitespace is replaced; comments in it stay after the new member.
      this.apply(
        isBlank(inside)
          ? [{ offset: open, length: close - open, content: `${this.layout.eol}${inner}${member}${this.layout.eol}${outer}` }]
          : [{ offset: open, length: 0, content: `${this.layout.eol}${inner}${member}` }],
      );
      return;
    }
    const before = children.length > 1 ? children.at(-2)! : null;
    const gap = this.current.slice(before ? before.offset + before.length : open, last.offset);
    const separator = before ? gap.replace(/^\s*,/, '') : gap;
    const spacing = isBlank(separator) ? separator : `${this.layout.eol}${lineIndent(this.current, last.offset)}`;
    const inline = !spacing.includes('\n');
    const indent = inline ? '' : spacing.slice(spacing.lastIndexOf('\n') + 1);
    const end = last.offset + last.length;
    this.apply([
      { offset: end, length: 0, content: `,${inline && spacing === '' && this.layout.spaced ? ' ' : spacing}${this.memberText(key, value, inline, indent)}` },
    ]);
  }

  /** Set `key` of the object at `path` to `value`: its value replaced in place, or the property added at the end. */
  set(path: JSONPath, key: string, value: unknown): void {
    const existing = this.node([...path, key]);
    if (!existing) {
      this.add(path, 'object', key, value);
      return;
    }
    const inline = !this.current.slice(existing.offset, existing.offset + existing.length).includes('\n') && (value === null || typeof value !== 'object');
    const content = inline ? inlineJson(value, this.layout.spaced) : blockJson(value, lineIndent(this.current, existing.offset), this.layout);
    this.apply([{ offset: existing.offset, length: existing.length, content }]);
  }

  /** Append `value` to the list at `path`. */
  append(path: JSONPath, value: unknown): void {
    this.add(path, 'array', null, value);
  }

  /**
   * Remove the member at `path` (a property or a list element): the exact inverse of adding it
   * at that place. Nothing happens when there is none.
   */
  remove(path: JSONPath): void {
    const value = this.node(path);
    if (!value || path.length === 0) return;
    const member = memberOf(value);
    const container = member.parent!;
    const siblings = container.children ?? [];
    const at = siblings.indexOf(member);
    const start = member.offset;
    const end = member.offset + member.length;
    const { open, close } = interior(container);
    const previous = at > 0 ? siblings[at - 1]! : null;
    const next = at < siblings.length - 1 ? siblings[at + 1]! : null;
    let edits: Edit[];
    if (previous && /^\s*,\s*$/.test(this.current.slice(previous.offset + previous.length, start))) {
      edits = [{ offset: previous.offset + previous.length, length: end - previous.offset - previous.length, content: '' }];
    } else if (!previous && next && /^\s*,\s*$/.test(this.current.slice(end, next.offset))) {
      edits = [{ offset: start, length: next.offset - start, content: '' }];
    } else if (!previous && !next && isBlank(this.current.slice(open, start) + this.current.slice(end, close))) {
      edits = [{ offset: open, length: close - open, content: '' }];
    } else if (!previous && !next && isBlank(this.current.slice(open, start)) && commaIn(this.current, end, close) < 0) {
      edits = [{ offset: open, length: end - open, content: '' }];
    } else {
      // Comments around the member stay: only the member and the one comma that separated it go.
      const comma = previous ? commaIn(this.current, previous.offset + previous.length, start) : commaIn(this.current, end, next ? next.offset : close);
      edits = [{ offset: start, length: end - start, content: '' }];
      if (comma >= 0) edits.push({ offset: comma, length: 1, content: '' });
    }
    this.apply(edits);
  }
}

/** The offset of the first comma of `text` in [from, to) outside comments, or -1. */
function commaIn(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const c = text[i];
    if (c === ',') return i;
    if (c !== '/') continue;
    const close = text[i + 1] === '/' ? text.indexOf('\n', i) : text[i + 1] === '*' ? text.indexOf('*/', i + 2) + 1 : i;
    i = close <= 0 ? to : close;
  }
  return -1;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}
