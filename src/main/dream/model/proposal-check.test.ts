import { describe, expect, it } from 'vitest';
import type { MemorySnapshot, SnapshotFile } from '../plan/memory-snapshot.js';
import { checkProposedPath, findNewSecrets, KnownSecrets } from './proposal-check.js';

function snapshotOf(...rels: string[]): MemorySnapshot {
  return snapshotWith(rels.map((rel) => [rel, 'x']));
}

function snapshotWith(texts: [string, string][]): MemorySnapshot {
  const files = new Map<string, SnapshotFile>();
  for (const [rel, text] of texts) {
    const name = rel.split('/').pop()!;
    files.set(rel, {
      rel,
      scope: rel.startsWith('team/') ? 'team' : 'private',
      name,
      kind: 'topic',
      text,
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

// Review 4, S2: the finding for more secrets than are listed has no fingerprint; one in the memory
// dir before the dream is no reason to let new secrets past the listed ones through.
describe('findNewSecrets', () => {
  it('reports new secrets past the listed ones although a memory already held too many', async () => {
    const many = Array.from({ length: 205 }, (_, i) => `pwd=Xk9mQ${i}zPq`).join('\n');
    const known = new KnownSecrets(snapshotWith([['notes.md', `${many}\n`]]));
    expect(await findNewSecrets('notes.md', `${many}\n`, known)).toEqual([expect.stringMatching(/^More than 200 matches of one kind of secret/)]);
    expect(await findNewSecrets('notes.md', `${many}\npwd=Vr4tLq8wZm2Kp\n`, known)).toEqual([
      expect.stringMatching(/^More than 200 matches of one kind of secret/),
    ]);
  });
});
