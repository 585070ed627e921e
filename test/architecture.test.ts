/**
 * docs/ARCHITECTURE.md's layer map against the real imports (issue 17, item 7): every import
 * under src/ that is not a test, reduced to the map's nodes, must be an arrow the page lists; every
 * arrow it lists must still be in the code; every debt it names must still be an import. A failure
 * prints the exact lines to paste into or delete from the page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ArchitectureMap, type FileImport, checkMap, collectImports, nodeOf, parseMap, specifiersOf } from './architecture-map.js';

const REPO = path.resolve(import.meta.dirname, '..');
const PAGE = fs.readFileSync(path.join(REPO, 'docs/ARCHITECTURE.md'), 'utf8');

describe('docs/ARCHITECTURE.md', () => {
  it('maps every import under src/, lists no arrow the code lacks, and names only debts still owed', () => {
    const problems = checkMap(parseMap(PAGE), collectImports(REPO));
    expect(problems, `\n${problems.join('\n\n')}\n`).toEqual([]);
  });

  it('names only files that exist', () => {
    const files = ['src', 'test'].flatMap((top) =>
      fs.readdirSync(path.join(REPO, top), { recursive: true, encoding: 'utf8' }).map((file) => `/${top}/${file.split(path.sep).join('/')}`),
    );
    const named = [...new Set([...PAGE.matchAll(/`([\w./-]+\.tsx?)`/g)].map((m) => m[1]!))];
    expect(named.length).toBeGreaterThan(40);
    // A name is a path from the repository or from any folder on the way (`dream/gates/dream-gates.ts`, `dream-gates.ts`).
    expect(named.filter((name) => !files.some((file) => file.endsWith(`/${name}`)))).toEqual([]);
  });

  it('links the page from the README', () => {
    expect(fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')).toContain('](docs/ARCHITECTURE.md)');
  });
});

/** A small house: shared at the bottom, memdir over it, the api over memdir. */
const MAP: ArchitectureMap = parseMap(
  ['```layers', 'shared ->', 'memdir -> shared   # the floor', 'api -> memdir, shared', '```', '```debts', '```'].join('\n'),
);
const HOUSE: FileImport[] = [
  { from: 'src/main/memdir/memory-service.ts', to: 'src/shared/limits.ts' },
  { from: 'src/main/api/memories.ts', to: 'src/main/memdir/index.ts' },
  { from: 'src/main/api/memories.ts', to: 'src/shared/contract/memories.ts' },
];

describe('the map checker', () => {
  it('passes a map that says what the code does', () => {
    expect(checkMap(MAP, HOUSE)).toEqual([]);
  });

  it('fails on an arrow the code has and the map lacks, printing the corrected line, and on the cycle an upward arrow makes', () => {
    const upward = { from: 'src/main/memdir/memory-service.ts', to: 'src/main/api/dispatch.ts' };
    const problems = checkMap(MAP, [...HOUSE, upward]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe(
      'In the ```layers block of docs/ARCHITECTURE.md replace\n    memdir -> shared\n  with\n    memdir -> api, shared\n  (the code has memdir -> api, which the map lacks).',
    );
    expect(problems[1]).toMatch(/^The arrows that are not debts make a cycle: api -> memdir -> api\./);
  });

  it('fails on an arrow the map lists and the code no longer has, printing the corrected line', () => {
    const problems = checkMap(MAP, HOUSE.slice(0, 2));
    expect(problems).toEqual([
      'In the ```layers block of docs/ARCHITECTURE.md replace\n    api -> memdir, shared\n  with\n    api -> memdir\n  (the map lists api -> shared, which the code no longer has).',
    ]);
  });

  it('prints the whole line of a node the map does not know', () => {
    const problems = checkMap(MAP, [...HOUSE, { from: 'src/cli/main.ts', to: 'src/main/memdir/index.ts' }]);
    expect(problems).toEqual(['In the ```layers block of docs/ARCHITECTURE.md add\n    cli -> memdir\n  (the code has cli -> memdir, which the map lacks).']);
  });

  it('fails on a debt that is paid, and on an import along a debt arrow that is not listed', () => {
    const owed = { from: 'src/shared/limits.ts', to: 'src/main/memdir/memory-service.ts' };
    const withDebt = parseMap(
      ['```layers', 'shared -> memdir', 'memdir -> shared', 'api -> memdir, shared', '```', '```debts', `${owed.from} -> ${owed.to}`, '```'].join('\n'),
    );
    expect(checkMap(withDebt, [...HOUSE, owed])).toEqual([]);

    const second = { from: 'src/shared/memory-types.ts', to: 'src/main/memdir/memory-service.ts' };
    const problems = checkMap(withDebt, [...HOUSE, owed, second]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('Add to the ```debts block of docs/ARCHITECTURE.md');
    expect(problems[0]).toContain('\n    src/shared/memory-types.ts -> src/main/memdir/memory-service.ts\n');

    const paid = checkMap(withDebt, [...HOUSE, second]);
    expect(paid).toContain(
      'Delete from the ```debts block of docs/ARCHITECTURE.md\n    src/shared/limits.ts -> src/main/memdir/memory-service.ts\n  (that import is gone: the debt is paid).',
    );
  });

  it('fails on a cycle among arrows that are not debts', () => {
    const cyclic = parseMap(['```layers', 'shared -> memdir', 'memdir -> shared', 'api -> memdir, shared', '```', '```debts', '```'].join('\n'));
    const back = { from: 'src/shared/limits.ts', to: 'src/main/memdir/memory-service.ts' };
    const problems = checkMap(cyclic, [...HOUSE, back]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^The arrows that are not debts make a cycle: (memdir -> shared -> memdir|shared -> memdir -> shared)\./);
  });

  it('sees static imports, export … from, import() and import types; nothing in a string or a comment', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      "type F = import('./f.js').F;",
      "const g = 'import(\"./g.js\")'; // import { h } from './h.js';",
    ].join('\n');
    expect(specifiersOf('x.ts', text)).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js']);
  });

  it('splits the shell by its folders and gives every other file its layer or capability', () => {
    expect(['src/main/shell/launch.ts', 'src/main/shell/electron/main.ts', 'src/main/shell/host/serve.ts'].map(nodeOf)).toEqual([
      'shell',
      'shell/electron',
      'shell/host',
    ]);
    expect(['src/shared/contract/index.ts', 'src/main/dream/plan/gather.ts', 'src/renderer/views/Dashboard.tsx'].map(nodeOf)).toEqual([
      'shared',
      'dream',
      'renderer',
    ]);
  });
});
