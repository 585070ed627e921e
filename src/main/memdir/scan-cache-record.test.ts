import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { missingFilesOf, missingPointersOf } from '../../shared/index-cut.js';
import { MEMORY_TYPES, SCOPES } from '../../shared/memory-types.js';
import { FIX_KINDS, PROBLEM_CODES, type Problem } from '../../shared/problems.js';
import { type MemoryDirScan, memoryDirScanSchema } from '../../shared/scan-types.js';
import { topicOwnProblems } from './health.js';
import { otherTargets, type StoredDir } from './scan-cache.js';
import { BlockWriter, readBlocks, readDirRecord, writeDirRecord } from './scan-cache-record.js';

const DIR = '/home/u/.claude/projects/-work-shop/memory';

/** Text as memories hold it: quotes, `#`, colons, emoji, Chinese and Japanese, control characters. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('', 'Deploy #3: rollback', '部署前先跑集成测试 🚀', 'アレン', 'say "hi"\n\\'),
);
const relativePath = fc
  .array(fc.constantFrom('a', 'retros', 'b-c', '部署', 'x y', 'd.e'), { minLength: 1, maxLength: 3 })
  .map((parts) => `${parts.join('/')}.md`);
// (JSON has no -0: a file system gives none either.)
const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x));
const problem = fc.record(
  {
    code: fc.constantFrom(...PROBLEM_CODES),
    file: fc.option(text),
    line: fc.option(fc.oneof(fc.nat(), finite)),
    message: text,
    severity: fc.constantFrom('error' as const, 'warning' as const, 'hint' as const),
    fix: fc.option(fc.constantFrom(...FIX_KINDS)),
    target: text,
  },
  { requiredKeys: ['code', 'file', 'line', 'message', 'severity', 'fix'] },
);

/** A directory as a scan leaves it: topic files sorted, a memory for each one that could be read. */
const storedDir: fc.Arbitrary<StoredDir> = fc
  .record({
    files: fc.uniqueArray(relativePath, { maxLength: 12 }).map((f) => f.sort()),
    scope: fc.constantFrom(...SCOPES),
    seed: fc.array(
      fc.record({
        facts: fc.tuple(fc.nat(), finite, finite, fc.nat()),
        failure: fc.option(fc.record({ code: fc.constantFrom('unreadable' as const, 'unsafe-link' as const), reason: text }), { freq: 4 }),
        issues: fc.array(
          fc.oneof(
            fc.record({ code: fc.constantFrom('bad-frontmatter' as const, 'invalid-type' as const), message: text }),
            fc.record({ code: fc.constant('cut-by-comment' as const), message: text, line: fc.integer({ min: 1, max: 40 }) }),
          ),
          { maxLength: 2 },
        ),
        hints: fc.array(fc.record({ kind: fc.constantFrom('file-paths' as const, 'code' as const, 'git-log' as const), message: text }), { maxLength: 1 }),
        name: text,
        description: text,
        type: fc.constantFrom(...MEMORY_TYPES, null),
        layout: fc.constantFrom('flat' as const, 'nested' as const, 'none' as const),
      }),
      { minLength: 12, maxLength: 12 },
    ),
    index: fc.option(
      fc.record({
        facts: fc.tuple(fc.nat(), finite, finite, fc.nat()),
        links: fc.array(fc.oneof(fc.nat({ max: 11 }), text, fc.constantFrom('../up.md', 'team/x.md', '')), { maxLength: 6 }),
        failed: fc.boolean(),
        teamLinks: fc.record({ loaded: fc.array(text, { maxLength: 2 }), cut: fc.array(text, { maxLength: 2 }) }),
      }),
    ),
    summary: fc.record({
      exists: fc.boolean(),
      numbers: fc.array(finite, { minLength: 6, maxLength: 6 }),
      loaded: fc.array(fc.oneof(fc.nat({ max: 11 }), text), { maxLength: 5 }),
      cut: fc.array(fc.oneof(fc.nat({ max: 11 }), text), { maxLength: 5 }),
      cutMemories: fc.array(fc.nat({ max: 11 }), { maxLength: 3 }),
      firstCutLine: fc.option(fc.nat()),
      reason: fc.option(text),
    }),
    problems: fc.array(problem, { maxLength: 4 }),
    /** Where the problems the notes give (written as their number) fall among the others. */
    interleave: fc.array(fc.boolean(), { maxLength: 40 }),
    tail: fc.array(
      fc.oneof(
        relativePath.map((f) => `stray:${f}`),
        relativePath.map((f) => `other:team/${f}`),
        relativePath.map((f) => `parent:${f}`),
        relativePath.map((f) => `parent-cut:${f}`),
      ),
      {
        maxLength: 3,
      },
    ),
    lastChangeMs: fc.option(finite),
    /** The directory's folders as listed (itself first), or none written down. */
    folders: fc.option(
      fc.tuple(fc.tuple(finite, finite, fc.nat()), fc.uniqueArray(fc.tuple(relativePath, finite, finite, fc.nat()), { maxLength: 2, selector: ([f]) => f })),
    ),
  })
  .map(({ files, scope, seed, index, summary, problems: others, interleave, tail, lastChangeMs, folders }) => {
    // A link by number names a topic file; otherwise a path that is none of them.
    const pick = (x: number | string): string =>
      typeof x === 'number' ? (files[x % Math.max(files.length, 1)] ?? 'gone.md') : files.includes(x) ? `${x}~` : x;
    const notes: StoredDir['notes'] = [];
    const memories: MemoryDirScan['memories'] = [];
    files.forEach((file, i) => {
      const s = seed[i]!;
      if (s.failure || s.issues.length > 0 || s.hints.length > 0) notes.push([i, s.issues, s.hints, s.failure]);
      if (!s.failure)
        memories.push({
          file,
          name: s.name,
          description: s.description,
          type: s.type,
          scope,
          bytes: s.facts[0],
          mtimeMs: s.facts[1],
          layout: s.layout,
          tooLarge: false,
        });
    });
    const own = notes.flatMap(([i, issues, hints, failure]) =>
      topicOwnProblems({ file: files[i]!, ...(failure ? { unreadable: failure } : {}), issues, hints }),
    );
    const problems: Problem[] = [];
    for (const ownFirst of interleave) {
      const next = ownFirst ? own.shift() : others.shift();
      if (next) problems.push(next);
    }
    problems.push(...own, ...others);
    const targets = index && !index.failed ? index.links.map(pick) : null;
    const [lines, bytes, chars, loadedLines, loadedBytes, loadedChars] = summary.numbers as [number, number, number, number, number, number];
    const loaded = summary.loaded.map(pick);
    const cut = summary.cut.map(pick);
    const stored: StoredDir = {
      index: index && {
        facts: index.facts,
        targets,
        teamLinks: index.failed ? { loaded: [], cut: [] } : index.teamLinks,
        failure: index.failed ? { code: 'unreadable', reason: 'it is not valid UTF-8' } : null,
      },
      files,
      facts: files.flatMap((_, i) => seed[i]!.facts),
      notes,
      tail,
      others: otherTargets(targets, files),
      folders: folders && [['', ...folders[0]], ...folders[1]],
      result: {
        memoryDir: DIR,
        exists: true,
        index: {
          exists: summary.exists,
          lines,
          bytes,
          chars,
          loaded,
          cut,
          loadedLines,
          loadedBytes,
          loadedChars,
          firstCutLine: summary.firstCutLine,
          reason: summary.reason,
          // Memories past the cut (they depend on links the record does not hold); the missing files past it are worked out from the rest.
          cutMemories: [...new Set(summary.cutMemories.flatMap((i) => (memories.length > 0 ? [memories[i % memories.length]!.file] : [])))],
          cutMissing: missingPointersOf(cut, () => missingFilesOf(problems)),
          loadedMissing: missingPointersOf(loaded, () => missingFilesOf(problems)),
        },
        memories,
        problems,
        lastChangeMs,
      },
    };
    // Plain objects, as a scan makes them (fast-check's records have no prototype).
    return structuredClone(stored);
  });

