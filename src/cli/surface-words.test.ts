import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WAYS, inTerminal, way } from '../main/core/surface-words.js';

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
  it('says each way the app’s way, and the terminal’s inside a memdir command, across its awaits', async () => {
    for (const key of Object.keys(WAYS) as (keyof typeof WAYS)[]) {
      expect(way(key)).toBe(WAYS[key].app);
      expect(await inTerminal(async () => (await Promise.resolve(), way(key)))).toBe(WAYS[key].cli);
      expect(WAYS[key].cli).not.toMatch(/in Settings\b|Settings →| tab\b|\bclick\b/);
    }
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
            if (/memdir |the app's|settings\.json|way\(/.test(code)) return;
            offenders.push(`${path.relative(SRC, file)}:${i + 1}: ${sentence.slice(0, 120)}`);
          });
      }
    }
    expect(offenders, 'put the way in src/main/core/surface-words.ts WAYS (both surfaces), or name the memdir command as well').toEqual([]);
  });
});
