// What a scan says about the team folder: a "user" memory put there (R-TYPES: always private), and team memories
// pointed at from the main MEMORY.md (the one index Claude Code 2.1.332 loads: test/fidelity/team-index.test.ts).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { indexStatesOf } from '../../shared/index-state.js';
import { fixRequestOf } from '../../shared/problems.js';
import { restoreFromHistory } from '../history/history.js';
import { applyFixes, previewFixes } from './memory-service.js';
import { scanProject } from './scan-home.js';

let root: string;
let home: string;
let memoryDir: string;
const DIR = '-work-teamhealth';
const topic = (name: string, type: string) => `---\nname: ${name}\ndescription: about ${name}\ntype: ${type}\n---\nBody of ${name}.\n`;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-health-'));
  home = path.join(root, 'home');
  memoryDir = path.join(home, 'projects', DIR, 'memory');
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('a "user" memory in the team folder', () => {
  it('is flagged, with what it means; a user memory in the private folder is not', async () => {
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Role](role.md) — who I am\n');
    await fs.writeFile(path.join(memoryDir, 'role.md'), topic('Role', 'user'));
    await fs.writeFile(path.join(memoryDir, 'team', 'MEMORY.md'), '- [Me](me.md) — me\n- [Deploys](deploys.md) — how\n');
    await fs.writeFile(path.join(memoryDir, 'team', 'me.md'), topic('Me', 'user'));
    await fs.writeFile(path.join(memoryDir, 'team', 'deploys.md'), topic('Deploys', 'project'));
    const scan = await scanProject(home, DIR, { env: {} });
    expect(scan.problems.filter((p) => p.code === 'user-in-team')).toEqual([]);
    const flagged = scan.team!.problems.filter((p) => p.code === 'user-in-team');
    expect(flagged.map((p) => [p.file, p.severity])).toEqual([['me.md', 'warning']]);
    expect(flagged[0]!.message).toMatch(/"user" memory in the team folder.*always stays private.*Move it to your private memory/);
  });
});

describe('team memories pointed at from the main MEMORY.md (no team/MEMORY.md)', () => {
  it('are loaded for the scan, the app list and `memdir show` alike; an orphan names MEMORY.md, the index that would load it', async () => {
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Env](team/env.md) — the shared environment\n');
    await fs.writeFile(path.join(memoryDir, 'team', 'env.md'), topic('Env', 'project'));
    await fs.writeFile(path.join(memoryDir, 'team', 'oncall.md'), topic('Oncall', 'project'));
    const scan = await scanProject(home, DIR, { env: {} });
    // `memdir show` lists the main index's loaded pointers.
    expect(scan.index.loaded).toEqual(['team/env.md']);
    // The app's list reads the same rule.
    const stateOf = indexStatesOf(scan);
    expect(scan.team!.memories.map((m) => [m.file, stateOf(m)])).toEqual([
      ['env.md', 'loaded'],
      ['oncall.md', 'unlisted'],
    ]);
    const orphans = scan.team!.problems.filter((p) => p.code === 'orphan');
    expect(orphans.map((p) => p.file)).toEqual(['oncall.md']);
    expect(orphans[0]!.message).toBe(
      'team/oncall.md is not listed in MEMORY.md, so the agent never sees it at session start: point at it from MEMORY.md as team/oncall.md.',
    );
    // Its one-click fix points at it from MEMORY.md (below).
    expect(orphans[0]!.fix).toBe('add-to-index');
  });
});

