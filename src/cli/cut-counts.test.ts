/**
 * One meaning of "cut" in the built CLI (index-cut.ts): `memdir scan`'s CUT column counts the
 * memories the agent never sees, private and team — not every pointer below the cut, twenty of
 * which here name files that do not exist; `--json` keeps `cut` (the pointers) and adds
 * `cutMemories` and `cutMissing`; `memdir show` marks the pointers to missing files and says the
 * two numbers apart; `memdir recall` names the memories past the cut, not the missing files.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layOutCutHome, layOutListingHome } from '../main/memdir/test-support/cut-home.js';

const CLI_ENTRY = path.resolve(import.meta.dirname, '../../out/cli/memdir.js');
const skip = existsSync(CLI_ENTRY) ? null : `${CLI_ENTRY} is missing (npm run build)`;
const DIR = '-work-physics';

describe.skipIf(skip !== null)(`"cut" in the built memdir CLI${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let root: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const memdir = async (...args: string[]): Promise<string> => (await promisify(execFile)(process.execPath, [CLI_ENTRY, ...args], { env })).stdout;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-cut-'));
    home = path.join(root, 'home');
    const memory = path.join(home, 'projects', DIR, 'memory');
    await layOutCutHome(memory);
    const { ANTHROPIC_API_KEY: _key, ...rest } = process.env;
    env = { ...rest, MEMDIR_DATA_DIR: path.join(root, 'data'), CLAUDE_CONFIG_DIR: home };
  });
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('scan: CUT counts the memories past the cut, private and team; --json keeps the pointers and adds what they are', async () => {
    const text = await memdir('scan', '--home', home);
    const row = text.split('\n').find((l) => l.startsWith(DIR))!;
    // MEMORIES (private) 4, TEAM 1, the index, then CUT: cut_a, cut_b and cut_c — not the 24 pointers below the cut, nor
    // team_cut, which only team/MEMORY.md names (Claude Code 2.1.332 does not load it: unlisted, not cut).
    expect(row.split(/\s{2,}/).slice(0, 5)).toEqual([DIR, '4', '1', '224/200 lines, 8462/25000 chars', '3']);
    expect(text).toContain('CUT: memories the agent never sees (private and team)');

    const scan = JSON.parse(await memdir('scan', '--home', home, '--json')) as {
      projects: { index: { cut: string[]; cutMemories: string[]; cutMissing: string[] }; team: { index: { cutMemories: string[] } } }[];
    };
    const { index, team } = scan.projects[0]!;
    expect(index.cut).toHaveLength(24);
    expect(index.cutMemories).toEqual(['cut_a.md', 'cut_b.md', 'cut_c.md']);
    expect(index.cutMissing).toEqual(Array.from({ length: 20 }, (_, i) => `gone_${i}.md`));
    expect(team.index.cutMemories).toEqual([]);
  });

  it('show: the count says memories and missing files apart, and the CUT list marks the pointers to missing files', async () => {
    const out = await memdir('show', DIR, '--home', home);
    expect(out).toContain('1 pointer reaches the agent, 24 are cut (3 memories past the cut · 20 pointers to missing files).');
    expect(out).toContain('  CUT     cut_a.md\n');
    expect(out).toContain('  CUT     gone_0.md  (missing: no such file)\n');
    expect(out).toContain('  CUT     kept.md\n');
    expect(out.match(/\(missing: no such file\)/g)).toHaveLength(20);
    expect(out).toContain('team: 1 memory\n');
    expect(out).toContain('team/team_cut.md is listed only in team/MEMORY.md, which Claude Code 2.1.332 does not load');
    expect(out).toContain('so 3 memories are never seen at session start (20 of the 24 pointers below the cut name files that do not exist)');
  });

  it('recall: what is always loaded names the memories past the cut, not the files that are gone', async () => {
    const out = await memdir('recall', '--project', DIR, '--query', 'lab book', '--home', home, '--offline');
    expect(out).toContain('always loaded: MEMORY.md, 1 pointer(s); 3 memories past the cut (cut_a.md, cut_b.md, cut_c.md) · 20 pointers to missing files\n');
  });
});

describe.skipIf(skip !== null)(`what an index lists, one rule in the built memdir CLI${skip ? ` (skipped: ${skip})` : ''}`, () => {
  // Both indexes over the limit (test-support/cut-home.ts, layOutListingHome): team_a.md is loaded through MEMORY.md, team_b.md
  // named only below MEMORY.md's cut, team_c.md and team_d.md only in team/MEMORY.md (which Claude Code 2.1.332 does not load);
  // aside.md and later.md named only by a cross-reference in a hook.
  const LISTING = '-work-listing';
  let root: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const memdir = async (...args: string[]): Promise<string> =>
    (await promisify(execFile)(process.execPath, [CLI_ENTRY, ...args], { env }).catch((e: { stdout: string }) => e)).stdout;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-listing-'));
    home = path.join(root, 'home');
    await layOutListingHome(path.join(home, 'projects', LISTING, 'memory'));
    const { ANTHROPIC_API_KEY: _key, ...rest } = process.env;
    env = { ...rest, MEMDIR_DATA_DIR: path.join(root, 'data'), CLAUDE_CONFIG_DIR: home };
  });
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('scan, show and lint agree: a team memory through MEMORY.md only, a memory through any link of its line', async () => {
    const row = (await memdir('scan', '--home', home)).split('\n').find((l) => l.startsWith(LISTING))!;
    // MEMORIES 4, TEAM 4, then CUT: late.md, later.md and team_b.md — not team_a.md (loaded), nor team_d.md (not listed where it could load).
    const cells = row.split(/\s{2,}/);
    expect([cells[1], cells[2], cells[4]]).toEqual(['4', '4', '3']);
    const scan = JSON.parse(await memdir('scan', '--home', home, '--json')) as {
      projects: { index: { cut: string[]; cutMemories: string[] }; team: { index: Record<string, unknown> & { cutMemories: string[] } } }[];
    };
    const { index, team } = scan.projects[0]!;
    expect(index.cut).toEqual(['late.md', 'team/team_b.md']);
    expect(index.cutMemories).toEqual(['late.md', 'later.md']);
    expect(team.index.cutMemories).toEqual(['team_b.md']);
    // team/MEMORY.md is over the limit too, but Claude Code 2.1.332 loads none of it: its index says nothing loads and nothing is
    // cut (same keys), its size the file's own; team_c.md, which only it names, is not called loaded here while Health calls it an orphan.
    expect(team.index).toMatchObject({ exists: true, loaded: [], cut: [], loadedLines: 0, loadedBytes: 0, loadedChars: 0, firstCutLine: null, reason: null });
    expect(team.index.lines).toBeGreaterThan(200);

    const show = await memdir('show', LISTING, '--home', home);
    expect(show).toContain('2 pointers reach the agent, 2 are cut (2 memories past the cut).');
    expect(show).toContain('team: 4 memories; 1 memory past the cut\n');
    // Health: MEMORY.md's cut hides late.md and later.md; team/MEMORY.md, which no one loads, hides nothing.
    expect(show).toContain('so 2 memories are never seen at session start');
    expect(show).not.toContain('so 1 memory is never seen at session start');
    expect(show).toContain('team/team_c.md is listed only in team/MEMORY.md, which Claude Code 2.1.332 does not load');

    // lint: MEMORY.md's over-limit problem, and the two team memories only team/MEMORY.md lists as orphans.
    const lint = JSON.parse(await memdir('lint', '--home', home, '--json')) as { projects: { problems: { code: string; scope: string }[] }[] };
    expect(lint.projects[0]!.problems.map((p) => [p.code, p.scope])).toEqual([
      ['over-limit', 'private'],
      ['orphan', 'team'],
      ['orphan', 'team'],
    ]);
  });
});
