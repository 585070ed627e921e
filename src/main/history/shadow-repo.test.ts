/**
 * The shadow repo of a memory dir is created once, however many writers of one process ask for
 * it at the same moment (the app's start catch-up and a first change did): none sweeps away the
 * folder another is still creating.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureShadowRepo, openShadowRepo } from './shadow-repo.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
});

describe('the shadow repo', () => {
  it('is created once when several writers ask for it at the same moment, and no half-made folder is left', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-shadow-'));
    roots.push(root);
    const memoryDir = path.join(root, 'memory');
    await fs.mkdir(memoryDir);
    const dataDir = path.join(root, 'data');
    const repos = await Promise.all(Array.from({ length: 4 }, () => ensureShadowRepo(memoryDir, dataDir)));
    expect(new Set(repos.map((r) => r.gitDir)).size).toBe(1);
    expect(await openShadowRepo(memoryDir, dataDir)).toEqual(repos[0]);
    const folder = path.dirname(repos[0]!.gitDir);
    expect((await fs.readdir(folder)).sort()).toEqual(['meta.json', 'repo.git']);
  });
});
