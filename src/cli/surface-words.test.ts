import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WAYS, inTerminalWords } from '../shared/surface-words.js';

const SRC = path.resolve(import.meta.dirname, '..');
/** How a sentence names a way only the app has: a Settings field, a view's tab (`the Dream tab`), a click, a button. */
const APP_WAY = /in Settings\b|Settings →|\b[A-Z][\w.]*(?: [a-z]+)? tab\b|\bclick\b|button/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test-support' ? [] : sourceFiles(full);
    return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [full] : [];
  });
}

describe('one table of ways, each said per surface', () => {
  it('says each of the app’s ways the terminal’s way, and nothing else changes', () => {
    for (const { app, cli } of Object.values(WAYS)) {
      expect(inTerminalWords(`x ${app} y`)).toBe(`x ${cli} y`);
      expect(cli).not.toMatch(/["\\]/);
      expect(inTerminalWords(cli), 'a terminal way is said once, not again').toBe(cli);
    }
    expect(inTerminalWords('The Settings of Claude Code stay.')).toBe('The Settings of Claude Code stay.');
  });

  it('a sentence the CLI may print names no way only the app has, unless it names the terminal’s too (or says it is the app’s)', () => {
    const offenders: string[] = [];
    for (const dir of ['main', 'shared', 'server']) {
      for (const file of sourceFiles(path.join(SRC, dir))) {
        if (file.endsWith('surface-words.ts') || file.includes(`${path.sep}shell${path.sep}`)) continue;
        fs.readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            const code = line.trim();
            if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
            // Only words inside a string: a sentence.
            const strings = code.match(/(['"`])(?:\\.|(?!\1).)*\1/g) ?? [];
            const sentence = strings.find((s) => APP_WAY.test(s) && / /.test(s));
            if (!sentence) return;
            if (/memdir |the app's|settings\.json|WAYS\./.test(code)) return;
            offenders.push(`${path.relative(SRC, file)}:${i + 1}: ${sentence.slice(0, 120)}`);
          });
      }
    }
    expect(offenders, 'put the way in src/shared/surface-words.ts WAYS (both surfaces), or name the memdir command as well').toEqual([]);
  });
});
