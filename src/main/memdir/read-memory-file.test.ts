import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemdirError } from '../../shared/errors.js';
import { readMemoryFile } from './read-memory-file.js';
import { canChangePermissions } from './test-support/fixture-home.js';

// The one way the app and `memdir show` read a memory file, on real files: what is read, and
// what is refused with which code (the code decides what the app and the CLI say).
let root: string;
let memory: string;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-read-file-'));
  memory = path.join(root, 'memory');
  await fs.mkdir(path.join(memory, 'retros'), { recursive: true });
  await fs.mkdir(path.join(root, 'outside'));
  await fs.writeFile(path.join(root, 'outside', 'secret.md'), 'SECRET\n');
});
afterAll(async () => {
  if (canChangePermissions) await fs.chmod(path.join(memory, 'locked.md'), 0o644).catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

/** What a read throws: its code and message. */
async function refusal(file: string, opts?: { maxBytes?: number }): Promise<{ code: string; message: string }> {
  try {
    await readMemoryFile(memory, file, opts);
  } catch (error) {
    expect(error).toBeInstanceOf(MemdirError);
    return { code: (error as MemdirError).code, message: (error as MemdirError).message };
  }
  throw new Error(`${file} was read`);
}

describe('readMemoryFile', () => {
  it('reads a plain memory with its stat facts', async () => {
    await fs.writeFile(path.join(memory, 'user_role.md'), '---\nname: Role\n---\nA maintainer.\n');
    const read = await readMemoryFile(memory, 'user_role.md');
    expect(read.text).toBe('---\nname: Role\n---\nA maintainer.\n');
    expect(read.facts.size).toBe(Buffer.byteLength(read.text));
    expect(read.facts.mtimeMs).toBe((await fs.stat(path.join(memory, 'user_role.md'))).mtimeMs);
  });

  it('keeps CRLF line ends, a BOM and Chinese text exactly as written', async () => {
    const text = '\uFEFF---\r\nname: 记忆\r\n---\r\n用户喜欢简短的回答。\r\n';
    await fs.writeFile(path.join(memory, 'zh.md'), text);
    expect((await readMemoryFile(memory, 'zh.md')).text).toBe(text);
  });

  it('reads a file in a subfolder', async () => {
    await fs.writeFile(path.join(memory, 'retros', 'r1.md'), 'Retro.\n');
    expect((await readMemoryFile(memory, 'retros/r1.md')).text).toBe('Retro.\n');
  });

  it('reads a link that stays inside the memory directory', async () => {
    await fs.writeFile(path.join(memory, 'target.md'), 'Linked.\n');
    await fs.symlink('target.md', path.join(memory, 'alias.md'));
    await fs.symlink('../target.md', path.join(memory, 'retros', 'up.md'));
    expect((await readMemoryFile(memory, 'alias.md')).text).toBe('Linked.\n');
    expect((await readMemoryFile(memory, 'retros/up.md')).text).toBe('Linked.\n');
  });

  it('refuses a link leading outside, and a path through a linked folder, as unsafe-path', async () => {
    await fs.symlink(path.join(root, 'outside', 'secret.md'), path.join(memory, 'leak.md'));
    await fs.symlink(path.join(root, 'outside'), path.join(memory, 'linked'));
    const leak = await refusal('leak.md');
    expect(leak).toEqual({
      code: 'unsafe-path',
      message: 'leak.md cannot be opened: it is a symbolic link that leads outside the memory directory, so Memdir does not follow it; Claude Code does.',
    });
    expect(await refusal('linked/secret.md')).toMatchObject({ code: 'unsafe-path', message: expect.stringContaining('linked is a symbolic link') });
    expect(await refusal('../outside/secret.md')).toMatchObject({ code: 'unsafe-path', message: expect.stringContaining('outside the memory directory') });
    expect(leak.message + (await refusal('linked/secret.md')).message).not.toContain('SECRET');
  });

  it('refuses a directory named x.md, invalid UTF-8, a binary file and one too large as invalid-file', async () => {
    await fs.mkdir(path.join(memory, 'folder.md'));
    await fs.writeFile(path.join(memory, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await fs.writeFile(path.join(memory, 'binary.md'), Buffer.from([0x61, 0x00, 0x62]));
    await fs.writeFile(path.join(memory, 'big.md'), 'x'.repeat(2000));
    expect(await refusal('folder.md')).toEqual({ code: 'invalid-file', message: 'folder.md cannot be opened: it is a directory, not a file.' });
    expect(await refusal('latin1.md')).toEqual({
      code: 'invalid-file',
      message: 'latin1.md cannot be opened: it is not valid UTF-8 text (saved in another encoding?).',
    });
    expect(await refusal('binary.md')).toMatchObject({ code: 'invalid-file', message: expect.stringContaining('binary') });
    expect(await refusal('big.md', { maxBytes: 1000 })).toMatchObject({ code: 'invalid-file', message: expect.stringContaining('too large for a memory') });
  });

  it('reads an index larger than a memory may be, up to the index limit', async () => {
    const index = `${'- [A](a.md) — a pointer\n'.repeat(60_000)}`;
    expect(Buffer.byteLength(index)).toBeGreaterThan(1_000_000);
    await fs.writeFile(path.join(memory, 'MEMORY.md'), index);
    await fs.writeFile(path.join(memory, 'huge.md'), index);
    expect((await readMemoryFile(memory, 'MEMORY.md')).text).toBe(index);
    expect(await refusal('huge.md')).toMatchObject({ code: 'invalid-file' });
  });

  it('says not-found for a missing file, a missing folder, a missing memory dir and a link to nothing', async () => {
    await fs.symlink('gone.md', path.join(memory, 'dangling.md'));
    const missing = { code: 'not-found', message: 'nope.md no longer exists; it may have been deleted or renamed outside Memdir.' };
    expect(await refusal('nope.md')).toEqual(missing);
    expect(await refusal('no-folder/x.md')).toMatchObject({ code: 'not-found' });
    expect(await refusal('user_role.md/x.md')).toMatchObject({ code: 'not-found' });
    expect(await refusal('dangling.md')).toMatchObject({ code: 'not-found' });
    await expect(readMemoryFile(path.join(root, 'no-memory'), 'MEMORY.md')).rejects.toMatchObject({ code: 'not-found' });
  });

  it.runIf(canChangePermissions)('says permission-denied for a file Memdir may not read', async () => {
    await fs.writeFile(path.join(memory, 'locked.md'), 'Locked.\n');
    await fs.chmod(path.join(memory, 'locked.md'), 0o000);
    expect(await refusal('locked.md')).toEqual({ code: 'permission-denied', message: 'locked.md cannot be opened: Memdir has no permission to read it.' });
  });
});
