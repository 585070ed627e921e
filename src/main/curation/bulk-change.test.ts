import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listHistory } from '../history/history.js';
import { bulkChange } from './bulk-change.js';
import { createMemory, type Where } from '../memdir/memory-service.js';
import { undoChange } from '../memdir/undo-change.js';

let root: string;
let where: Where;
let opts: { memoryDir: string; dataDir: string };
const read = (rel: string) => fs.readFile(path.join(where.memoryDir, rel), 'utf8');
const exists = (rel: string) =>
  fs.access(path.join(where.memoryDir, rel)).then(
    () => true,
    () => false,
  );

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bulk-'));
  where = { memoryDir: path.join(root, 'memory'), scope: 'private', dataDir: path.join(root, 'data') };
  await fs.mkdir(where.memoryDir);
  opts = { memoryDir: where.memoryDir, dataDir: where.dataDir! };
  for (const [name, type] of [
    ['Alpha', 'project'],
    ['Beta', 'reference'],
    ['Me', 'user'],
  ] as const) {
    await createMemory(where, { fields: { name, description: `about ${name}`, type }, body: `${name}\n` });
  }
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

/**
 * Runs `claudeCode` once, right after the `n`th of `files` is taken away by the real fs.unlink (wrapped,
 * the disk is real): Claude Code writing in the middle of a bulk change, inside it on every run.
 */
function afterNthRemoval(n: number, files: readonly string[], claudeCode: () => void): { done: () => boolean } {
  const realUnlink = fs.unlink.bind(fs);
  let done = false;
  let gone = 0;
  vi.spyOn(fs, 'unlink').mockImplementation(async (file) => {
    await realUnlink(file);
    if (done || !files.includes(path.basename(String(file))) || ++gone < n) return;
    done = true;
    claudeCode();
  });
  return { done: () => done };
}

