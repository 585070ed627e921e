/**
 * @doyensec/electronegativity over our sources, failing on any HIGH (or worse) finding. The tool
 * exits 0 whatever it finds, so its CSV output is read instead. It also runs over a deliberately
 * insecure sample to prove this check can fail.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const BIN = path.join(ROOT, 'node_modules', '.bin', 'electronegativity');

interface Finding {
  issue: string;
  severity: string;
  file: string;
  location: string;
}

/** Parse electronegativity's CSV (quoted fields, header first). */
export function parseFindings(csv: string): Finding[] {
  const rows = csv.trim().split('\n').slice(1);
  return rows.map((row) => {
    const cells = [...row.matchAll(/("([^"]|"")*"|[^,]*)(,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"').trim());
    return { issue: cells[0] ?? '', severity: cells[1] ?? '', file: cells[3] ?? '', location: cells[4] ?? '' };
  });
}

async function scan(input: string): Promise<Finding[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-eneg-'));
  const out = path.join(dir, 'findings.csv');
  try {
    await promisify(execFile)(BIN, ['-i', input, '-o', out, '-e', '45.5.0', '-r'], { timeout: 120_000 });
    return parseFindings(await fs.readFile(out, 'utf8'));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const serious = (f: Finding) => f.severity === 'HIGH' || f.severity === 'CRITICAL';

describe('electronegativity', () => {
  it('finds no HIGH issue in the app', async () => {
    const findings = await scan(path.join(ROOT, 'src'));
    const high = findings.filter(serious).map((f) => `${f.issue} ${f.file}:${f.location}`);
    expect(high, `HIGH findings:\n${high.join('\n')}`).toEqual([]);
    // The tool skips a file it cannot parse without a word: the file holding the window and its
    // webPreferences must be among those it read, or "no HIGH finding" proves nothing.
    expect(findings.filter((f) => f.file.endsWith('shell/electron/main.ts')).map((f) => f.issue)).toContain('PRELOAD_JS_CHECK');
  }, 150_000);

  it('does report HIGH issues when they exist', async () => {
    const findings = await scan(path.join(ROOT, 'test', 'fixtures', 'electron-insecure'));
    expect(findings.filter(serious).map((f) => f.issue)).toEqual(expect.arrayContaining(['LIMIT_NAVIGATION_GLOBAL_CHECK', 'CONTEXT_ISOLATION_JS_CHECK']));
  }, 150_000);
});
