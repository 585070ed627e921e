import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEAVE_AS_IS, changeDataFile } from './data-file-merge.js';

let dataDir: string;
let file: string;
beforeEach(async () => {
  dataDir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-data-file-')));
  file = path.join(dataDir, 'list.json');
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

const parse = (text: string): string[] | null => {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as string[]) : null;
  } catch {
    return null;
  }
};

describe('changeDataFile', () => {
  it('writes nothing when the change says to leave the file as it is, and keeps a damaged file where it is', async () => {
    await fs.writeFile(file, '["a"]\n');
    expect(await changeDataFile(file, () => LEAVE_AS_IS, { dataDir, parse })).toBe(LEAVE_AS_IS);
    expect(await fs.readFile(file, 'utf8')).toBe('["a"]\n');
    await fs.writeFile(file, '["a", ');
    expect(await changeDataFile(file, () => LEAVE_AS_IS, { dataDir, parse })).toBe(LEAVE_AS_IS);
    expect((await fs.readdir(dataDir)).filter((n) => n.includes('damaged'))).toEqual([]);
    expect(await fs.readFile(file, 'utf8')).toBe('["a", ');
  });

  it('keeps a damaged file aside by default, and replaces it only when told to', async () => {
    await fs.writeFile(file, '["a", ');
    await changeDataFile(file, (now: string[] | null) => [...(now ?? []), 'b'], { dataDir, parse, now: new Date('2026-01-01T12:00:00Z') });
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(['b']);
    expect(await fs.readFile(path.join(dataDir, 'list.json.damaged-20260101T120000Z'), 'utf8')).toBe('["a", ');
    await fs.writeFile(file, '{"not": "a list"}');
    await changeDataFile(file, (now: string[] | null) => [...(now ?? []), 'c'], { dataDir, parse, damaged: 'replace' });
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(['c']);
    expect((await fs.readdir(dataDir)).filter((n) => n.includes('damaged'))).toEqual(['list.json.damaged-20260101T120000Z']);
  });
});
