/**
 * A writer of MEMORY.md reads it, edits it and writes it back inside one change. Claude Code may
 * append a pointer (to a memory it just saved) between that read and that write: the pointer must
 * stay on disk, be recorded as Claude Code's own (`external`) entry, and survive the change's Undo.
 * Claude Code's write is made deterministically from inside the change: right after the writer's
 * read of MEMORY.md returns (a wrapper around the real `fs.readFile`; the disk is real).
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listHistory, transact } from '../history/history.js';
import { writeFileAtomic } from '../core/safe-fs.js';
import { createMemory, deleteMemory, saveIndexText, updateMemory, type Where } from './memory-service.js';
import { undoChange } from './undo-change.js';

let root: string;
let where: Where;
let opts: { memoryDir: string; dataDir: string };
const read = (rel: string) => fs.readFile(path.join(where.memoryDir, rel), 'utf8');
const theirs = '---\nname: New\ndescription: written by Claude Code\ntype: feedback\n---\nNew.\n';
const pointer = '- [New](feedback_new.md) — written by Claude Code mid-change\n';

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-index-window-'));
  where = { memoryDir: path.join(root, 'memory'), scope: 'private', dataDir: path.join(root, 'data') };
  await fs.mkdir(where.memoryDir);
  opts = { memoryDir: where.memoryDir, dataDir: where.dataDir! };
  for (const [name, type] of [
    ['Alpha', 'project'],
    ['Beta', 'reference'],
  ] as const)
    await createMemory(where, { fields: { name, description: `about ${name}`, type }, body: `${name}\n` });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

/** Claude Code saves a memory and appends its pointer right after the first read of MEMORY.md for which `when()` holds. */
function claudeCodeAppendsAfterIndexRead(when: () => boolean): { saved: () => boolean } {
  const index = path.join(where.memoryDir, 'MEMORY.md');
  const realRead = fs.readFile.bind(fs);
  let saved = false;
  vi.spyOn(fs, 'readFile').mockImplementation((async (file: Parameters<typeof fs.readFile>[0], options?: Parameters<typeof fs.readFile>[1]) => {
    const result = await realRead(file, options);
    if (!saved && typeof file === 'string' && path.resolve(file) === index && when()) {
      saved = true;
      fsSync.writeFileSync(path.join(where.memoryDir, 'feedback_new.md'), theirs);
      fsSync.appendFileSync(index, pointer);
    }
    return result;
  }) as typeof fs.readFile);
  return { saved: () => saved };
}

/** The change's entry is the newest; Claude Code's memory and pointer are the `external` entry right before it. */
async function expectClaudeCodesOwnEntryBefore(rev: string): Promise<void> {
  const [change, meanwhile] = await listHistory(where.memoryDir, opts);
  expect(change!.rev).toBe(rev);
  expect(change!.files.map((f) => f.path)).not.toContain('feedback_new.md');
  expect(meanwhile).toMatchObject({ source: 'external', summary: 'Changes made outside Memdir' });
  expect(meanwhile!.files.map((f) => [f.path, f.status]).sort()).toEqual([
    ['MEMORY.md', 'modified'],
    ['feedback_new.md', 'added'],
  ]);
}

async function expectUndoKeepsClaudeCodes(rev: string): Promise<string> {
  await undoChange({ ...opts, rev });
  expect(await read('feedback_new.md')).toBe(theirs);
  const index = await read('MEMORY.md');
  expect(index).toContain(pointer);
  return index;
}

