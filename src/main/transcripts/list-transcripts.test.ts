import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listHomeTranscripts, listProjectTranscripts } from './list-transcripts.js';

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-list-'));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

async function put(rel: string, content: string, mtime: string): Promise<void> {
  const file = path.join(home, 'projects', rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  const time = new Date(mtime);
  await fs.utimes(file, time, time);
}

describe('listing transcripts', () => {
  it('lists a project’s sessions newest first with mtime and size, sub-agents on request', async () => {
    await put('-work-app/old.jsonl', 'a\n', '2026-01-01T00:00:00Z');
    await put('-work-app/new.jsonl', 'bbbb\n', '2026-03-01T00:00:00Z');
    await put('-work-app/new/subagents/agent-x1.jsonl', 'c\n', '2026-02-01T00:00:00Z');
    await put('-work-app/memory/MEMORY.md', '', '2026-03-02T00:00:00Z');
    await put('-work-app/notes.txt', '', '2026-03-02T00:00:00Z');
    const project = path.join(home, 'projects', '-work-app');

    const sessions = await listProjectTranscripts(project);
    expect(sessions.map((f) => [f.sessionId, f.kind, f.size, new Date(f.mtimeMs).toISOString()])).toEqual([
      ['new', 'session', 5, '2026-03-01T00:00:00.000Z'],
      ['old', 'session', 2, '2026-01-01T00:00:00.000Z'],
    ]);
    const all = await listProjectTranscripts(project, { includeSubagents: true });
    expect(all.map((f) => [f.sessionId, f.kind, f.agentId])).toEqual([
      ['new', 'session', null],
      ['new', 'subagent', 'x1'],
      ['old', 'session', null],
    ]);
    expect(await listProjectTranscripts(path.join(home, 'projects', 'nope'))).toEqual([]);
  });

  it('lists every project of a home, newest first, and nothing for a missing home', async () => {
    await put('-work-a/s1.jsonl', '', '2026-01-01T00:00:00Z');
    await put('-work-b/s2.jsonl', '', '2026-02-01T00:00:00Z');
    expect((await listHomeTranscripts(home)).map((f) => [f.project, f.sessionId])).toEqual([
      ['-work-b', 's2'],
      ['-work-a', 's1'],
    ]);
    expect(await listHomeTranscripts(path.join(home, 'missing'))).toEqual([]);
  });
});
