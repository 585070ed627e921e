import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RECALL_LINKS_FIXTURE, type RecallLinksRecording, writeLinksOut } from '../recall/test-support/claude-code-links-case.js';
import { scanMemoryDir, teamDirOf } from './scan-dir.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-subfolders-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const topic = (name: string) => `---\nname: ${name}\ndescription: about ${name}\ntype: project\n---\n\nBody.\n`;
function write(rel: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('subfolders of a memory directory (R-RECALL-SELECT: every *.md, any MEMORY.md excluded)', () => {
  write('MEMORY.md', '- [Top](top.md) — top\n- [Retro](retros/2026-01.md) — a retro\n');
  write('top.md', topic('Top'));
  write('retros/2026-01.md', topic('Retro one'));
  write('retros/2026-02.md', topic('Retro two'));
  write('retros/MEMORY.md', '- [Retro two](2026-02.md)\n');
  write('retros/deep/notes.md', topic('Deep'));
  write('retros/image.png', 'not a memory');
  write('.hidden/x.md', topic('Hidden'));
  write('team/shared.md', topic('Shared'));
  const scan = scanMemoryDir(root, { scope: 'private' });

  it('lists every memory by its relative path; team/ stays team memory', () => {
    expect(scan.memories.map((m) => m.file)).toEqual(['retros/2026-01.md', 'retros/2026-02.md', 'retros/deep/notes.md', 'top.md']);
    expect(scanMemoryDir(teamDirOf(root), { scope: 'team' }).memories.map((m) => [m.file, m.scope])).toEqual([['shared.md', 'team']]);
  });

  it('lints them: a linked subfolder memory is fine, an unlinked one is an orphan', () => {
    expect(
      scan.problems
        .filter((p) => p.code !== 'not-worth-saving')
        .map((p) => `${p.code} ${p.file}`)
        .sort(),
    ).toEqual(['orphan retros/2026-02.md', 'orphan retros/deep/notes.md']);
  });
});

describe('opening and editing a subfolder memory through the app API', () => {
  it('reads, saves and deletes retros/x.md; refuses a path out of the directory or into team/', async () => {
    const { AppContext } = await import('../app/app-context.js');
    const { createAppDispatcher } = await import('../api/index.js');
    const home = path.join(root, 'home');
    const memoryDir = path.join(home, 'projects', '-work-app', 'memory');
    fs.mkdirSync(path.join(memoryDir, 'retros'), { recursive: true });
    fs.writeFileSync(path.join(memoryDir, 'retros', 'r1.md'), topic('Retro'));
    fs.mkdirSync(path.join(root, 'outside'));
    fs.writeFileSync(path.join(root, 'outside', 'secret.md'), topic('Secret'));
    fs.symlinkSync(path.join(root, 'outside'), path.join(memoryDir, 'linked'));
    const ctx = await AppContext.create({ homeFlag: home, dataDir: path.join(root, 'data'), env: {} });
    try {
      const api = createAppDispatcher(ctx);
      const read = await api.call('memories.read', { dir: '-work-app', file: 'retros/r1.md' });
      expect(read).toMatchObject({ ok: true, result: { file: 'retros/r1.md', name: 'Retro' } });
      const fields = { name: 'Retro', description: 'what went well', type: 'project' };
      const opened = (read as { result: { memoryDir: string; text: string } }).result;
      expect(
        await api.call('memories.update', {
          dir: '-work-app',
          file: 'retros/r1.md',
          memoryDir: opened.memoryDir,
          baseText: opened.text,
          fields,
          body: 'Edited.\n',
        }),
      ).toMatchObject({ ok: true });
      expect(fs.readFileSync(path.join(memoryDir, 'retros', 'r1.md'), 'utf8')).toContain('description: what went well');
      expect(await api.call('memories.read', { dir: '-work-app', file: 'linked/secret.md' })).toMatchObject({ ok: false, error: { code: 'unsafe-path' } });
      expect(await api.call('memories.read', { dir: '-work-app', file: '../outside/secret.md' })).toMatchObject({ ok: false });
      expect(await api.call('memories.read', { dir: '-work-app', file: 'team/x.md' })).toMatchObject({
        ok: false,
        error: { message: expect.stringMatching(/team memory/) },
      });
      expect(await api.call('memories.delete', { dir: '-work-app', file: 'retros/r1.md' })).toMatchObject({ ok: true });
      expect(fs.existsSync(path.join(memoryDir, 'retros', 'r1.md'))).toBe(false);
    } finally {
      await ctx.close();
    }
  });
});

// Recorded from the real Claude Code 2.1.332 (claude-code-links-case.ts): it follows a memory file
// linked to a file outside the memory directory and a folder linked to a folder outside it, and
// offers what they hold to its recall. Memdir does not follow either; its scan must not be silent
// about memories the agent sees, nor call them unreadable to the agent.
describe('links out of the memory directory: what Claude Code offers, the scan names', () => {
  const recorded = JSON.parse(fs.readFileSync(RECALL_LINKS_FIXTURE, 'utf8')) as RecallLinksRecording;
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-links-out-'));
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it('the recording: the client offers the linked file and the linked folder memory', () => {
    expect(recorded.offered).toEqual(['[project] linked-file.md: reached through a link', '[project] linked/far.md: reached through a link']);
  });

  it('each link the client follows is a problem saying Claude Code follows it', async () => {
    const memoryDir = path.join(base, 'memory');
    fs.mkdirSync(memoryDir);
    fs.writeFileSync(path.join(memoryDir, 'MEMORY.md'), '');
    await writeLinksOut(memoryDir, path.join(base, 'outside'));
    const scan = scanMemoryDir(memoryDir, { scope: 'private' });
    const tops = [...new Set(recorded.offered.map((l) => /\] ([^/:]+\/?)/.exec(l)![1]!))];
    expect(tops).toEqual(['linked-file.md', 'linked/']);
    for (const top of tops)
      expect(scan.problems.find((p) => p.file === top)?.message, top).toMatch(/Memdir does not (follow it|look inside); Claude Code (does|follows it)/);
  });

  it('a linked team folder and a link to a folder inside are not reported', async () => {
    const memoryDir = path.join(base, 'memory2');
    fs.mkdirSync(path.join(memoryDir, 'retros'), { recursive: true });
    fs.mkdirSync(path.join(base, 'shared-team'));
    fs.symlinkSync(path.join(base, 'shared-team'), path.join(memoryDir, 'team'));
    fs.symlinkSync('retros', path.join(memoryDir, 'again'));
    const scan = scanMemoryDir(memoryDir, { scope: 'private' });
    expect(scan.problems.filter((p) => p.file === 'team/' || p.file === 'again/')).toEqual([]);
  });
});
