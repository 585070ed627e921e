import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-maps-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Bundles `entry` (TypeScript) as the build does (a linked map beside the file) and runs it in a fresh Node; its stdout. */
async function runBuilt(files: Record<string, string>): Promise<string> {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  await build({
    entryPoints: [path.join(dir, 'entry.ts')],
    outfile: path.join(dir, 'out', 'entry.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
  });
  return execFileSync(process.execPath, [path.join(dir, 'out', 'entry.js')], { encoding: 'utf8' });
}

describe('stack traces of the built app', () => {
  it('name the source file and line of each frame of ours, read from its map when a stack is first made', async () => {
    const maps = path.resolve(import.meta.dirname, 'lazy-source-maps.ts');
    const out = await runBuilt({
      'boom.ts': ['// A comment that moves the line', 'export function boom(): never {', "  throw new TypeError('it broke');", '}', ''].join('\n'),
      'entry.ts': [
        `import { mapStackTracesLazily } from ${JSON.stringify(maps)};`,
        "import { boom } from './boom.js';",
        'mapStackTracesLazily();',
        'try {',
        '  boom();',
        '} catch (error) {',
        '  console.log((error as Error).stack);',
        '}',
        '',
      ].join('\n'),
    });
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('TypeError: it broke');
    expect(lines[1]).toBe(`    at boom (${path.join(dir, 'boom.ts')}:3:9)`);
    expect(lines[2]).toMatch(new RegExp(`^    at ${path.join(dir, 'entry.ts').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:3$`));
  });

  it('shows a frame whose file has no map as Node does', async () => {
    const maps = path.resolve(import.meta.dirname, 'lazy-source-maps.ts');
    const out = await runBuilt({
      'entry.ts': [
        `import { mapStackTracesLazily } from ${JSON.stringify(maps)};`,
        "import fs from 'node:fs';",
        'mapStackTracesLazily();',
        'try {',
        "  fs.readFileSync('/no/such/file/here');",
        '} catch (error) {',
        '  console.log((error as Error).stack);',
        '}',
        '',
      ].join('\n'),
    });
    expect(out).toContain("Error: ENOENT: no such file or directory, open '/no/such/file/here'");
    expect(out).toMatch(/\n {4}at Object\.readFileSync \(node:fs:\d+:\d+\)/);
    expect(out).toContain(`${path.join(dir, 'entry.ts')}:5:6`);
  });
});
