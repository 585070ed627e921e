import { describe, expect, it } from 'vitest';
import { sanitizePathKey } from '../../shared/path-key.js';
import { PersonalKeys, createKey, keyMatchesRecord, parseKeyRecord, unlockKey } from './personal-crypto.js';

const PASSPHRASE = 'correct horse battery staple';

describe('personal sync encryption', async () => {
  const { master, record, text } = await createKey(PASSPHRASE);
  const keys = new PersonalKeys(master);
  const project = keys.projectId('git-remote:github.com/acme/app');

  it('derives the same key from the passphrase and the public record, and refuses another passphrase', async () => {
    expect(parseKeyRecord(text)).toEqual(record);
    expect(JSON.stringify(record)).not.toContain(PASSPHRASE);
    const again = await unlockKey(PASSPHRASE, record);
    expect(again.equals(master)).toBe(true);
    expect(new PersonalKeys(again).keyId).toBe(keys.keyId);
    await expect(unlockKey('correct horse battery stapler', record)).rejects.toMatchObject({ code: 'wrong-passphrase' });
    // NFC: the same passphrase typed with a combining accent opens the same space.
    const accented = await createKey('café au lait every morning');
    expect(keyMatchesRecord(await unlockKey('cafe\u0301 au lait every morning', accented.record), accented.record)).toBe(true);
  });

  it('refuses records it would not write: weak scrypt parameters, other shapes', () => {
    expect(() => parseKeyRecord(JSON.stringify({ ...record, N: 2 ** 10 }))).toThrow(/scrypt parameters Memdir does not accept/);
    expect(() => parseKeyRecord(JSON.stringify({ ...record, N: 100_000 }))).toThrow(/does not accept/);
    expect(() => parseKeyRecord(JSON.stringify({ ...record, extra: 1 }))).toThrow(/not one Memdir writes/);
    expect(() => parseKeyRecord('not json')).toThrow(/not one Memdir writes/);
  });

  it('names projects and memories deterministically, as valid sync keys, without revealing them', () => {
    expect(project).toMatch(/^[0-9a-f]{32}$/);
    expect(keys.projectId('git-remote:github.com/acme/app')).toBe(project);
    expect(keys.projectId('git-remote:github.com/acme/other')).not.toBe(project);
    const wire = keys.wireKey(project, 'retros/q1.md');
    expect(wire).toMatch(/^[0-9a-f]{40}\.md$/);
    expect(sanitizePathKey(wire).ok).toBe(true);
    expect(keys.wireKey(project, 'retros/q1.md')).toBe(wire);
    // The same name in another project is another entry: names are not linkable across projects.
    expect(keys.wireKey(keys.projectId('name:notes'), 'retros/q1.md')).not.toBe(wire);
  });

  it('seals contents randomly, pads sizes, and opens only what it sealed, where it sealed it', async () => {
    const wire = keys.wireKey(project, 'user_role.md');
    const text = 'I maintain the billing service.\n';
    const a = keys.seal(project, wire, 'user_role.md', Buffer.from(text));
    const b = keys.seal(project, wire, 'user_role.md', Buffer.from(text));
    expect(a).not.toBe(b);
    expect(a).not.toContain('billing');
    expect(keys.seal(project, wire, 'user_role.md', Buffer.from('x')).length).toBe(a.length);
    const opened = keys.open(project, wire, a);
    expect(opened.ok && opened.key === 'user_role.md' && opened.bytes.toString()).toBe(text);
    // Another key, another place, a changed byte, something else: refused.
    const other = new PersonalKeys((await createKey('another long passphrase here')).master);
    expect(other.open(project, wire, a)).toEqual({ ok: false, reason: 'key' });
    expect(keys.open(project, keys.wireKey(project, 'other.md'), a)).toEqual({ ok: false, reason: 'key' });
    expect(keys.open(keys.projectId('name:x'), wire, a)).toEqual({ ok: false, reason: 'key' });
    const flipped = `${a.slice(0, 40)}${a[40] === 'A' ? 'B' : 'A'}${a.slice(41)}`;
    expect(keys.open(project, wire, flipped)).toEqual({ ok: false, reason: 'key' });
    expect(keys.open(project, wire, 'plain text')).toEqual({ ok: false, reason: 'format' });
  });
});
