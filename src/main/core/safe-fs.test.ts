import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupTempFiles, removeFileConfined, renameConfined, writeFileAtomic } from './safe-fs.js';
import { MemoryFileError, resolveInside, UnsafePathError } from './confined-path.js';

const isRoot = process.getuid?.() === 0;

let tmp: string;
let root: string;
let outside: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-safe-fs-')));
  root = path.join(tmp, 'memory');
  outside = path.join(tmp, 'outside');
  await fs.mkdir(root);
  await fs.mkdir(outside);
});

afterEach(async () => {
  await fs.chmod(root, 0o755).catch(() => undefined);
  await fs.rm(tmp, { recursive: true, force: true });
});

async function listAll(dir: string): Promise<string[]> {
  return (await fs.readdir(dir, { recursive: true })).map(String).sort();
}

async function refusal(promise: Promise<unknown>): Promise<UnsafePathError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnsafePathError);
  return err as UnsafePathError;
}

describe('confinement', () => {
  it.each([
    ['../x.md', 'outside'],
    ['team/../../x.md', 'outside'],
    ['/etc/passwd', 'outside'],
    ['C:/x.md', 'outside'],
    ['a\0b.md', 'invalid'],
    ['team\\x.md', 'invalid'],
    ['', 'invalid'],
    ['team/..', 'invalid'],
  ])('refuses %j (%s) and writes nothing', async (rel, reason) => {
    const err = await refusal(writeFileAtomic(root, rel, 'x'));
    expect(err.reason).toBe(reason);
    expect(err.message).toMatch(/^Refused to write /);
    expect(await listAll(root)).toEqual([]);
    expect(await listAll(outside)).toEqual([]);
  });

  it('names the path and the memory dir when a path leaves it', async () => {
    const err = await refusal(writeFileAtomic(root, '../outside/x.md', 'x'));
    expect(err.message).toBe(`Refused to write ../outside/x.md: it resolves outside the memory directory ${root}`);
  });

  it('refuses a folder symlink that leads outside, leaving the outside untouched', async () => {
    await fs.symlink(outside, path.join(root, 'team'));
    const err = await refusal(writeFileAtomic(root, 'team/x.md', 'x'));
    expect(err.reason).toBe('symlink');
    expect(err.message).toContain('team is a symbolic link');
    expect(await listAll(outside)).toEqual([]);
  });

  it('refuses a file symlink even when it points inside', async () => {
    await fs.writeFile(path.join(root, 'real.md'), 'real');
    await fs.symlink('real.md', path.join(root, 'alias.md'));
    expect((await refusal(writeFileAtomic(root, 'alias.md', 'changed'))).reason).toBe('symlink');
    expect((await refusal(removeFileConfined(root, 'alias.md'))).reason).toBe('symlink');
    expect(await fs.readFile(path.join(root, 'real.md'), 'utf8')).toBe('real');
    expect((await fs.lstat(path.join(root, 'alias.md'))).isSymbolicLink()).toBe(true);
  });

  it('accepts a memory dir that is itself a symlink and resolves under its real path', async () => {
    const linked = path.join(tmp, 'linked-memory');
    await fs.symlink(root, linked);
    await writeFileAtomic(linked, 'team/x.md', 'hello');
    expect(await fs.readFile(path.join(root, 'team', 'x.md'), 'utf8')).toBe('hello');
    expect(await resolveInside(linked, 'team/x.md')).toBe(path.join(root, 'team', 'x.md'));
  });

  it('never resolves a path outside the memory dir, whatever the input', async () => {
    const piece = fc.constantFrom('a', 'b.md', '..', '.', '', '/', '\\', '\0', 'team');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 6 }), async (pieces) => {
        const rel = pieces.join('/');
        const resolved = await resolveInside(root, rel).catch((err: unknown) => {
          if (err instanceof UnsafePathError || err instanceof MemoryFileError) return null;
          throw err;
        });
        if (resolved !== null) expect(resolved.startsWith(root + path.sep)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('writeFileAtomic', () => {
  it('creates missing folders and leaves no temp file behind', async () => {
    await writeFileAtomic(root, 'team/notes/x.md', '# 你好\n');
    expect(await fs.readFile(path.join(root, 'team/notes/x.md'), 'utf8')).toBe('# 你好\n');
    expect(await listAll(root)).toEqual(['team', 'team/notes', 'team/notes/x.md']);
  });

  it('refuses to replace a folder named like a memory', async () => {
    await fs.mkdir(path.join(root, 'x.md'));
    const err = await writeFileAtomic(root, 'x.md', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryFileError);
    expect((err as MemoryFileError).reason).toBe('not-a-file');
    expect((err as Error).message).toBe('Cannot write x.md: it exists and is a folder; Memdir only replaces regular files');
    expect((await fs.stat(path.join(root, 'x.md'))).isDirectory()).toBe(true);
  });

  it('keeps the mode of a file it replaces, and applies a given mode to a new one', async () => {
    const file = path.join(root, 'private.md');
    await fs.writeFile(file, 'old');
    await fs.chmod(file, 0o600);
    await writeFileAtomic(root, 'private.md', 'new');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(file, 'utf8')).toBe('new');

    await writeFileAtomic(root, 'shared.md', 'x', { mode: 0o640 });
    expect((await fs.stat(path.join(root, 'shared.md'))).mode & 0o777).toBe(0o640);
  });

  it('writes bytes as given', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a]);
    await writeFileAtomic(root, 'bom.md', bytes);
    expect(new Uint8Array(await fs.readFile(path.join(root, 'bom.md')))).toEqual(bytes);
  });

  it('with `within`, refuses a root reached through a link, or outside that folder, at the write — nothing made there (review x4 F2)', async () => {
    // The link appears after any check a caller made: the write itself looks again.
    await fs.symlink(outside, path.join(root, 'link'));
    const through = await refusal(writeFileAtomic(path.join(root, 'link', '.claude', 'agent'), 'x.md', 'x', { within: root }));
    expect(through.message).toBe(`Refused to write x.md: ${path.join(root, 'link')} is a symbolic link, and Memdir never writes through a link`);
    expect(await listAll(outside)).toEqual([]);
    const away = await refusal(writeFileAtomic(path.join(outside, 'agent'), 'x.md', 'x', { within: root }));
    expect(away.reason).toBe('outside');
    expect(await listAll(outside)).toEqual([]);
    await writeFileAtomic(path.join(root, 'app', '.claude', 'agent'), 'x.md', 'x', { within: root });
    expect(await fs.readFile(path.join(root, 'app', '.claude', 'agent', 'x.md'), 'utf8')).toBe('x');
  });

  it.skipIf(isRoot)('explains a read-only folder instead of failing obscurely (skipped as root: root ignores permission bits)', async () => {
    await fs.chmod(root, 0o555);
    const err = await writeFileAtomic(root, 'x.md', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryFileError);
    expect((err as MemoryFileError).reason).toBe('permission');
    expect((err as Error).message).toBe(`Cannot write x.md: permission denied in ${root}`);
  });
});

