import { describe, expect, it } from 'vitest';
import { HashCache, RACY_MS, sha256Hex } from './hash-cache.js';

const NOW = 1_700_000_000_000;

describe('the hash cache and racily clean files', () => {
  it('looks once more at a file Memdir just wrote (an editor may have saved it in the same tick), then trusts it', () => {
    const cache = HashCache.inMemory();
    const facts = { size: 3, mtimeMs: NOW, ctimeMs: NOW, ino: 9 };
    cache.remember('written.md', facts, sha256Hex('abc'), NOW);
    // Same size, same tick: an editor's "xyz" would have these very facts; the cache must not answer for it.
    expect(cache.lookup('written.md', facts)).toBeNull();
    expect(cache.hash('written.md', facts, Buffer.from('xyz'), NOW + RACY_MS + 10)).toBe(sha256Hex('xyz'));
    // Written long after its mtime was set (a pull keeping the file's old date): trusted at once.
    const old = { size: 3, mtimeMs: NOW - 60_000, ctimeMs: NOW, ino: 10 };
    cache.remember('old.md', old, sha256Hex('abc'), NOW);
    expect(cache.lookup('old.md', old)).toBe(sha256Hex('abc'));
  });

  it('hashes a file dated in the future twice, not at every look', () => {
    const cache = HashCache.inMemory();
    const future = { size: 3, mtimeMs: NOW + 86_400_000, ctimeMs: NOW, ino: 7 };
    cache.hash('a.md', future, Buffer.from('abc'), NOW);
    expect(cache.lookup('a.md', future)).toBeNull();
    // Looked at again within the same tick: still not trusted (a write in that tick may follow).
    cache.hash('a.md', future, Buffer.from('abc'), NOW + 10);
    expect(cache.lookup('a.md', future)).toBeNull();
    // The same facts and content a tick later: any write of that tick would have shown.
    cache.hash('a.md', future, Buffer.from('abc'), NOW + RACY_MS + 10);
    expect(cache.lookup('a.md', future)).toBe(sha256Hex('abc'));
    expect(cache.filesHashed).toBe(3);
  });

  it('a file whose content changed under the same facts is watched again from then on', () => {
    const cache = HashCache.inMemory();
    const future = { size: 3, mtimeMs: NOW + 86_400_000, ctimeMs: NOW, ino: 7 };
    cache.hash('a.md', future, Buffer.from('abc'), NOW);
    cache.hash('a.md', future, Buffer.from('xyz'), NOW + RACY_MS + 10);
    expect(cache.lookup('a.md', future)).toBeNull();
    cache.hash('a.md', future, Buffer.from('xyz'), NOW + 2 * RACY_MS + 20);
    expect(cache.lookup('a.md', future)).toBe(sha256Hex('xyz'));
  });
});