/** A record and the blocks it stands on, through JSON text as saveScanCache writes them. */
function throughFile(stored: StoredDir): { record: unknown; facts: unknown; text: unknown } {
  const blocks = new BlockWriter();
  const record = writeDirRecord(DIR, stored, blocks);
  return JSON.parse(JSON.stringify({ record, ...blocks.written() })) as { record: unknown; facts: unknown; text: unknown };
}

function readBack(file: unknown): ReturnType<typeof readDirRecord> {
  if (typeof file !== 'object' || file === null) return null;
  const { record, facts, text } = file as { record: unknown; facts: unknown; text: unknown };
  const blocks = readBlocks(facts, text);
  return blocks && readDirRecord(record, blocks);
}

/** Every place in a JSON value, as a list of keys. */
function placesOf(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...placesOf(v, [...at, i])));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) out.push(...placesOf(v, [...at, k]));
  return out;
}

/** `value` with what is at `place` replaced (or, for `undefined`, removed). */
function replaced(value: unknown, place: (string | number)[], by: unknown): unknown {
  if (place.length === 0) return by;
  const [key, ...rest] = place;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (by === undefined && rest.length === 0) copy.splice(key as number, 1);
    else copy[key as number] = replaced(copy[key as number], rest, by);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  if (by === undefined && rest.length === 0) delete copy[key as string];
  else copy[key as string] = replaced(copy[key as string], rest, by);
  return copy;
}

