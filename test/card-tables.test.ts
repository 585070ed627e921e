/**
 * A carded table's card labels come from its header, in one place (components/CardTable.tsx): a label
 * written by hand on a cell (s43 wrote each one in every table) drifts from its header when the header
 * is renamed, and nothing drew the difference. The e2e check (e2e/laptop-width.e2e.ts) compares each
 * card's labels with its table's headers in real Chromium; this one keeps hand-written ones out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const RENDERER = path.resolve(import.meta.dirname, '../src/renderer');
const SHARED = 'components/CardTable.tsx';

describe('carded tables', () => {
  it('take their card labels and their cards class only from CardTable', () => {
    const files = fs
      .readdirSync(RENDERER, { recursive: true, encoding: 'utf8' })
      .map((f) => f.split(path.sep).join('/'))
      .filter((f) => f.endsWith('.tsx') && f !== SHARED);
    expect(files.length).toBeGreaterThan(20);
    const found: string[] = [];
    for (const file of files) {
      fs.readFileSync(path.join(RENDERER, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/data-label|className="[^"]*\bcards\b/.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, 'use CardTable and CardRow: the header gives each cell its label').toEqual([]);
  });
});