describe('bulk curation', () => {
  it('deletes several memories as one entry; one undo brings back every file and pointer', async () => {
    const index = await read('MEMORY.md');
    const entriesBefore = (await listHistory(where.memoryDir, opts)).length;
    const result = await bulkChange(
      opts,
      [
        { scope: 'private', file: 'project_alpha.md' },
        { scope: 'private', file: 'reference_beta.md' },
      ],
      { kind: 'delete' },
    );
    expect(result.refused).toEqual([]);
    expect(result.entry).toMatchObject({ summary: 'Delete 2 memories', source: 'manual' });
    expect((await listHistory(where.memoryDir, opts)).length).toBe(entriesBefore + 1);
    expect(await read('MEMORY.md')).not.toContain('project_alpha.md');
    await undoChange({ ...opts, rev: result.entry!.rev });
    expect(await read('MEMORY.md')).toBe(index);
    expect(await read('project_alpha.md')).toContain('Alpha');
  });

  it('moves to the team what may go, refuses a user memory with its reason, and changes types in one entry', async () => {
    const moved = await bulkChange(
      opts,
      [
        { scope: 'private', file: 'project_alpha.md' },
        { scope: 'private', file: 'user_me.md' },
      ],
      { kind: 'move', to: 'team' },
    );
    expect(moved.done).toEqual([{ scope: 'private', file: 'project_alpha.md' }]);
    expect(moved.refused).toEqual([{ scope: 'private', file: 'user_me.md', reason: expect.stringContaining('always stays private') }]);
    expect(await exists('team/project_alpha.md')).toBe(true);
    expect(await read('team/MEMORY.md')).toContain('project_alpha.md');

    const typed = await bulkChange(
      opts,
      [
        { scope: 'team', file: 'project_alpha.md' },
        { scope: 'private', file: 'reference_beta.md' },
      ],
      { kind: 'set-type', type: 'feedback' },
    );
    expect(typed.entry).toMatchObject({ summary: 'Change the type of 2 memories to feedback' });
    expect(await read('team/project_alpha.md')).toContain('type: feedback');
    expect(await read('reference_beta.md')).toContain('type: feedback');
    await undoChange({ ...opts, rev: typed.entry!.rev });
    await undoChange({ ...opts, rev: moved.entry!.rev });
    expect(await read('project_alpha.md')).toContain('type: project');
    expect(await exists('team/project_alpha.md')).toBe(false);
    expect(await read('MEMORY.md')).toContain('project_alpha.md');
  });

  it('writes MEMORY.md once for a bulk change of many memories, not once per memory, and its one undo brings every pointer back', async () => {
    const files = Array.from({ length: 40 }, (_, i) => `project_note_${i}.md`);
    for (const [i, file] of files.entries())
      await fs.writeFile(path.join(where.memoryDir, file), `---\nname: Note ${i}\ndescription: note ${i}\ntype: project\n---\n${i}\n`);
    await fs.appendFile(path.join(where.memoryDir, 'MEMORY.md'), files.map((f, i) => `- [Note ${i}](${f}) — note ${i}\n`).join(''));
    const index = await read('MEMORY.md');
    // Every atomic write of MEMORY.md renames a new file onto it: the kernel says so, one event each.
    let indexWrites = 0;
    const watcher = (await import('node:fs')).watch(where.memoryDir, (event, name) => {
      if (event === 'rename' && name === 'MEMORY.md') indexWrites++;
    });
    try {
      const result = await bulkChange(
        opts,
        [...files, files[0]!].map((file) => ({ scope: 'private' as const, file })),
        { kind: 'delete' },
      );
      expect(result.refused).toEqual([]);
      // A memory named twice is deleted once, said once.
      expect(result.done).toHaveLength(40);
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      watcher.close();
    }
    // Was: 40 (read, parsed and written again, with its fsyncs, for each memory).
    expect(indexWrites).toBe(1);
    const after = await read('MEMORY.md');
    for (const file of files) expect(after).not.toContain(`(${file})`);
    expect(after).toContain('project_alpha.md');
    const [entry] = await listHistory(where.memoryDir, opts);
    expect(entry!.summary).toBe('Delete 40 memories');
    await undoChange({ ...opts, rev: entry!.rev });
    expect(await read('MEMORY.md')).toBe(index);
  });

  it('a type change reads each memory once, and fsyncs its folder once — after every memory is written, before MEMORY.md is', async () => {
    const files = Array.from({ length: 30 }, (_, i) => `project_note_${i}.md`);
    for (const [i, file] of files.entries())
      await fs.writeFile(path.join(where.memoryDir, file), `---\nname: Note ${i}\ndescription: note ${i}\ntype: project\n---\n${i}\n`);
    await fs.appendFile(path.join(where.memoryDir, 'MEMORY.md'), files.map((f, i) => `- [Note ${i}](${f}) — note ${i}\n`).join(''));
    const folder = fsSync.realpathSync(where.memoryDir);
    // What the writers ask of the disk, in order (observed, passed through): reads of the memories,
    // opens of the folder (its fsync: safe-fs opens a folder only to sync it), renames onto MEMORY.md and onto a memory.
    const reads = new Map<string, number>();
    const events: string[] = [];
    const readFile = fs.readFile.bind(fs);
    const open = fs.open.bind(fs);
    const rename = fs.rename.bind(fs);
    const unlink = fs.unlink.bind(fs);
    const spies = [
      vi.spyOn(fs, 'readFile').mockImplementation(((file: Parameters<typeof fs.readFile>[0], ...rest: unknown[]) => {
        const name = path.basename(String(file));
        if (files.includes(name)) reads.set(name, (reads.get(name) ?? 0) + 1);
        return (readFile as (...a: unknown[]) => unknown)(file, ...rest);
      }) as typeof fs.readFile),
      vi.spyOn(fs, 'open').mockImplementation(((file: Parameters<typeof fs.open>[0], ...rest: unknown[]) => {
        if (String(file) === folder) events.push('sync folder');
        return (open as (...a: unknown[]) => unknown)(file, ...rest);
      }) as typeof fs.open),
      vi.spyOn(fs, 'unlink').mockImplementation(((file: string) => {
        if (path.dirname(String(file)) === folder) events.push('remove memory');
        return unlink(file);
      }) as typeof fs.unlink),
      vi.spyOn(fs, 'rename').mockImplementation(((from: string, to: string) => {
        const name = path.basename(String(to));
        if (path.dirname(String(to)) === folder) events.push(name === 'MEMORY.md' ? 'write index' : 'write memory');
        return rename(from, to);
      }) as typeof fs.rename),
    ];
    let result;
    let typeEvents: string[] | undefined;
    try {
      result = await bulkChange(
        opts,
        files.map((file) => ({ scope: 'private' as const, file })),
        { kind: 'set-type', type: 'reference' },
      );
      typeEvents = events.splice(0);
      // A delete: the folder synced once after the last file went, and only then MEMORY.md written without their pointers.
      const deleted = await bulkChange(
        opts,
        files.slice(0, 10).map((file) => ({ scope: 'private' as const, file })),
        { kind: 'delete' },
      );
      expect(deleted.done).toHaveLength(10);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(result.refused).toEqual([]);
    expect(result.done).toHaveLength(30);
    // Was: 2 each (the bulk change read and parsed it, then the edit read and parsed it again).
    expect([...new Set(reads.values())]).toEqual([1]);
    expect(reads.size).toBe(30);
    // Was: a folder sync after each memory (30). Now one, after the last memory is written (a type change leaves MEMORY.md as it is).
    expect(typeEvents!.filter((e) => e === 'write memory')).toHaveLength(30);
    expect(typeEvents!.filter((e) => e === 'sync folder')).toHaveLength(1);
    expect(typeEvents!.at(-1)).toBe('sync folder');
    // Was: remove, sync, remove, sync … write index, sync.
    expect(events).toEqual([...Array.from({ length: 10 }, () => 'remove memory'), 'sync folder', 'write index', 'sync folder']);
    expect(await read(files[12]!)).toContain('type: reference');
    const [deleteEntry, typeEntry] = await listHistory(where.memoryDir, opts);
    expect([deleteEntry!.summary, typeEntry!.summary]).toEqual(['Delete 10 memories', 'Change the type of 30 memories to reference']);
  });

  it('keeps a pointer Claude Code adds to MEMORY.md while a long bulk change runs: the change’s own index edits are merged onto it, not written over it', async () => {
    const files = Array.from({ length: 120 }, (_, i) => `project_note_${i}.md`);
    for (const [i, file] of files.entries())
      await fs.writeFile(path.join(where.memoryDir, file), `---\nname: Note ${i}\ndescription: note ${i}\ntype: project\n---\n${i}\n`);
    await fs.appendFile(path.join(where.memoryDir, 'MEMORY.md'), files.map((f, i) => `- [Note ${i}](${f}) — note ${i}\n`).join(''));
    await fs.writeFile(path.join(where.memoryDir, 'feedback_new.md'), '---\nname: New\ndescription: written by Claude Code\ntype: feedback\n---\nNew.\n');
    const added = '- [New](feedback_new.md) — written by Claude Code mid-change\n';
    // Claude Code saves a memory half-way through the bulk change (as it takes its 60th memory away): its pointer is appended at once.
    const claude = afterNthRemoval(60, files, () => fsSync.appendFileSync(path.join(where.memoryDir, 'MEMORY.md'), added));
    const result = await bulkChange(
      opts,
      files.map((file) => ({ scope: 'private' as const, file })),
      { kind: 'delete' },
    );
    expect(result.done).toHaveLength(120);
    expect(claude.done()).toBe(true);
    const after = await read('MEMORY.md');
    // Before: the change wrote the index as it read it at its start, minus its 120 pointers — Claude Code's line was gone.
    expect(after).toContain(added);
    for (const file of files) expect(after).not.toContain(`(${file})`);
    expect(after).toContain('project_alpha.md');
  });

  it('does not take Claude Code’s memory or its pointer away when a long bulk change it was saved during is undone: the change’s entry holds only what the change wrote', async () => {
    const files = Array.from({ length: 120 }, (_, i) => `project_note_${i}.md`);
    for (const [i, file] of files.entries())
      await fs.writeFile(path.join(where.memoryDir, file), `---\nname: Note ${i}\ndescription: note ${i}\ntype: project\n---\n${i}\n`);
    await fs.appendFile(path.join(where.memoryDir, 'MEMORY.md'), files.map((f, i) => `- [Note ${i}](${f}) — note ${i}\n`).join(''));
    const theirs = '---\nname: New\ndescription: written by Claude Code\ntype: feedback\n---\nNew.\n';
    const pointer = '- [New](feedback_new.md) — written by Claude Code mid-change\n';
    // Claude Code saves a memory half-way through the bulk change (as it takes its 60th memory away), and its pointer.
    const claude = afterNthRemoval(60, files, () => {
      fsSync.writeFileSync(path.join(where.memoryDir, 'feedback_new.md'), theirs);
      fsSync.appendFileSync(path.join(where.memoryDir, 'MEMORY.md'), pointer);
    });
    const result = await bulkChange(
      opts,
      files.map((file) => ({ scope: 'private' as const, file })),
      { kind: 'delete' },
    );
    expect(result.done).toHaveLength(120);
    const rev = result.entry!.rev;
    expect(claude.done()).toBe(true);
    expect(await read('MEMORY.md')).toContain(pointer);
    // Was: the change's entry held feedback_new.md as one of the files it added, and Claude Code's pointer as one of its index lines.
    const [change, meanwhile] = await listHistory(where.memoryDir, opts);
    expect(change).toMatchObject({ rev, summary: 'Delete 120 memories', source: 'manual' });
    expect(change!.files.map((f) => f.path)).not.toContain('feedback_new.md');
    expect(meanwhile).toMatchObject({ source: 'external', summary: 'Changes made outside Memdir' });
    expect(meanwhile!.files.map((f) => [f.path, f.status]).sort()).toEqual([
      ['MEMORY.md', 'modified'],
      ['feedback_new.md', 'added'],
    ]);

    // Was: the undo took Claude Code's memory away with the change ("added by the entry, unchanged since").
    await undoChange({ ...opts, rev });
    expect(await read('feedback_new.md')).toBe(theirs);
    for (const file of files) expect(await exists(file)).toBe(true);
    const index = await read('MEMORY.md');
    expect(index).toContain(pointer);
    for (const file of files) expect(index).toContain(`(${file})`);
  });
});