describe('a directory record of the scan cache file', () => {
  it('gives back exactly the scan it was written from, key order included', () => {
    fc.assert(
      fc.property(storedDir, (stored) => {
        const back = readBack(throughFile(stored));
        expect(back).not.toBeNull();
        expect({ ...back, facts: Array.from(back!.facts) }).toStrictEqual({ dir: DIR, ...stored });
        expect(JSON.stringify(back!.result)).toBe(JSON.stringify(stored.result));
      }),
      { numRuns: 2_000 },
    );
  });

  it("writes each problem a topic's notes give once, in the notes", () => {
    fc.assert(
      fc.property(storedDir, (stored) => {
        const { record } = throughFile(stored) as { record: { problems: unknown[] } };
        const own = stored.notes.reduce((n, [, issues, hints, failure]) => n + (failure ? 1 : issues.length + hints.length), 0);
        expect(record.problems.filter((p) => typeof p === 'number')).toHaveLength(own);
      }),
      { numRuns: 2_000 },
    );
  });

  it('builds nothing memoryDirScanSchema refuses, whatever the file holds in any place', () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        storedDir,
        fc.nat(),
        fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.constantFrom(1e308 * 10, -1, 0.5, 'x.md', '../x.md', null, [], {})),
        (stored, n, by) => {
          const file = throughFile(stored);
          const places = placesOf(file);
          const back = readBack(replaced(file, places[n % places.length]!, by));
          if (!back) return;
          accepted++;
          // What it built passes the contract's schema unchanged: no key the schema does not know, none missing.
          expect(memoryDirScanSchema.parse(back.result)).toStrictEqual(back.result);
          expect(back.result.memoryDir).toBe(back.dir);
          expect(back.facts).toHaveLength(4 * back.files.length);
          expect(back.others).toEqual(otherTargets(back.index?.targets ?? null, back.files));
          expect(back.result.memories.map((m) => m.file)).toEqual(back.files.filter((_, i) => !back.notes.some((note) => note[0] === i && note[3] !== null)));
        },
      ),
      { numRuns: 5_000 },
    );
    // Many changes leave a valid record (another name, another number): those were checked above.
    expect(accepted).toBeGreaterThan(100);
  });

  it('writes down no directory whose scan is not the one its files give', () => {
    fc.assert(
      fc.property(
        storedDir.filter((s) => s.result.memories.length > 0),
        (stored) => {
          const [first, ...rest] = stored.result.memories;
          const blocks = new BlockWriter();
          expect(writeDirRecord(DIR, { ...stored, result: { ...stored.result, memories: rest } }, blocks)).toBeNull();
          expect(
            writeDirRecord(DIR, { ...stored, result: { ...stored.result, memories: [{ ...first!, bytes: first!.bytes + 1 }, ...rest] } }, blocks),
          ).toBeNull();
          expect(writeDirRecord(`${DIR}/team`, stored, blocks)).toBeNull();
          // Nothing of them went into the blocks.
          expect(blocks.written()).toEqual({ facts: '', text: '' });
        },
      ),
      { numRuns: 300 },
    );
  });
});
