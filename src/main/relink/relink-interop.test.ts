// Issue 18 against the real Claude Code 2.1.332 (when installed): a project moved on disk starts
// with an empty memory, and after `relink` the session at the new path loads the relinked one;
// agent memory exported from where the sessions start reaches a sub-agent after the import.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { scanHome } from '../memdir/scan-home.js';
import { claudeCodeSkipReason, observeClaudeCode } from '../memdir/test-support/claude-code.js';
import { listHistory } from '../history/index.js';
import { EMPTY_INDEX_SENTENCE, launchSubAgents, writeAgentDefinition } from '../agents/test-support/claude-code-agent.js';
import { exportProject, importArchive, relink, undoHistoryEntry, undoMerge } from './index.js';
import { addMemories, addSession, git, makeRepo, topic } from './test-support/moved-project.js';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-relink-cc-')));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/**
 * A project with a session and a memory whose pointer holds `marker`, scanned (Memdir remembers
 * it), then moved on disk from src/shop to work/shop.
 */
async function movedProject(marker: string) {
  const home = path.join(tmp, 'config');
  const dataDir = path.join(tmp, 'data');
  const oldPath = path.join(tmp, 'src', 'shop');
  await makeRepo(oldPath);
  await addSession(home, oldPath);
  const oldMemory = await addMemories(home, oldPath, {
    'MEMORY.md': `- [No ORM](feedback_sql.md) — ${marker} write SQL by hand\n`,
    'feedback_sql.md': topic('No ORM', 'feedback', 'Write SQL by hand.'),
  });
  await scanHome(home, { dataDir });
  const newPath = path.join(tmp, 'work', 'shop');
  await fs.mkdir(path.dirname(newPath), { recursive: true });
  await fs.rename(oldPath, newPath);
  return { home, dataDir, oldPath, newPath, oldMemory };
}

describe.skipIf(claudeCodeSkipReason !== null)(`the real Claude Code reads the relinked memory (${claudeCodeSkipReason ?? 'installed'})`, () => {
  it('loads nothing at the new path before the relink, and the relinked index after it', async () => {
    const { home, dataDir, oldPath, newPath } = await movedProject('relinked-marker');

    const before = await observeClaudeCode({ cwd: newPath, configDir: home, scratch: path.join(tmp, 'scratch-1') });
    expect(before.memoryDir).toBe(path.join(home, 'projects', sanitizeDirName(newPath), 'memory'));
    expect(before.requests).not.toContain('relinked-marker');

    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    expect(record.plan.target.memoryDir).toBe(before.memoryDir);
    const after = await observeClaudeCode({ cwd: newPath, configDir: home, scratch: path.join(tmp, 'scratch-2') });
    expect(after.memoryDir).toBe(before.memoryDir);
    expect(after.requests).toContain('relinked-marker write SQL by hand');
  }, 120_000);

  it('still loads a memory written at the new path after the relink once the relink is undone', async () => {
    const { home, dataDir, oldPath, newPath } = await movedProject('moved-marker');
    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    // Written after the relink, as Claude Code writes a memory: its file, and its line in MEMORY.md.
    const memoryDir = record.plan.target.memoryDir;
    await fs.writeFile(path.join(memoryDir, 'user_later.md'), topic('Later', 'user', 'Written after the relink.'));
    await fs.appendFile(path.join(memoryDir, 'MEMORY.md'), '- [Later](user_later.md) — later-marker written after the relink\n');
    await undoMerge(dataDir, record.id);
    const undone = await observeClaudeCode({ cwd: newPath, configDir: home, scratch: path.join(tmp, 'scratch-1') });
    expect(undone.memoryDir).toBe(memoryDir);
    expect(undone.requests).toContain('later-marker written after the relink');
    expect(undone.requests).not.toContain('moved-marker');
  }, 120_000);

  it('keeps loading a relinked MEMORY.md line the person edited while the undo refuses; undone anyway, loads no index at all', async () => {
    const { home, dataDir, oldPath, newPath } = await movedProject('moved-marker');
    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    const index = path.join(record.plan.target.memoryDir, 'MEMORY.md');
    await fs.writeFile(index, (await fs.readFile(index, 'utf8')).replace('moved-marker', 'edited-marker'));
    await expect(undoMerge(dataDir, record.id)).rejects.toThrow(`${index} (the line for feedback_sql.md)`);
    const refused = await observeClaudeCode({ cwd: newPath, configDir: home, scratch: path.join(tmp, 'scratch-1') });
    expect(refused.requests).toContain('edited-marker write SQL by hand');
    const undone = await undoMerge(dataDir, record.id, { overwriteChanged: true });
    expect(undone.notes).toEqual([expect.stringContaining("MEMORY.md's line for feedback_sql.md was edited since")]);
    await expect(fs.access(index)).rejects.toThrow();
    const after = await observeClaudeCode({ cwd: newPath, configDir: home, scratch: path.join(tmp, 'scratch-2') });
    expect(after.memoryDir).toBe(record.plan.target.memoryDir);
    expect(after.requests).not.toContain('edited-marker');
    expect(after.requests).not.toContain('moved-marker');
  }, 120_000);

  it('loads the relinked index again once the undo of the relink is undone in the old folder alone', async () => {
    const { home, dataDir, oldPath, newPath, oldMemory } = await movedProject('redone-marker');
    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    await undoMerge(dataDir, record.id);
    const undone = await observeClaudeCode({ cwd: newPath, configDir: home, scratch: path.join(tmp, 'scratch-1') });
    expect(undone.requests).not.toContain('redone-marker');

    // The History page of the old folder: its "Undo relink" entry undone brings the relink back whole.
    const [entry] = await listHistory(oldMemory, { dataDir, limit: 1 });
    expect(entry!.summary).toBe(`Undo relink ${record.id}`);
    await undoHistoryEntry({ memoryDir: oldMemory, dataDir, rev: entry!.rev });
    const redone = await observeClaudeCode({ cwd: newPath, configDir: home, scratch: path.join(tmp, 'scratch-2') });
    expect(redone.memoryDir).toBe(record.plan.target.memoryDir);
    expect(redone.requests).toContain('redone-marker write SQL by hand');
  }, 120_000);
});

