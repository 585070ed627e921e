/**
 * Every limit in the contract, tried: a value just past it must come back as a sentence that
 * names the field in words, the value and the limit — never zod's wording, a field path or a
 * call name. A new limit without words for its field fails here.
 */
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { CONTRACT } from './index.js';
import { inputSentences, wordsFor } from './input-sentences.js';

interface Limit {
  call: string;
  path: (string | number)[];
  kind: 'string' | 'number' | 'array';
  check: 'max' | 'min';
  value: number;
  inclusive: boolean;
}

type Node = z.ZodType & { _zod: { def: Record<string, unknown> & { type: string; checks?: { _zod: { def: Record<string, unknown> } }[] } } };

function unwrap(schema: Node): Node {
  let s = schema;
  for (;;) {
    const def = s._zod.def;
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'readonly') s = def.innerType as Node;
    else if (def.type === 'pipe') s = def.in as Node;
    else return s;
  }
}

function limitsOf(call: string, schema: Node, path: (string | number)[], out: Limit[]): void {
  const s = unwrap(schema);
  const def = s._zod.def;
  const kind = def.type === 'string' || def.type === 'number' || def.type === 'array' ? def.type : null;
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    if (!kind) continue;
    if (c.check === 'max_length') out.push({ call, path, kind, check: 'max', value: c.maximum as number, inclusive: true });
    if (c.check === 'min_length') out.push({ call, path, kind, check: 'min', value: c.minimum as number, inclusive: true });
    if (c.check === 'less_than') out.push({ call, path, kind, check: 'max', value: c.value as number, inclusive: c.inclusive as boolean });
    if (c.check === 'greater_than') out.push({ call, path, kind, check: 'min', value: c.value as number, inclusive: c.inclusive as boolean });
  }
  if (def.type === 'object') for (const [key, child] of Object.entries(def.shape as Record<string, Node>)) limitsOf(call, child, [...path, key], out);
  if (def.type === 'array') limitsOf(call, def.element as Node, [...path, 0], out);
}

function violating(limit: Limit): unknown {
  const n = limit.check === 'max' ? limit.value + 1 : Math.max(0, limit.value - (limit.inclusive ? 1 : 0));
  if (limit.kind === 'number') return limit.check === 'max' ? limit.value + 1 : limit.value - 1;
  if (limit.kind === 'array') return Array.from({ length: n }, () => ({}));
  return 'x'.repeat(n);
}

function inputWith(path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  return typeof head === 'number' ? [inputWith(rest, value)] : { [head!]: inputWith(rest, value) };
}

const limits: Limit[] = [];
for (const [call, def] of Object.entries(CONTRACT)) limitsOf(call, def.input as unknown as Node, [], limits);

describe('limits as sentences', () => {
  it("finds the contract's limits (the walk itself works)", () => {
    expect(limits.length).toBeGreaterThan(40);
    expect(limits).toContainEqual(expect.objectContaining({ call: 'memories.update', path: ['body'], check: 'max' }));
    expect(limits).toContainEqual(expect.objectContaining({ call: 'team.connect', path: ['pullIntervalSec'], check: 'min', value: 5 }));
  });

  it.each(limits.map((l) => [`${l.call} ${l.path.join('.')} ${l.check} ${l.value}`, l] as const))('%s is said in words', (_name, limit) => {
    expect(wordsFor(limit.call, limit.path), `no words for ${limit.path.join('.')}`).not.toBeNull();
    const def = (CONTRACT as Record<string, { input: z.ZodType }>)[limit.call]!;
    const all = inputSentences(limit.call, def.input, inputWith(limit.path, violating(limit)), [String(limit.path[0])]);
    expect(all.length).toBeGreaterThan(0);
    for (const sentence of all) {
      expect(sentence).toMatch(/^[A-Z"].*\.$/);
      expect(sentence).not.toMatch(/Too big|Too small|expected|Invalid input|<=|>=/);
      expect(sentence).not.toContain(limit.call);
      const key = limit.path.filter((k) => typeof k === 'string').pop()!;
      if (/[A-Z]/.test(key)) expect(sentence).not.toContain(key);
    }
    // The limit itself is named (custom wordings like "Say why it is safe to share." excepted).
    const custom = all.every((s) => !/\d/.test(s) && !/empty/.test(s));
    if (!custom && limit.value > 1)
      expect(all.join(' ')).toMatch(new RegExp(limit.value.toLocaleString('en-US').replace(/,/g, ',?') + '|\\d+(\\.\\d)? (MB|KB)'));
  });

  it('says a 2 MB memory in megabytes, as written to disk', () => {
    const [sentence] = inputSentences('memories.update', CONTRACT['memories.update'].input, {
      dir: 'x',
      file: 'a.md',
      memoryDir: '/m',
      baseText: '',
      fields: { name: 'a', description: 'b', type: 'user' },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(sentence).toBe('This memory is 2.1 MB; a memory can be at most 1 MB.');
  });

  it('names a field by what it is in its call: Make room merges into a line, not a project', () => {
    const input = { dir: 'x', baseText: '', actions: [{ kind: 'merge', line: 3, into: 0 }] };
    expect(inputSentences('index.makeRoom', CONTRACT['index.makeRoom'].input, input)).toEqual([
      'The line merged into is 0; a line number must be more than 0.',
    ]);
  });

  it("keeps a schema's own wording, and names a missing field", () => {
    expect(
      inputSentences('memories.create', CONTRACT['memories.create'].input, {
        dir: 'x',
        memoryDir: '/m',
        fields: { name: '  ', description: '', type: 'user' },
        body: '',
      }),
    ).toEqual(['A memory needs a name.']);
    expect(inputSentences('projects.get', CONTRACT['projects.get'].input, {})).toEqual(['The project folder name is missing.']);
    expect(
      inputSentences('memories.create', CONTRACT['memories.create'].input, {
        dir: 'x',
        memoryDir: '/m',
        fields: { name: 'a', description: '', type: 'todo' },
        body: '',
      }),
    ).toEqual(['The type is "todo"; it must be one of "user", "feedback", "project", "reference".']);
  });

  // A record's keys are the person's: one named like what every object has was given Object's own "words".
  it('says a value under a key named `constructor` is wrong in words, as under any other key', () => {
    const merge = (key: string) =>
      inputSentences('duplicates.merge', CONTRACT['duplicates.merge'].input, {
        dir: 'x',
        memoryDir: '/m',
        keeper: 'a.md',
        others: ['b.md'],
        expect: { [key]: 5 },
      });
    const [plain] = merge('b.md');
    expect(plain).not.toMatch(/undefined|function/);
    expect(merge('constructor')).toEqual([plain]);
  });
});
