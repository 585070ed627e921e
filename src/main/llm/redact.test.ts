/**
 * The providers' error redaction and the secrets scanner know an API key and a bearer token by the
 * same shapes (shared/key-shapes.ts): whatever the scanner would find of them in a provider's
 * message, redaction masks — and a key cut short, which the scanner need not be sure of, too.
 */
import { describe, expect, it } from 'vitest';
import { scanText } from '../secrets/index.js';
import { redact } from './redact.js';

const body = (seed: string) => `${seed}Qe4Rt8YqNz2Kx7LpDm4Hc9VsFj1Ga6Neu3TbWp5Zo0Ik_Lm-Xc2Vb8Nq4Rs7Tu1Yw3`;
const keys = ['api03', 'admin01', 'oat01', 'ort01'].map((kind) => `sk-ant-${kind}-${body('A')}`);
const bearer = `Bearer ${body('eyJ').slice(0, 48)}`;

describe('redact', () => {
  it.each([...keys.map((k) => `Invalid key ${k} (check it)`), `upstream said: Authorization: ${bearer}`])(
    'masks what the scanner finds: %s',
    async (message) => {
      const found = (await scanText(message)).filter((f) => f.rule === 'memdir/anthropic-key' || f.rule === 'memdir/bearer-token');
      expect(found.length, 'the scanner knows it').toBeGreaterThan(0);
      const shown = redact(message);
      for (const f of found) expect(shown).not.toContain(message.slice(f.range[0], f.range[1]));
      expect(await scanText(shown)).toEqual([]);
    },
  );

  it('masks a key cut short, a lower-case bearer, an x-api-key header, and every known value', () => {
    expect(redact('key sk-ant-api03-Qe4Rt8… was refused')).toBe('key sk-ant-[redacted]… was refused');
    expect(redact('authorization: bearer abcdefgh12345')).toBe('authorization: Bearer [redacted]');
    expect(redact('{"x-api-key": "whatever-it-is"}')).toBe('{"x-api-key": "[redacted]"}');
    expect(redact('proxy rejected my-secret-value', ['my-secret-value', 'short'])).toBe('proxy rejected [redacted]');
  });
});
