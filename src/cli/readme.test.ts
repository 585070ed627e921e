import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from './registry.js';

const README = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8');

/** `memdir a b c`, or `memdir a b x|c|y` (several subcommands documented together). */
function documented(name: readonly string[]): boolean {
  if (README.includes(`memdir ${name.join(' ')}`)) return true;
  const parent = name.slice(0, -1).join(' ');
  const last = name[name.length - 1]!;
  const together = new RegExp(`memdir ${parent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ([a-z-]+\\|)*${last}(\\|[a-z-]+)*\\b`);
  return parent !== '' && together.test(README);
}

describe('README', () => {
  it('documents every memdir command', () => {
    const missing = COMMANDS.map((c) => c.name).filter((name) => !documented(name));
    expect(missing.map((n) => n.join(' '))).toEqual([]);
  });
});
