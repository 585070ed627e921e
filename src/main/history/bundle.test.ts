import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeFileConfined, renameConfined, writeFileAtomic } from '../core/safe-fs.js';
import { bundleHistory, keepBundledHistory, listImportedHistories } from './bundle.js';
import { listHistory, planRestore, restoreFromHistory, transact } from './history.js';
import { retireImportedHistory } from './imports.js';
import { openShadowRepo } from './shadow-repo.js';

let tmp: string;
let dataDir: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bundle-')));
  dataDir = path.join(tmp, 'data');
});

afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function memoryDir(name: string): Promise<string> {
  const dir = path.join(tmp, name, 'memory');
  await fs.mkdir(dir, { recursive: true });
  return dir;
}

const change = (dir: string, summary: string, fn: () => Promise<unknown>) =>
  transact(dir, { source: 'manual', summary, dataDir }, async () => void (await fn()));

/** Runs `fn` with every git Memdir starts counted (a `git` first on PATH that notes each run, then runs the real one). */
async function countingGit<T>(fn: () => Promise<T>): Promise<{ result: T; runs: string[] }> {
  const bin = path.join(tmp, 'bin');
  const log = path.join(tmp, 'git-runs.log');
  await fs.mkdir(bin, { recursive: true });
  const real = (process.env.PATH ?? '').split(path.delimiter).find((d) => d !== bin && existsSync(path.join(d, 'git')));
  await fs.writeFile(path.join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${path.join(real!, 'git')}' "$@"\n`, { mode: 0o755 });
  await fs.rm(log, { force: true });
  const before = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${before ?? ''}`;
  try {
    const result = await fn();
    const runs = (await fs.readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    return { result, runs };
  } finally {
    process.env.PATH = before;
  }
}

describe('imported histories', () => {
  it('lists imports as each history alone lists them, with a fixed number of git runs', async () => {
    // One project exported twice (the second export holds the first), another with a team merge in its history.
    const a = await memoryDir('a');
    await change(a, 'Create x.md', () => writeFileAtomic(a, 'x.md', 'x one\n'));
    await change(a, 'Create y.md', () => writeFileAtomic(a, 'y.md', 'y one\n'));
    const first = (await bundleHistory(a, { dataDir }))!;
    await change(a, 'Rename x.md to z.md', () => renameConfined(a, 'x.md', 'z.md'));
    await change(a, 'Delete y.md', () => removeFileConfined(a, 'y.md'));
    await change(a, 'Edit z.md', () => writeFileAtomic(a, 'z.md', 'x two\n'));
    const second = (await bundleHistory(a, { dataDir }))!;
    const b = await memoryDir('b');
    await change(b, 'Create team/t.md', () => writeFileAtomic(b, 'team/t.md', 'base\n'));
    await transact(
      b,
      { source: 'sync', summary: 'Pull: merged team/t.md', dataDir, theirs: () => [{ path: 'team/t.md', content: 'base\ntheirs\n', from: 'Server version' }] },
      () => writeFileAtomic(b, 'team/t.md', 'base\nmine\ntheirs\n'),
    );
    await change(b, 'Edit team/t.md', () => writeFileAtomic(b, 'team/t.md', 'base\nmine\n'));
    const third = (await bundleHistory(b, { dataDir }))!;

    const target = await memoryDir('target');
    await change(target, 'Create own.md', () => writeFileAtomic(target, 'own.md', 'own\n'));
    for (const [name, bundle] of [
      ['20261205-100000-aaaa', first],
      ['20261205-110000-bbbb', second],
      ['20261205-120000-cccc', third],
    ] as const)
      await keepBundledHistory(target, bundle, name, { dataDir });

    // A history with two lines of changes merged (no Memdir makes one, a hand-made bundle may): its own walk decides its order.
    const repo = (await openShadowRepo(target, dataDir))!;
    const gitIn = (...args: string[]) => execFileSync('git', ['--git-dir', repo.gitDir, ...args], { encoding: 'utf8' }).trim();
    const tree = gitIn('rev-parse', 'HEAD^{tree}');
    const commit = (message: string, ...parents: string[]) =>
      gitIn('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message);
    const base = commit('base');
    const left = commit('left 2', commit('left 1', base));
    const right = commit('right 2', commit('right 1', base));
    gitIn('update-ref', 'refs/memdir/imports/20261205-130000-dddd', commit('merge', left, right));

    for (const limit of [undefined, 2, 4]) {
      const opts = { dataDir, ...(limit ? { limit } : {}) };
      const { result: listed, runs } = await countingGit(() => listImportedHistories(target, opts));
      expect(listed.map((h) => h.id).sort()).toEqual(['20261205-100000-aaaa', '20261205-110000-bbbb', '20261205-120000-cccc', '20261205-130000-dddd']);
      // Each import's entries exactly as its history alone lists them (the one path that lists a history).
      for (const h of listed) expect(h.entries).toEqual(await listHistory(target, { ...opts, from: h.rev }));
      expect(listed.find((h) => h.id.endsWith('cccc'))!.entries.map((e) => e.summary)).toEqual(
        ['Edit team/t.md', 'Pull: merged team/t.md', 'Server version: team/t.md', 'Create team/t.md'].slice(0, limit),
      );
      // One listing of the refs, one walk, one read of the entries, and the two-line history walked alone: not three more per import.
      expect(runs.length).toBeLessThanOrEqual(4);
    }
    // One file: followed through its rename along each history.
    const onlyZ = await listImportedHistories(target, { dataDir, file: 'z.md' });
    expect(onlyZ.map((h) => h.id)).toEqual(['20261205-110000-bbbb']);
    expect(onlyZ[0]!.entries).toEqual(await listHistory(target, { dataDir, file: 'z.md', from: onlyZ[0]!.rev }));
    expect(onlyZ[0]!.entries.map((e) => e.summary)).toEqual(['Edit z.md', 'Rename x.md to z.md', 'Create x.md']);
  });

  it('refuses a restore from an entry only undone imports hold, and allows it while an import that stands holds it too', async () => {
    const a = await memoryDir('a');
    await change(a, 'Create x.md', () => writeFileAtomic(a, 'x.md', 'x one\n'));
    const bundle = (await bundleHistory(a, { dataDir }))!;
    const target = await memoryDir('target');
    await change(target, 'Create own.md', () => writeFileAtomic(target, 'own.md', 'own\n'));
    const rev = await keepBundledHistory(target, bundle, '20261205-100000-aaaa', { dataDir });
    await keepBundledHistory(target, bundle, '20261205-110000-bbbb', { dataDir });
    await retireImportedHistory(target, '20261205-100000-aaaa', { dataDir });
    expect((await listImportedHistories(target, { dataDir })).map((h) => [h.id, h.undone]).sort()).toEqual([
      ['20261205-100000-aaaa', true],
      ['20261205-110000-bbbb', false],
    ]);
    // The other import of the same archive stands: its history restores.
    expect(await restoreFromHistory(target, rev, { dataDir, file: 'x.md' })).not.toBeNull();
    await fs.rm(path.join(target, 'x.md'));
    await retireImportedHistory(target, '20261205-110000-bbbb', { dataDir });
    await expect(restoreFromHistory(target, rev, { dataDir, file: 'x.md' })).rejects.toThrow(
      `${rev.slice(0, 10)} is in the history import 20261205-100000-aaaa brought in, and that import was undone (memdir merge undo): nothing was restored.`,
    );
    await expect(planRestore(target, rev, { dataDir })).rejects.toThrow('that import was undone');
    expect(await fs.readdir(target)).toEqual(['own.md']);
  });
});

// Session 41 (every way a secret leaves): the whole history — secrets edited out included — is
// written to a file while an export packs it. Not in the shared temporary folder where every
// local user may read it (`git bundle create` makes it 0644 there): in a folder only its owner opens.
describe('the history bundle while it is made', () => {
  it('is written in a folder of the temporary directory only its owner can open, and removed after', async () => {
    const dir = await memoryDir('private');
    await change(dir, 'Create x.md', () => writeFileAtomic(dir, 'x.md', 'x one\n'));
    const bin = path.join(tmp, 'bin-modes');
    const log = path.join(tmp, 'bundle-dirs.log');
    await fs.mkdir(bin, { recursive: true });
    const real = (process.env.PATH ?? '').split(path.delimiter).find((d) => d !== bin && existsSync(path.join(d, 'git')));
    // For `git bundle create -q FILE HEAD`: the folder the bundle is written in, and its mode.
    await fs.writeFile(
      path.join(bin, 'git'),
      [
        '#!/bin/sh',
        's=0',
        'for a in "$@"; do',
        `  if [ $s = 3 ]; then d=$(dirname "$a"); printf '%s %s\\n' "$d" "$(stat -c %a "$d")" >> '${log}'; s=4; fi`,
        '  if [ $s = 2 ] && [ "$a" = -q ]; then s=3; fi',
        '  if [ $s = 1 ] && [ "$a" = create ]; then s=2; fi',
        '  if [ $s = 0 ] && [ "$a" = bundle ]; then s=1; fi',
        'done',
        `exec '${path.join(real!, 'git')}' "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const before = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${before ?? ''}`;
    try {
      expect(await bundleHistory(dir, { dataDir })).not.toBeNull();
    } finally {
      process.env.PATH = before;
    }
    const [line, ...more] = (await fs.readFile(log, 'utf8')).split('\n').filter(Boolean);
    expect(more).toEqual([]);
    const [folder, mode] = line!.split(' ');
    expect(mode).toBe('700');
    expect(path.dirname(folder!)).toBe(os.tmpdir());
    expect(existsSync(folder!)).toBe(false);
  });
});
