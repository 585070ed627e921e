/** The save guard on real scans: what a save may add, and what it may not. */
import { describe, expect, it } from 'vitest';
import { refuseNewSecrets, SecretFoundError } from './save-guard.js';
import { MAX_HITS_PER_RULE } from './scanner.js';

describe('refuseNewSecrets', () => {
  // Review 4, S2: the cap finding has no fingerprint; one in the text before is no reason to let
  // new secrets past the listed ones through.
  it('refuses new secrets past the listed ones although the text before already held too many', async () => {
    const many = Array.from({ length: MAX_HITS_PER_RULE + 5 }, (_, i) => `pwd=Xk9mQ${i}zPq`).join('\n');
    const before = `${many}\n`;
    const text = `${many}\npwd=Vr4tLq8wZm2Kp\n`;
    const save = refuseNewSecrets({ label: 'notes.md', text, before });
    await expect(save).rejects.toBeInstanceOf(SecretFoundError);
    await expect(save).rejects.toThrow(/More than 200 matches of one kind of secret/);
    // An allow cannot name it either.
    await expect(refuseNewSecrets({ label: 'notes.md', text, before, allow: [''] })).rejects.toBeInstanceOf(SecretFoundError);
  });
});
