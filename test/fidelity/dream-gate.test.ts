import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DREAM_CASES,
  DREAM_FIXTURE,
  type DreamOutcome,
  EDGE_SESSIONS,
  layOutDreamCase,
  memdirDreamVerdict,
} from '../../src/main/dream/test-support/claude-code-dream-cases.js';

// Homes laid out for the real Claude Code 2.1.332, which ran a session in each (live:
// src/main/dream/gates/claude-code-interop.test.ts); the recording holds whether it started its
// own dream, with how many sessions and which, or which gate stopped it. Memdir, given the same
// home, must say the same (R-DREAM-GATE).
const { client, cases } = JSON.parse(fs.readFileSync(DREAM_FIXTURE, 'utf8')) as { client: string; cases: Record<string, DreamOutcome> };

describe(`Claude Code ${client}'s own dream, as Memdir predicts it`, () => {
  let tmp: string;
  let holder: ChildProcess;
  beforeAll(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-dream-fidelity-')));
    holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  });
  afterAll(() => {
    holder?.kill();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('covers every case', () => {
    expect(Object.keys(cases).sort()).toEqual(DREAM_CASES.map((c) => c.name).sort());
  });

  it.each(DREAM_CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const root = fs.mkdtempSync(path.join(tmp, 'case-'));
    const home = layOutDreamCase(root, c, { livePid: holder.pid! });
    expect(await memdirDreamVerdict(home, path.join(root, 'data'))).toEqual({ ...cases[name]!, listed: null });
  });

  it('the sessions a dream reviews: UUID-named entries of the launch folder newer than the lock, whatever they are', () => {
    const listed = cases['lists the edge layout']!.listed;
    const expected = [...EDGE_SESSIONS.fresh, EDGE_SESSIONS.upper, EDGE_SESSIONS.folder, EDGE_SESSIONS.link, EDGE_SESSIONS.empty].sort();
    expect(listed).toEqual(expected);
  });
});