describe.skipIf(claudeCodeSkipReason !== null)(
  `the real Claude Code gives a sub-agent the agent memory an import brought (${claudeCodeSkipReason ?? 'installed'})`,
  () => {
    it('exported from app/, where the sessions start, imported into a fresh clone: a sub-agent launched in its app/ loads it', async () => {
      const marker = 'MARKER-IMPORTED-AGENT-MEMORY';
      const shop = path.join(tmp, 'src', 'shop');
      await makeRepo(shop);
      // The definition is committed with the repository; the local agent memory never is.
      writeAgentDefinition(path.join(shop, 'app', '.claude', 'agents'), 'r.md', 'reviewer', 'local', 0);
      git(shop, 'add', '-A');
      git(shop, 'commit', '-q', '-m', 'reviewer');
      const home = path.join(tmp, 'config');
      await addSession(home, path.join(shop, 'app'));
      await addMemories(home, shop, { 'a.md': topic('A', 'user', 'a') });
      const agentMemory = path.join(shop, 'app', '.claude', 'agent-memory-local', 'reviewer');
      await fs.mkdir(agentMemory, { recursive: true });
      await fs.writeFile(path.join(agentMemory, 'MEMORY.md'), `- ${marker} keep reviews terse\n`);
      const file = path.join(tmp, 'shop.tar');
      expect(await exportProject({ home, dataDir: path.join(tmp, 'data') }, shop, file)).toMatchObject({ exported: true, files: 2 });
      // Another machine: a fresh clone, its own Claude home.
      const fresh = path.join(tmp, 'elsewhere', 'shop');
      await fs.mkdir(path.dirname(fresh), { recursive: true });
      git(tmp, 'clone', '-q', shop, fresh);
      const home2 = path.join(tmp, 'config2');
      const launch = () => launchSubAgents({ cwd: path.join(fresh, 'app'), configDir: home2, scratch: path.join(tmp, 'scratch'), agents: ['reviewer'] });
      const before = await launch();
      expect(before.code, before.output).toBe(0);
      expect(before.seen[0]!.index).toBe(EMPTY_INDEX_SENTENCE);
      await importArchive({ home: home2, dataDir: path.join(tmp, 'data2') }, file, fresh);
      const after = await launch();
      expect(after.code, after.output).toBe(0);
      expect(after.seen[0]!.memoryDir).toBe(path.join(fresh, 'app', '.claude', 'agent-memory-local', 'reviewer'));
      expect(after.seen[0]!.index).toContain(marker);
    }, 180_000);
  },
);
