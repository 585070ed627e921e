import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectScan } from '../../shared/scan-types.js';
import { createAppDispatcher } from '../api/index.js';
import { scanHome } from '../memdir/scan-home.js';
import { AppContext } from './app-context.js';
import { createDemoHome } from './demo-home.js';

let root: string;
let home: string;
let projects: ProjectScan[];
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-demo-'));
  home = await createDemoHome(path.join(root, 'demo'), path.join(root, 'data'));
  projects = (await scanHome(home, { env: {} })).projects;
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe('the demo workspace', () => {
  it('has an index past its limit, cut where Claude Code cuts it', () => {
    const pipeline = projects.find((p) => p.path === '/demo/data-pipeline')!;
    expect(pipeline.index).toMatchObject({ lines: 215, firstCutLine: 201, reason: '215 lines (limit: 200)' });
    expect(pipeline.index.cut).toEqual(Array.from({ length: 15 }, (_, i) => `project_source_${200 + i}.md`));
    expect(pipeline.problems.find((p) => p.code === 'over-limit')).toMatchObject({ line: 201 });
    for (const p of projects.filter((x) => x !== pipeline)) expect(p.index.cut, p.dir).toEqual([]);
  });

  it("index.loaded gives the text the agent gets, warned in the words of the demo transcripts' Claude Code (2.1.0)", async () => {
    const ctx = await AppContext.create({ homeFlag: home, dataDir: path.join(root, 'data'), env: {} });
    try {
      const api = createAppDispatcher(ctx);
      const dir = projects.find((p) => p.path === '/demo/data-pipeline')!.dir;
      const r = await api.call('index.loaded', { dir });
      expect(r).toMatchObject({ ok: true, result: { truncated: true, reason: '215 lines (limit: 200)', claudeCodeVersion: '2.1.0', lastInjected: null } });
      const text = (r as { result: { text: string } }).result.text;
      expect(text.split('\n').slice(0, 200).at(-1)).toContain('project_source_199.md');
      expect(
        text.endsWith(
          '\n\n> WARNING: MEMORY.md is 215 lines (limit: 200). Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files.',
        ),
      ).toBe(true);
    } finally {
      await ctx.close();
    }
  });
});