describe('a pointer Claude Code appends to MEMORY.md between a change’s read of it and its write', () => {
  it('creating a memory: the pointer stays, is Claude Code’s own entry, and the create’s Undo keeps it and its memory', async () => {
    const claude = claudeCodeAppendsAfterIndexRead(() => fsSync.existsSync(path.join(where.memoryDir, 'project_gamma.md')));
    const { entry } = await createMemory(where, { fields: { name: 'Gamma', description: 'about Gamma', type: 'project' }, body: 'Gamma\n' });
    expect(claude.saved()).toBe(true);
    const index = await read('MEMORY.md');
    expect(index).toContain(pointer);
    expect(index).toContain('(project_gamma.md)');
    expect(index.split(pointer)).toHaveLength(2);
    await expectClaudeCodesOwnEntryBefore(entry!.rev);
    const after = await expectUndoKeepsClaudeCodes(entry!.rev);
    expect(after).not.toContain('project_gamma.md');
    expect(after).toContain('(project_alpha.md)');
  });

  it('deleting a memory: the pointer stays and the delete’s Undo brings the memory back beside it', async () => {
    const claude = claudeCodeAppendsAfterIndexRead(() => !fsSync.existsSync(path.join(where.memoryDir, 'reference_beta.md')));
    const { entry } = await deleteMemory(where, 'reference_beta.md');
    expect(claude.saved()).toBe(true);
    expect(await read('MEMORY.md')).not.toContain('reference_beta.md');
    await expectClaudeCodesOwnEntryBefore(entry!.rev);
    const after = await expectUndoKeepsClaudeCodes(entry!.rev);
    expect(after).toContain('(reference_beta.md)');
    expect(await read('reference_beta.md')).toContain('Beta');
  });

  it('editing a memory’s pointer: the edit lands beside Claude Code’s pointer and its Undo keeps the pointer', async () => {
    const before = await read('project_alpha.md');
    const claude = claudeCodeAppendsAfterIndexRead(() => true);
    const { entry } = await updateMemory(where, {
      file: 'project_alpha.md',
      fields: { name: 'Alpha', description: 'about Alpha, renamed hook', type: 'project' },
      body: 'Alpha\n',
      baseText: before,
      hook: 'the new hook',
    });
    expect(claude.saved()).toBe(true);
    const index = await read('MEMORY.md');
    expect(index).toContain('the new hook');
    expect(index).toContain(pointer);
    await expectClaudeCodesOwnEntryBefore(entry!.rev);
    const after = await expectUndoKeepsClaudeCodes(entry!.rev);
    expect(after).not.toContain('the new hook');
  });

  it('saving the MEMORY.md editor: Claude Code’s pointer is merged in, not written over, and the save’s Undo keeps it', async () => {
    const base = await read('MEMORY.md');
    const claude = claudeCodeAppendsAfterIndexRead(() => true);
    const { entry } = await saveIndexText(where, `# My memories\n${base}`, base);
    expect(claude.saved()).toBe(true);
    const index = await read('MEMORY.md');
    expect(index.startsWith('# My memories\n')).toBe(true);
    expect(index).toContain(pointer);
    await expectClaudeCodesOwnEntryBefore(entry!.rev);
    const after = await expectUndoKeepsClaudeCodes(entry!.rev);
    expect(after).not.toContain('# My memories');
  });

  it('any writer, its index handed over as bytes (a restore, a relink): Claude Code’s pointer is merged in and kept by the Undo', async () => {
    const claude = claudeCodeAppendsAfterIndexRead(() => true);
    const { entry } = await transact(where.memoryDir, { source: 'relink', summary: 'Bring an index over', dataDir: opts.dataDir }, async () => {
      const read = await fs.readFile(path.join(where.memoryDir, 'MEMORY.md'), 'utf8');
      await writeFileAtomic(where.memoryDir, 'MEMORY.md', Buffer.from(`${read}- [Brought](project_brought.md) — brought over\n`));
    });
    expect(claude.saved()).toBe(true);
    const index = await read('MEMORY.md');
    expect(index).toContain(pointer);
    expect(index).toContain('(project_brought.md)');
    await expectClaudeCodesOwnEntryBefore(entry!.rev);
    const after = await expectUndoKeepsClaudeCodes(entry!.rev);
    expect(after).not.toContain('project_brought.md');
  });

  // The change knows the index without git when it has not moved since the change began
  // (history.ts indexStamps): a write its stat alone could miss must still be caught.
  for (const secondsAgo of [60, 0]) {
    it(`Claude Code rewrites MEMORY.md in place, same size, its mtime put back (index written ${secondsAgo === 0 ? 'this very second' : 'a minute ago'}): its line stays, in its own entry`, async () => {
      const index = path.join(where.memoryDir, 'MEMORY.md');
      const stamp = new Date(Date.now() - secondsAgo * 1000);
      await fs.utimes(index, stamp, stamp);
      const realRead = fs.readFile.bind(fs);
      let saved = false;
      vi.spyOn(fs, 'readFile').mockImplementation((async (file: Parameters<typeof fs.readFile>[0], options?: Parameters<typeof fs.readFile>[1]) => {
        const result = await realRead(file, options);
        if (!saved && typeof file === 'string' && path.resolve(file) === index && fsSync.existsSync(path.join(where.memoryDir, 'project_gamma.md'))) {
          saved = true;
          const before = fsSync.statSync(index);
          const text = fsSync.readFileSync(index, 'utf8');
          const fd = fsSync.openSync(index, 'r+');
          fsSync.writeSync(fd, text.replace('about Beta', 'ABOUT BETA'), 0, 'utf8');
          fsSync.closeSync(fd);
          fsSync.utimesSync(index, before.atime, before.mtime);
        }
        return result;
      }) as typeof fs.readFile);
      const { entry } = await createMemory(where, { fields: { name: 'Gamma', description: 'about Gamma', type: 'project' }, body: 'Gamma\n' });
      expect(saved).toBe(true);
      const after = await read('MEMORY.md');
      expect(after).toContain('ABOUT BETA');
      expect(after).toContain('(project_gamma.md)');
      // With its mtime put back a minute ago, git's own stat cache cannot see the rewrite either
      // (its status calls it unchanged), so it is kept inside the change's entry — as before.
      if (secondsAgo !== 0) return;
      const [change, meanwhile] = await listHistory(where.memoryDir, opts);
      expect(change!.rev).toBe(entry!.rev);
      expect(meanwhile).toMatchObject({ source: 'external' });
      expect(meanwhile!.files.map((f) => [f.path, f.status])).toEqual([['MEMORY.md', 'modified']]);
      await undoChange({ ...opts, rev: entry!.rev });
      expect(await read('MEMORY.md')).toContain('ABOUT BETA');
      expect(await read('MEMORY.md')).not.toContain('project_gamma.md');
    });
  }

  it('a change that writes both indexes: Claude Code’s pointers in MEMORY.md and team/MEMORY.md both stay (review s42: the second index was written over)', async () => {
    await fs.mkdir(path.join(where.memoryDir, 'team'));
    await fs.writeFile(path.join(where.memoryDir, 'team', 'MEMORY.md'), '- [Shared](shared.md) — a team memory\n');
    await fs.writeFile(path.join(where.memoryDir, 'team', 'shared.md'), '---\nname: Shared\ndescription: a team memory\ntype: project\n---\nShared.\n');
    const teamPointer = '- [Team new](team_new.md) — written by Claude Code mid-change\n';
    const { entry } = await transact(where.memoryDir, { source: 'manual', summary: 'Write both indexes', dataDir: opts.dataDir }, async () => {
      const mine = await fs.readFile(path.join(where.memoryDir, 'MEMORY.md'), 'utf8');
      const team = await fs.readFile(path.join(where.memoryDir, 'team', 'MEMORY.md'), 'utf8');
      // Claude Code saves one memory in each scope after the change read both indexes.
      fsSync.writeFileSync(path.join(where.memoryDir, 'feedback_new.md'), theirs);
      fsSync.appendFileSync(path.join(where.memoryDir, 'MEMORY.md'), pointer);
      fsSync.appendFileSync(path.join(where.memoryDir, 'team', 'MEMORY.md'), teamPointer);
      await writeFileAtomic(where.memoryDir, 'team/MEMORY.md', `${team}- [Team mine](team_mine.md) — the change's\n`);
      await writeFileAtomic(where.memoryDir, 'MEMORY.md', `${mine}- [Mine](project_mine.md) — the change's\n`);
    });
    const index = await read('MEMORY.md');
    const team = await read('team/MEMORY.md');
    expect(index).toContain(pointer);
    expect(index).toContain('(project_mine.md)');
    expect(team).toContain(teamPointer);
    expect(team).toContain('(team_mine.md)');
    const [change] = await listHistory(where.memoryDir, opts);
    expect(change!.rev).toBe(entry!.rev);
    await undoChange({ ...opts, rev: entry!.rev });
    expect(await read('MEMORY.md')).toContain(pointer);
    expect(await read('team/MEMORY.md')).toContain(teamPointer);
    expect(await read('MEMORY.md')).not.toContain('project_mine.md');
  });

  it('a change that writes MEMORY.md twice, then the team index it read first: Claude Code’s team pointer stays (review s43: the save path’s lazy “began” was taken after Claude Code’s writes were recorded)', async () => {
    await fs.mkdir(path.join(where.memoryDir, 'team'));
    await fs.writeFile(path.join(where.memoryDir, 'team', 'MEMORY.md'), '- [Shared](shared.md) — a team memory\n');
    await fs.writeFile(path.join(where.memoryDir, 'team', 'shared.md'), '---\nname: Shared\ndescription: a team memory\ntype: project\n---\nShared.\n');
    const teamPointer = '- [Team new](team_new.md) — written by Claude Code mid-change\n';
    await transact(where.memoryDir, { source: 'manual', summary: 'Write MEMORY.md twice, then the team index', dataDir: opts.dataDir }, async () => {
      const mine = await fs.readFile(path.join(where.memoryDir, 'MEMORY.md'), 'utf8');
      const team = await fs.readFile(path.join(where.memoryDir, 'team', 'MEMORY.md'), 'utf8');
      await writeFileAtomic(where.memoryDir, 'MEMORY.md', `${mine}- [One](project_one.md) — the change's first\n`);
      // Claude Code saves one memory in each scope between the change's two writes of MEMORY.md.
      fsSync.writeFileSync(path.join(where.memoryDir, 'feedback_new.md'), theirs);
      fsSync.appendFileSync(path.join(where.memoryDir, 'MEMORY.md'), pointer);
      fsSync.appendFileSync(path.join(where.memoryDir, 'team', 'MEMORY.md'), teamPointer);
      await writeFileAtomic(where.memoryDir, 'MEMORY.md', `${mine}- [One](project_one.md) — the change's first\n- [Two](project_two.md) — its second\n`);
      await writeFileAtomic(where.memoryDir, 'team/MEMORY.md', `${team}- [Team mine](team_mine.md) — the change's\n`);
    });
    const team = await read('team/MEMORY.md');
    expect(team).toContain(teamPointer);
    expect(team).toContain('(team_mine.md)');
    expect(await read('MEMORY.md')).toContain(pointer);
    expect(await read('MEMORY.md')).toContain('(project_two.md)');
  });
});
