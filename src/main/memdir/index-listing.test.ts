/**
 * One rule for what an index lists and what is past its cut (shared/index-state.ts), on one
 * project whose two indexes are both over the limit: the scan's counts (`cutMemories`), Health's
 * orphans and over-limit sentences, and the app's list (indexStatesOf) say the same of every
 * memory — a team memory through MEMORY.md only (Claude Code 2.1.332 does not load
 * team/MEMORY.md), a memory through any link of a line — in a first scan, a rescan, and a fresh
 * process answered from the scan cache file.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { indexStatesOf } from '../../shared/index-state.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { openScanCache } from './scan-cache-file.js';
import { HomeScanCache, scanProject } from './scan-home.js';
import { layOutListingHome } from './test-support/cut-home.js';

const DIR = '-work-listing';
let root: string;
let home: string;
let memory: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-index-listing-'));
  home = path.join(root, 'home');
  memory = path.join(home, 'projects', DIR, 'memory');
  await layOutListingHome(memory);
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Every memory's state in the app's list, and what the counts and Health say of the project. */
function verdicts(scan: ProjectScan) {
  const stateOf = indexStatesOf(scan);
  return {
    rows: [...scan.memories, ...(scan.team?.memories ?? [])].map((m) => `${m.scope}/${m.file}: ${stateOf(m)}`),
    cutMemories: { private: scan.index.cutMemories, team: scan.team?.index.cutMemories },
    orphans: [...scan.problems, ...(scan.team?.problems ?? [])].filter((p) => p.code === 'orphan').map((p) => p.file),
  };
}

const EXPECTED = {
  rows: [
    // aside.md: only a cross-reference in a loaded line's hook names it; the agent reads that line.
    'private/aside.md: loaded',
    'private/kept.md: loaded',
    'private/late.md: cut',
    // later.md: only a cross-reference below the cut names it.
    'private/later.md: cut',
    // team_a.md: loaded through MEMORY.md (team/MEMORY.md's line for it is beside the point).
    'team/team_a.md: loaded',
    // team_b.md: named only below MEMORY.md's cut.
    'team/team_b.md: cut',
    // team_c.md and team_d.md: listed in team/MEMORY.md only, above and below where its cut would fall: the agent gets neither.
    'team/team_c.md: unlisted',
    'team/team_d.md: unlisted',
  ],
  cutMemories: { private: ['late.md', 'later.md'], team: ['team_b.md'] },
  orphans: ['team_c.md', 'team_d.md'],
};

describe('what an index lists, and what is past its cut: one rule for the counts, Health and the list', () => {
  it('a team memory through MEMORY.md only, a memory through any link of its line', async () => {
    const scan = await scanProject(home, DIR, { env: {} });
    expect(verdicts(scan)).toEqual(EXPECTED);
    // Health's over-limit sentence counts what the counts count; team/MEMORY.md, which no one loads, has none.
    const overLimit = (problems: ProjectScan['problems']) => problems.find((p) => p.code === 'over-limit')?.message;
    expect(overLimit(scan.problems)).toContain('so 2 memories are never seen at session start');
    expect(overLimit(scan.team!.problems)).toBeUndefined();
    expect(scan.team!.problems.filter((p) => p.code === 'orphan').map((p) => p.message)).toEqual([
      'team/team_c.md is listed only in team/MEMORY.md, which Claude Code 2.1.332 does not load, so the agent never sees it at session start: point at it from MEMORY.md as team/team_c.md.',
      'team/team_d.md is listed only in team/MEMORY.md, which Claude Code 2.1.332 does not load, so the agent never sees it at session start: point at it from MEMORY.md as team/team_d.md.',
    ]);
  });

  it('a rescan and a fresh process answered from the cache file say the same; moving a team pointer past the main cut is seen', async () => {
    const dataDir = path.join(root, 'data');
    const later = () => Date.now() + 60_000;
    const first = openScanCache(dataDir, home, { now: later });
    expect(verdicts(await scanProject(home, DIR, { env: {}, cache: first.cache }))).toEqual(EXPECTED);
    expect(verdicts(await scanProject(home, DIR, { env: {}, cache: first.cache }))).toEqual(EXPECTED);
    expect(await first.save()).toBe(true);
    const fresh = openScanCache(dataDir, home, { now: later });
    expect(fresh.loaded.loaded).toBe(true);
    expect(verdicts(await scanProject(home, DIR, { env: {}, cache: fresh.cache }))).toEqual(EXPECTED);

    // team/team_a.md's pointer moves below MEMORY.md's cut: the same team files are linked, but team_a.md is now past the cut.
    const text = await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8');
    const line = '- [Team A](team/team_a.md) — loaded through the main index\n';
    await fs.writeFile(path.join(memory, 'MEMORY.md'), `${text.replace(line, '- note: moved\n')}${line}`);
    for (const cache of [fresh.cache, openScanCache(dataDir, home, { now: later }).cache, new HomeScanCache()]) {
      const scan = await scanProject(home, DIR, { env: {}, cache });
      expect(indexStatesOf(scan)({ scope: 'team', file: 'team_a.md' })).toBe('cut');
      expect(scan.team!.index.cutMemories).toEqual(['team_b.md', 'team_a.md']);
    }
  });

  it('a team memory named only below MEMORY.md’s cut is counted past the cut with no team/MEMORY.md at all', async () => {
    await fs.rm(path.join(memory, 'team', 'MEMORY.md'));
    const scan = await scanProject(home, DIR, { env: {} });
    const stateOf = indexStatesOf(scan);
    expect(scan.team!.memories.map((m) => `${m.file}: ${stateOf(m)}`)).toEqual([
      'team_a.md: loaded',
      'team_b.md: cut',
      'team_c.md: unlisted',
      'team_d.md: unlisted',
    ]);
    expect(scan.team!.index.cutMemories).toEqual(['team_b.md']);
    expect(scan.team!.problems.filter((p) => p.code === 'orphan').map((p) => p.file)).toEqual(['team_c.md', 'team_d.md']);
  });
});
