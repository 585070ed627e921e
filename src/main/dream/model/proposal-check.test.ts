import { describe, expect, it } from 'vitest';
import type { MemorySnapshot, SnapshotFile } from '../plan/memory-snapshot.js';
import { checkProposedPath } from './proposal-check.js';

function snapshotOf(...rels: string[]): MemorySnapshot {
  const files = new Map<string, SnapshotFile>();
  for (const rel of rels) {
    const name = rel.split('/').pop()!;
    files.set(rel, {
      rel,
      scope: rel.startsWith('team/') ? 'team' : 'private',
      name,
      kind: 'topic',
      text: 'x',
      problem: null,
      hash: '',
      mtimeMs: 0,
      topic: null,
    });
  }
  return { memoryDir: '/m', files, notFiles: new Map(), readAtMs: 0, bytes: 0 };
}

describe('checkProposedPath (a dream names the files it writes)', () => {
  it('refuses new names with %xx, #, ?, control or bidi characters, or a Windows device name, with a sentence (issue 15)', () => {
    const snapshot = snapshotOf('feedback_sql.md');
    for (const file of ['merged%2Fx.md', 'team/a#b.md', 'why?.md', 'bell\u0007.md', 'x\u202Egnp.md', 'CON.md', 'team/aux.md', 'notes.md.']) {
      const check = checkProposedPath(file, snapshot);
      expect(check, JSON.stringify(file)).toEqual({ ok: false, reason: expect.stringMatching(/^Refused .*(cannot be a memory file name|must end in \.md)/s) });
      if (!check.ok) expect(check.reason).not.toMatch(/[\u0000-\u001f\u202e]/);
    }
    expect(checkProposedPath('feedback_merged.md', snapshot)).toEqual({ ok: true, rel: 'feedback_merged.md', scope: 'private' });
  });

  it('still lets a dream update a file another program gave an odd name', () => {
    expect(checkProposedPath('a#b.md', snapshotOf('a#b.md'))).toEqual({ ok: true, rel: 'a#b.md', scope: 'private' });
  });
});
