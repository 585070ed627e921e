/**
 * Memdir must hold back from the team every credential Claude Code 2.1.332 itself refuses to
 * write into team memory and skips when it syncs: its rule table, taken from the real binary,
 * is test/fixtures/claude-code/secret-rules-2.1.332.json (where and how it was read are in the
 * file). For each rule a fake token the client's pattern matches is put in a memory file, and
 * Memdir's scanner must report it, masked.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import captured from '../../../test/fixtures/claude-code/secret-rules-2.1.332.json' with { type: 'json' };
import { scanFile } from './scanner.js';

type Part = string | [string, number];
interface ClientRule {
  id: string;
  source: string;
  flags: string;
  sample: Part[];
}

const UPPER = 'QWERTYUIOPASDFGHJKLZXCVBNM';
const LOWER = 'qwertyuiopasdfghjklzxcvbnm';
const DIGITS = '7302519864';
const ALPHABETS: Record<string, string> = {
  ALNUM: `${UPPER}${DIGITS}${LOWER}`,
  UPPERALNUM: `${UPPER}${DIGITS}`,
  UPPER32: `${UPPER}234567`,
  LETTERS: `${UPPER}${LOWER}`,
  DIGITS,
  HEX: '0123456789abcdef',
  B64: `${UPPER}${DIGITS}${LOWER}+/`,
  B64URL: `${UPPER}${DIGITS}${LOWER}-_`,
  AZURE: `${UPPER}${DIGITS}${LOWER}_~.-`,
};

// Fake bodies, made at run time so no key-shaped literal sits in the repository.
function body(alphabet: string, n: number, seed: number): string {
  return Array.from({ length: n }, (_, i) => alphabet[(i * 7 + seed * 13 + ((i * i) % 11)) % alphabet.length]).join('');
}

const rules = captured.rules as ClientRule[];
const samples = rules.map((rule, seed) => ({
  rule,
  token: rule.sample.map((part) => (typeof part === 'string' ? part : body(ALPHABETS[part[0]]!, part[1], seed))).join(''),
}));

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-client-rules-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("Claude Code 2.1.332's team-memory secret rules", () => {
  it('are all here, as read from the binary', () => {
    expect(captured.client).toBe('2.1.332');
    expect(rules.length).toBe(53);
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
  });

  it.each(samples)('$rule.id: the sample is one the client refuses', ({ rule, token }) => {
    const memory = `note ${token}\n`;
    expect(new RegExp(rule.source, rule.flags).test(memory)).toBe(true);
  });

  it.each(samples)('$rule.id: Memdir finds it in a memory file and shows it masked', async ({ rule, token }) => {
    const file = path.join(dir, `reference_${rule.id}.md`);
    const text = `---\nname: ${rule.id}\ndescription: staging credentials\nmetadata:\n  type: reference\n---\n\nThe staging one is ${token}\nrotate it monthly.\n`;
    await fs.writeFile(file, text);
    const report = await scanFile(file);
    const inToken = report.findings.filter((f) => {
      const [start, end] = f.range;
      const at = text.indexOf(token);
      return start < at + token.length && end > at;
    });
    expect(inToken.map((f) => f.severity)).toContain('error');
    for (const f of inToken) {
      expect(f.match).not.toContain(text.slice(...f.range));
      expect(JSON.stringify(f)).not.toContain(token.slice(-16));
    }
  });
});
