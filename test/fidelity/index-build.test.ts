/**
 * The MEMORY.md Claude Code 2.1.332 writes at session start when a memory folder has none,
 * replayed without the binary from what the client did (test/fixtures/claude-code-index/
 * observed-built.json, index-build-case.ts): Memdir predicts the file byte for byte, `show
 * --loaded` prints what the client then injected, and the scan, Health and lint call the
 * memories it lists loaded (not orphans) and say the index is built by Claude Code.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { predictBuiltIndex } from '../../src/main/memdir/index.js';
import { scanProject } from '../../src/main/memdir/scan-home.js';
import { agentIndexView } from '../../src/main/transcripts/agent-index.js';
import { indexStatesOf } from '../../src/shared/index-state.js';
import { BUILT_CASE_FIXTURE, type BuiltFixture, layOut, memoryOffIn } from './index-build-case.js';

const recorded = JSON.parse(fs.readFileSync(BUILT_CASE_FIXTURE, 'utf8')) as BuiltFixture;
const ON = { autoMemoryEnabled: true, autoMemoryEnabledSource: 'default', autoMemoryEnabledFrom: null, memoryStores: null } as const;
const OFF = { autoMemoryEnabled: false, autoMemoryEnabledSource: 'env', autoMemoryEnabledFrom: 'CLAUDE_CODE_DISABLE_AUTO_MEMORY', memoryStores: null } as const;
const DIR = '-work-built-case';

let root: string | null = null;
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = null;
});

function laidOut(name: string): string {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-built-case-'));
  const memoryDir = path.join(root, 'projects', DIR, 'memory');
  fs.mkdirSync(memoryDir, { recursive: true });
  layOut(memoryDir, recorded.cases[name]!.files);
  return memoryDir;
}

describe('the MEMORY.md Claude Code 2.1.332 builds, as recorded', () => {
  it('was recorded from the pinned client', () => {
    expect(recorded.claudeCode).toBe('2.1.332');
    // Auto memory off, by the environment switch or by a setting in any scope: the client writes no index and loads none.
    const offCases = Object.keys(recorded.cases).filter((name) => memoryOffIn(recorded.cases[name]!));
    expect(offCases).toEqual(['memory-off', 'memory-off-user', 'memory-off-project', 'memory-off-local']);
    for (const name of offCases) expect([recorded.cases[name]!.written, recorded.cases[name]!.injected], name).toEqual([null, null]);
    // The client writes the index to disk, then loads that file (not only into its prompt).
    expect(recorded.cases.mixed!.written).not.toBeNull();
    expect(recorded.cases.mixed!.injected).toBe(recorded.cases.mixed!.written!.trim());
  });

  it.each(Object.keys(recorded.cases))('%s: Memdir predicts the file and what the agent gets', async (name) => {
    const c = recorded.cases[name]!;
    const memoryDir = laidOut(name);
    const existed = c.files['MEMORY.md'] !== undefined;
    const off = memoryOffIn(c);
    // What Claude Code writes with memory on (nothing where a MEMORY.md was there already); with it off, nothing (the view says so).
    if (!off) expect(predictBuiltIndex(memoryDir)?.text ?? null).toBe(existed ? null : c.written);
    const view = await agentIndexView({ transcriptDirs: [], memoryDir, settings: off ? OFF : ON });
    expect(view.text).toBe(c.injected ?? '');
    expect(view.builtByClaudeCode !== null).toBe(!existed && !off && c.written !== null);
    // The app's path (index.loaded): predicted from the memories its cached scan found, the same file and text.
    const scanned = await scanProject(root!, DIR, { env: {} });
    const fromScan = await agentIndexView({ transcriptDirs: [], memoryDir, settings: off ? OFF : ON, memories: scanned.memories });
    expect(fromScan).toEqual(view);
    // The file an edit of the missing index starts from is the one the client wrote: none with memory off.
    expect(view.builtFile).toBe(existed ? null : c.written);
  });

  it('the scan, Health and lint call what the built index lists loaded and the rest unlisted, with one hint', async () => {
    const c = recorded.cases['chars-limit']!;
    const memoryDir = laidOut('chars-limit');
    const scan = await scanProject(root!, DIR, { env: {} });
    const listed = [...c.written!.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(scan.index.exists).toBe(false);
    expect(scan.index.loaded).toEqual(listed);
    const state = indexStatesOf(scan);
    const all = Object.keys(c.files);
    expect(all.filter((f) => state({ scope: 'private', file: f }) === 'loaded').sort()).toEqual([...listed].sort());
    const orphans = scan.problems.filter((p) => p.code === 'orphan');
    expect(orphans.map((p) => p.file).sort()).toEqual(all.filter((f) => !listed.includes(f)).sort());
    // No fix that would write a one-line MEMORY.md (Claude Code would then build none).
    expect(orphans.every((p) => p.fix === null)).toBe(true);
    expect(scan.problems.filter((p) => p.code === 'index-built').map((p) => p.message)).toEqual([
      `There is no MEMORY.md: Claude Code 2.1.332 writes one at its next session start, listing ${listed.length} memories newest first, and loads it; ${all.length - listed.length} memories are left out of it (it lists at most 140 lines and 17,500 characters, and no file whose name holds brackets or parentheses).`,
    ]);
    expect(fs.existsSync(path.join(memoryDir, 'MEMORY.md'))).toBe(false);
  });

  it('an empty MEMORY.md is kept: nothing loads, every memory is unlisted', async () => {
    laidOut('empty-index');
    const scan = await scanProject(root!, DIR, { env: {} });
    expect(scan.index.exists).toBe(true);
    expect(scan.problems.map((p) => p.code)).toContain('orphan');
    expect(scan.problems.map((p) => p.code)).not.toContain('index-built');
  });
});