describe('"Add to MEMORY.md" for a team memory listed only in team/MEMORY.md', () => {
  it('points at it from MEMORY.md as team/x.md, so it is loaded; team/MEMORY.md keeps its line; one history entry, and Undo takes it out', async () => {
    const dataDir = path.join(root, 'data');
    const mainText = '# Index\n\n- [Env](team/env.md) — the shared environment\n';
    const teamText = '- [Env](env.md) — the shared environment\n- [Oncall](oncall.md) — who is on call\n';
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), mainText);
    await fs.writeFile(path.join(memoryDir, 'team', 'MEMORY.md'), teamText);
    await fs.writeFile(path.join(memoryDir, 'team', 'env.md'), topic('Env', 'project'));
    await fs.writeFile(path.join(memoryDir, 'team', 'oncall.md'), topic('Oncall', 'project'));
    const scan = await scanProject(home, DIR, { env: {} });
    const orphan = scan.team!.problems.find((p) => p.code === 'orphan')!;
    expect(orphan.message).toMatch(/^team\/oncall\.md is listed only in team\/MEMORY\.md, which Claude Code 2\.1\.332 does not load/);
    const fix = fixRequestOf(orphan);
    expect(fix).toEqual({ kind: 'add-to-index', file: 'oncall.md' });
    const where = { memoryDir, scope: 'team' as const, dataDir };
    // Health shows what the button does before it is clicked: the pointer reaches the agent.
    const { each } = await previewFixes(where, [fix!]);
    expect(each.map((e) => e.alone)).toEqual(['loaded']);
    const { applied, heldBack, impact, entry } = await applyFixes(where, [fix!]);
    expect(applied).toEqual([fix]);
    expect(heldBack).toEqual([]);
    // The impact is MEMORY.md's, the index whose loaded part changed.
    expect(impact.after.lines).toBe(impact.before.lines + 1);
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(`${mainText}- [Oncall](team/oncall.md) — about Oncall\n`);
    expect(await fs.readFile(path.join(memoryDir, 'team', 'MEMORY.md'), 'utf8')).toBe(teamText);
    expect(entry).toMatchObject({ source: 'fix', summary: 'Fix 1 index problem' });
    const after = await scanProject(home, DIR, { env: {} });
    expect(after.team!.problems.filter((p) => p.code === 'orphan')).toEqual([]);
    expect(after.team!.memories.map((m) => [m.file, indexStatesOf(after)(m)])).toEqual([
      ['env.md', 'loaded'],
      ['oncall.md', 'loaded'],
    ]);
    // Asked again: nothing left to do, nothing written twice.
    expect((await applyFixes(where, [fix!])).applied).toEqual([]);
    // Undo (the entry's parent) puts MEMORY.md back as it was.
    await restoreFromHistory(memoryDir, `${entry!.rev}~1`, { dataDir });
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(mainText);
  });
});

describe("team/MEMORY.md's own problems", () => {
  it('name team/MEMORY.md and say what a bad line costs the people who read it, never that the agent is told', async () => {
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Gone](gone.md) — missing\n- [Gone](gone.md) — again\n');
    await fs.writeFile(path.join(memoryDir, 'team', 'MEMORY.md'), '- [Deploys](deploys.md) — how\n- [Lost](lost.md) — gone\n- [Deploys](deploys.md) — again\n');
    await fs.writeFile(path.join(memoryDir, 'team', 'deploys.md'), topic('Deploys', 'project'));
    const scan = await scanProject(home, DIR, { env: {} });
    const team = scan.team!.problems.filter((p) => p.code === 'dangling-link' || p.code === 'duplicate-pointer');
    expect(team.map((p) => [p.code, p.file, p.line, p.message, p.fix])).toEqual([
      [
        'dangling-link',
        'MEMORY.md',
        2,
        "Line 2 of team/MEMORY.md points at lost.md, which does not exist; whoever reads the team's index is sent to a memory that is not there.",
        'drop-pointer',
      ],
      [
        'duplicate-pointer',
        'MEMORY.md',
        3,
        "Line 3 of team/MEMORY.md points at deploys.md again (first on line 1); the repeat only makes the team's index longer to read.",
        'dedupe-pointer',
      ],
    ]);
    // The private index keeps the agent's words.
    const own = scan.problems.filter((p) => p.code === 'dangling-link' || p.code === 'duplicate-pointer');
    expect(own.map((p) => p.message)).toEqual([
      'Line 1 of MEMORY.md points at gone.md, which does not exist; the agent is told about a memory it cannot read.',
      'Line 2 of MEMORY.md points at gone.md again (first on line 1); the repeat only uses up index space.',
    ]);
  });

  it('an unreadable team/MEMORY.md is named as such, with no claim about the agent', async () => {
    await fs.writeFile(path.join(memoryDir, 'team', 'MEMORY.md'), Buffer.from([0x2d, 0x20, 0xff, 0xfe, 0x0a]));
    const scan = await scanProject(home, DIR, { env: {} });
    const index = scan.team!.problems.filter((p) => p.file === 'MEMORY.md' && p.line === null);
    expect(index.map((p) => p.code)).toEqual(['unreadable']);
    expect(index[0]!.message).toMatch(/^(Memdir cannot edit team\/MEMORY\.md|team\/MEMORY\.md cannot be used): [^]*\.$/);
    expect(index[0]!.message).not.toMatch(/agent|loads it/);
  });
});

