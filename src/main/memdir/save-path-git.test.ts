/**
 * What one memory's save costs in git: a create, an edit or a delete writes MEMORY.md inside its
 * change, and the change's history check (history.ts keepingOthersIndexLines) must not ask git for
 * the index as the change began when the index has not moved since — only status, add and commit.
 * Every git Memdir runs is counted through a `git` on PATH that logs its arguments and execs the
 * real git (a real git, not a mock).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMemory, deleteMemory, updateMemory, type Where } from './memory-service.js';

let shimDir: string;
let gitLog: string;
let savedPath: string | undefined;
let root: string;
let where: Where;

beforeAll(async () => {
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  shimDir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-git-shim-'));
  gitLog = path.join(shimDir, 'calls.log');
  // Memdir gives git only an allow-list of the environment: the log's path is in the script itself.
  await fs.writeFile(path.join(shimDir, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${gitLog}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
  savedPath = process.env.PATH;
  process.env.PATH = `${shimDir}${path.delimiter}${savedPath ?? ''}`;
});
afterAll(async () => {
  process.env.PATH = savedPath;
  await fs.rm(shimDir, { recursive: true, force: true });
});

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-save-path-'));
  where = { memoryDir: path.join(root, 'memory'), scope: 'private', dataDir: path.join(root, 'data') };
  await fs.mkdir(where.memoryDir);
  for (const name of ['Alpha', 'Beta']) await createMemory(where, { fields: { name, description: `about ${name}`, type: 'project' }, body: `${name}\n` });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** The git commands (`status`, `add`, …) `fn` ran, in order: each call's first argument after the `-c` settings. */
async function gitCommandsOf(fn: () => Promise<unknown>): Promise<string[]> {
  await fs.writeFile(gitLog, '');
  await fn();
  const lines = (await fs.readFile(gitLog, 'utf8')).split('\n').filter(Boolean);
  return lines.map((line) => {
    const words = line.split(' ');
    for (let i = 0; i < words.length; i++) {
      if (words[i] === '-c') i++;
      else return words.slice(i, i + 2).join(' ');
    }
    return line;
  });
}

/** MEMORY.md last written `secondsAgo` (0: just now, a time a same-second append would not move). */
async function indexWritten(secondsAgo: number): Promise<void> {
  const when = new Date(Date.now() - secondsAgo * 1000);
  await fs.utimes(path.join(where.memoryDir, 'MEMORY.md'), when, when);
}

describe('one memory saved: git is not asked for the index as the change began when the index did not move', () => {
  for (const secondsAgo of [60, 0]) {
    const when = secondsAgo === 0 ? 'written this very second' : 'written a minute ago';
    it(`create, edit and delete, MEMORY.md ${when}: no cat-file, no extra rev-parse`, async () => {
      await indexWritten(secondsAgo);
      const create = await gitCommandsOf(() =>
        createMemory(where, { fields: { name: 'Gamma', description: 'about Gamma', type: 'project' }, body: 'Gamma\n' }),
      );
      await indexWritten(secondsAgo);
      const before = await fs.readFile(path.join(where.memoryDir, 'project_alpha.md'), 'utf8');
      const edit = await gitCommandsOf(() =>
        updateMemory(where, {
          file: 'project_alpha.md',
          fields: { name: 'Alpha', description: 'about Alpha', type: 'project' },
          body: 'Alpha\n',
          baseText: before,
          hook: 'a new hook',
        }),
      );
      await indexWritten(secondsAgo);
      const remove = await gitCommandsOf(() => deleteMemory(where, 'project_beta.md'));
      for (const commands of [create, edit, remove]) {
        expect(commands.filter((c) => c.startsWith('cat-file'))).toEqual([]);
        expect(commands.filter((c) => c.startsWith('rev-parse'))).toHaveLength(0);
        expect(commands).toContain('commit -q');
      }
      const index = await fs.readFile(path.join(where.memoryDir, 'MEMORY.md'), 'utf8');
      expect(index).toContain('(project_gamma.md)');
      expect(index).toContain('a new hook');
      expect(index).not.toContain('project_beta.md');
    });
  }
});
