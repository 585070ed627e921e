import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWorkersTogether } from '../memdir/test-support/spawn-worker.js';
import { keepApart, readKeptApart } from './clone-groups.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const worker = path.join(here, 'test-support', 'kept-apart-worker.ts');

let tmp: string;
let dataDir: string;
let file: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-kept-apart-')));
  dataDir = path.join(tmp, 'data');
  file = path.join(dataDir, 'identity', 'kept-apart.json');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function keptOnDisk(): Promise<string[][]> {
  return ((JSON.parse(await fs.readFile(file, 'utf8')) as { kept: string[][] }).kept ?? []).map((k) => [...k].sort()).sort();
}

describe('"keep apart" choices saved by more than one writer', () => {
  it('keeps both choices when two calls in one process keep different pairs apart at once', async () => {
    await Promise.all([keepApart(dataDir, ['-src-shop', '-work-shop']), keepApart(dataDir, ['-src-cafe', '-work-cafe'])]);
    expect(await keptOnDisk()).toEqual([
      ['-src-cafe', '-work-cafe'],
      ['-src-shop', '-work-shop'],
    ]);
    expect(await readKeptApart(dataDir)).toHaveLength(2);
  });

  it('keeps every choice of two processes keeping pairs apart at the same time', async () => {
    const count = 8;
    expect(
      await runWorkersTogether(
        worker,
        ['app', 'cli'].map((prefix) => [dataDir, prefix, String(count)]),
      ),
    ).toEqual([0, 0]);
    const expected = ['app', 'cli'].flatMap((prefix) => Array.from({ length: count }, (_, n) => [`-${prefix}-${n}-a`, `-${prefix}-${n}-b`])).sort();
    expect(await keptOnDisk()).toEqual(expected);
  });

  it('does not bring back a choice one writer replaced when another saves its own at the same time', async () => {
    await keepApart(dataDir, ['-src-shop', '-work-shop']);
    // A third copy joined the group and the user kept all three apart: the pair's choice is replaced.
    await Promise.all([keepApart(dataDir, ['-src-shop', '-work-shop', '-tmp-shop']), keepApart(dataDir, ['-src-cafe', '-work-cafe'])]);
    expect(await keptOnDisk()).toEqual([
      ['-src-cafe', '-work-cafe'],
      ['-src-shop', '-tmp-shop', '-work-shop'],
    ]);
  });

  it('keeps a damaged file aside, under a dated name, and starts a fresh one', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, '{"version": 1, "kept": [["-a", ');
    expect(await readKeptApart(dataDir)).toEqual([]);
    await keepApart(dataDir, ['-src-cafe', '-work-cafe']);
    expect(await keptOnDisk()).toEqual([['-src-cafe', '-work-cafe']]);
    const aside = (await fs.readdir(path.dirname(file))).filter((n) => n.startsWith('kept-apart.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^kept-apart\.json\.damaged-\d{8}T\d{6}Z$/);
    expect(await fs.readFile(path.join(path.dirname(file), aside[0]!), 'utf8')).toBe('{"version": 1, "kept": [["-a", ');
  });

  it('keeps an entry it cannot read (a later version of Memdir wrote it) when adding its own choice', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify({ version: 1, kept: [{ dirs: ['-a', '-b'], until: 'later' }] }));
    await keepApart(dataDir, ['-src-cafe', '-work-cafe']);
    expect((JSON.parse(await fs.readFile(file, 'utf8')) as { kept: unknown[] }).kept).toEqual([
      { dirs: ['-a', '-b'], until: 'later' },
      ['-src-cafe', '-work-cafe'],
    ]);
    expect(await readKeptApart(dataDir)).toEqual([['-src-cafe', '-work-cafe']]);
  });
});