describe('"Add to MEMORY.md" for a team memory when MEMORY.md is one Memdir will not edit', () => {
  const LATIN1 = Buffer.from('- [Env](team/env.md) — caf\xe9\n', 'latin1');

  it('is not offered; the problem says why, as the MEMORY.md tab does, and nothing is written', async () => {
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), LATIN1);
    await fs.writeFile(path.join(memoryDir, 'team', 'MEMORY.md'), '- [Oncall](oncall.md) — who is on call\n');
    await fs.writeFile(path.join(memoryDir, 'team', 'env.md'), topic('Env', 'project'));
    await fs.writeFile(path.join(memoryDir, 'team', 'oncall.md'), topic('Oncall', 'project'));
    const scan = await scanProject(home, DIR, { env: {} });
    const orphan = scan.team!.problems.find((p) => p.code === 'orphan')!;
    expect(orphan.file).toBe('oncall.md');
    expect(orphan.fix).toBeNull();
    const why = scan.problems.find((p) => p.file === 'MEMORY.md' && p.line === null)!.message;
    expect(why).toMatch(/^Memdir cannot edit MEMORY\.md: /);
    expect(orphan.message).toMatch(/point at it from MEMORY\.md as team\/oncall\.md\. Memdir cannot add that pointer: MEMORY\.md .+\.$/);
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'))).toEqual(LATIN1);
  });

  it('is not offered when MEMORY.md is a link out of the memory folder; offered again once it is a plain file', async () => {
    const outside = path.join(root, 'outside.md');
    await fs.writeFile(outside, '- [Env](team/env.md) — the shared environment\n');
    await fs.symlink(outside, path.join(memoryDir, 'MEMORY.md'));
    await fs.writeFile(path.join(memoryDir, 'team', 'env.md'), topic('Env', 'project'));
    await fs.writeFile(path.join(memoryDir, 'team', 'oncall.md'), topic('Oncall', 'project'));
    const scan = await scanProject(home, DIR, { env: {} });
    const orphan = scan.team!.problems.find((p) => p.code === 'orphan')!;
    expect(orphan.fix).toBeNull();
    expect(orphan.message).toContain('Memdir cannot add that pointer: MEMORY.md is a symbolic link that leads outside the memory directory');
    await fs.rm(path.join(memoryDir, 'MEMORY.md'));
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Env](team/env.md) — the shared environment\n');
    const after = await scanProject(home, DIR, { env: {} });
    expect(after.team!.problems.find((p) => p.code === 'orphan')!.fix).toBe('add-to-index');
  });
});

describe('"Fix all" across both scopes, previewed in the order it applies them', () => {
  it("previews the team's pointers on MEMORY.md as the private fixes leave it: the sentences add up, and what the preview holds back applying holds back", async () => {
    const dataDir = path.join(root, 'data');
    // 198 lines: the two private orphans fill it to 200, so the team orphan's pointer would be line 201, past the cut.
    const notes = Array.from({ length: 198 }, (_, i) => `- note ${i}`).join('\n') + '\n';
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), notes);
    await fs.writeFile(path.join(memoryDir, 'a.md'), topic('A', 'feedback'));
    await fs.writeFile(path.join(memoryDir, 'b.md'), topic('B', 'feedback'));
    await fs.writeFile(path.join(memoryDir, 'team', 'oncall.md'), topic('Oncall', 'project'));
    const scan = await scanProject(home, DIR, { env: {} });
    const own = scan.problems.map(fixRequestOf).filter((f) => f !== null);
    const team = scan.team!.problems.map(fixRequestOf).filter((f) => f !== null);
    expect([own.map((f) => f.file), team.map((f) => f.file)]).toEqual([['a.md', 'b.md'], ['oncall.md']]);
    const mine = { memoryDir, scope: 'private' as const, dataDir };
    const ours = { memoryDir, scope: 'team' as const, dataDir };
    const first = await previewFixes(mine, own);
    const then = await previewFixes(ours, team, { first: own });
    expect(first.plan.impact.after.lines).toBe(200);
    expect(then.plan.impact.before.lines).toBe(200);
    expect(then.plan.heldBack).toEqual(team);
    expect(then.plan.applied).toEqual([]);
    // Alone, the team orphan would still reach the agent: its own button says so.
    expect(then.each.map((e) => e.alone)).toEqual(['loaded']);
    // Applied in that order, it is as previewed.
    expect((await applyFixes(mine, own)).applied).toEqual(own);
    const applied = await applyFixes(ours, team);
    expect([applied.applied, applied.heldBack]).toEqual([[], team]);
    expect((await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).trimEnd().split('\n')).toHaveLength(then.plan.impact.after.lines);
  });
});