describe('removeFileConfined and renameConfined', () => {
  it('removes a file, and says so when it is already gone', async () => {
    await writeFileAtomic(root, 'x.md', 'x');
    await removeFileConfined(root, 'x.md');
    expect(await listAll(root)).toEqual([]);
    const err = await removeFileConfined(root, 'x.md').catch((e: unknown) => e);
    expect((err as MemoryFileError).reason).toBe('missing');
    expect((err as Error).message).toBe('Cannot delete x.md: it does not exist');
  });

  it('renames into a new folder and never overwrites', async () => {
    await writeFileAtomic(root, 'a.md', 'A');
    await writeFileAtomic(root, 'b.md', 'B');
    const err = await renameConfined(root, 'a.md', 'b.md').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryFileError);
    expect((err as MemoryFileError).reason).toBe('exists');
    expect((err as Error).message).toBe('Cannot rename a.md to b.md: b.md already exists');
    expect(await fs.readFile(path.join(root, 'b.md'), 'utf8')).toBe('B');

    await renameConfined(root, 'a.md', 'team/a.md');
    expect(await listAll(root)).toEqual(['b.md', 'team', 'team/a.md']);
    expect(await fs.readFile(path.join(root, 'team/a.md'), 'utf8')).toBe('A');
  });

  it('refuses to rename out of the memory dir', async () => {
    await writeFileAtomic(root, 'a.md', 'A');
    expect((await refusal(renameConfined(root, 'a.md', '../outside/a.md'))).reason).toBe('outside');
    expect(await listAll(outside)).toEqual([]);
  });
});

describe('cleanupTempFiles', () => {
  it('removes temp files a killed writer left, and nothing else', async () => {
    await fs.mkdir(path.join(root, 'team'));
    await fs.writeFile(path.join(root, '.memdir-tmp-abc'), 'partial');
    await fs.writeFile(path.join(root, 'team', '.memdir-tmp-def'), 'partial');
    await fs.writeFile(path.join(root, '.consolidate-lock'), '');
    await fs.writeFile(path.join(root, 'x.md'), 'x');
    expect((await cleanupTempFiles(root)).sort()).toEqual(['.memdir-tmp-abc', 'team/.memdir-tmp-def']);
    expect(await listAll(root)).toEqual(['.consolidate-lock', 'team', 'x.md']);
  });
});
