/**
 * R-LAYOUT's team/MEMORY.md as Claude Code 2.1.332 treats it, replayed without the binary from
 * what the client did (test/fixtures/claude-code-index/observed-team.json, team-index-case.ts):
 * the agent starts with MEMORY.md's text alone, so a team memory reaches it only through a
 * `team/x.md` link on MEMORY.md's loaded lines — one listed only in team/MEMORY.md does not. Memdir's
 * `show --loaded`, its list, Health and the counts must say what the client did.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanProject } from '../../src/main/memdir/scan-home.js';
import { agentIndexView } from '../../src/main/transcripts/agent-index.js';
import { indexStatesOf } from '../../src/shared/index-state.js';
import type { ProjectScan } from '../../src/shared/scan-types.js';
import { TEAM_CASE_FIXTURE, type TeamCase } from './team-index-case.js';

const AUTO_MEMORY_ON = { autoMemoryEnabled: true, autoMemoryEnabledSource: 'default', autoMemoryEnabledFrom: null, memoryStores: null } as const;
const recorded = JSON.parse(fs.readFileSync(TEAM_CASE_FIXTURE, 'utf8')) as TeamCase;
const DIR = '-work-team-case';

describe('team/MEMORY.md, as Claude Code 2.1.332 loaded it', () => {
  let root: string;
  let memoryDir: string;
  let scan: ProjectScan;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-team-case-'));
    memoryDir = path.join(root, 'projects', DIR, 'memory');
    for (const [file, text] of Object.entries(recorded.files)) {
      fs.mkdirSync(path.dirname(path.join(memoryDir, file)), { recursive: true });
      fs.writeFileSync(path.join(memoryDir, file), text);
    }
    scan = await scanProject(root, DIR, { env: {} });
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('memdir show --loaded prints the one index the client sent, MEMORY.md', async () => {
    expect(recorded.instructions.map((f) => f.file)).toEqual(['MEMORY.md']);
    const view = await agentIndexView({ transcriptDirs: [], memoryDir, settings: AUTO_MEMORY_ON });
    expect(view.text).toBe(recorded.instructions[0]!.content);
  });

  it('a team memory is loaded only through a team/x.md link MEMORY.md sends; one listed only in team/MEMORY.md is not', () => {
    const sent = recorded.instructions.map((f) => f.content).join('\n');
    const stateOf = indexStatesOf(scan);
    const rows = scan.team!.memories.map((m) => `${m.file}: ${stateOf(m)}`);
    // What the client did: team/a.md's pointer was in the text it sent, b.md's was not.
    expect(scan.team!.memories.map((m) => `${m.file}: ${sent.includes(`](team/${m.file})`) ? 'loaded' : 'not sent'}`)).toEqual([
      'a.md: loaded',
      'b.md: not sent',
    ]);
    expect(rows).toEqual(['a.md: loaded', 'b.md: unlisted']);
    // Health says why, in one sentence, and past-the-cut counts stay empty: nothing here is cut.
    const orphans = scan.team!.problems.filter((p) => p.code === 'orphan');
    expect(orphans.map((p) => [p.file, p.message])).toEqual([
      [
        'b.md',
        'team/b.md is listed only in team/MEMORY.md, which Claude Code 2.1.332 does not load, so the agent never sees it at session start: point at it from MEMORY.md as team/b.md.',
      ],
    ]);
    expect(scan.team!.index.cutMemories).toEqual([]);
  });
});
