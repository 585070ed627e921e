import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecallService, RecentQueries } from './recall-service.js';
import { writeMemoryFixture } from './test-support/memory-fixture.js';

let root: string;
let home: string;
let memoryDir: string;
let service: RecallService;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-recall-svc-'));
  home = path.join(root, 'home');
  memoryDir = path.join(home, 'projects', '-work-shop', 'memory');
  await writeMemoryFixture(memoryDir);
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
  await fs.writeFile(
    path.join(memoryDir, 'team', 'reference_oncall.md'),
    '---\nname: On-call board\ndescription: PagerDuty rota for the shop team\ntype: reference\n---\n\nbody\n',
  );
  service = new RecallService({ home, env: { PATH: path.join(root, 'no-bin') }, dataDir: path.join(root, 'data') });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('RecallService', () => {
  it('recalls across the private and team memory, offline, with the project named', async () => {
    const result = await service.recall({ project: '-work-shop', query: 'who is on the pagerduty rota' });
    expect(result.method).toBe('local');
    expect(result.selected[0]?.file).toBe('team/reference_oncall.md');
    expect(result.project).toMatchObject({ dir: '-work-shop', memoryDir });
    expect(result.alwaysLoaded?.loaded.length).toBe(9);
  });

  it('picks up a changed, added and deleted file on the next query', async () => {
    expect((await service.recall({ project: '-work-shop', query: 'kafka lag' })).selected).toEqual([]);
    await fs.writeFile(
      path.join(memoryDir, 'project_kafka.md'),
      '---\nname: Kafka lag\ndescription: Consumer lag alerts above 10k messages\ntype: project\n---\n',
    );
    expect((await service.recall({ project: '-work-shop', query: 'kafka lag' })).selected[0]?.file).toBe('project_kafka.md');
    await fs.rm(path.join(memoryDir, 'project_kafka.md'));
    expect((await service.recall({ project: '-work-shop', query: 'kafka lag' })).selected).toEqual([]);
  });

  it('explains a memory that was not chosen, and compares both methods', async () => {
    const why = await service.explain({ project: '-work-shop', query: 'python versions in CI', file: 'user_role.md' });
    expect(why).toMatchObject({ inIndex: true, rank: null, selected: false });
    const both = await service.compare({ project: '-work-shop', query: 'python versions in CI' });
    expect(both.local.selected[0]?.file).toBe('project_ci_python.md');
    expect(both.model.method).toBe('local');
    expect((await service.provider()).kind).toBe('offline');
  });

  it('keeps recent queries, newest first, without duplicates', async () => {
    const recent = new RecentQueries(path.join(root, 'data'));
    await recent.add('-work-shop', 'first');
    await recent.add('-work-shop', 'second');
    await recent.add('-work-shop', 'first');
    expect((await recent.list()).map((e) => e.query)).toEqual(['first', 'second']);
  });

  it('keeps both of two recent queries added at the same moment (two windows, or the app and a terminal)', async () => {
    const recent = new RecentQueries(path.join(root, 'data'));
    await Promise.all([recent.add('-work-shop', 'python versions in CI'), new RecentQueries(path.join(root, 'data')).add('-work-cafe', 'espresso grind')]);
    expect((await recent.list()).map((e) => e.query).sort()).toEqual(['espresso grind', 'python versions in CI']);
  });
});
