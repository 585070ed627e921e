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
import { scanFile } from './scanner.js';
import { CLIENT_RULE_SAMPLES, CLIENT_RULES, memoryHolding } from './test-support/claude-code-rules.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-client-rules-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("Claude Code 2.1.332's team-memory secret rules", () => {
  it('are all here, as read from the binary', () => {
    expect(CLIENT_RULES.client).toBe('2.1.332');
    expect(CLIENT_RULES.rules.length).toBe(53);
    expect(new Set(CLIENT_RULES.rules.map((r) => r.id)).size).toBe(CLIENT_RULES.rules.length);
  });

  it.each(CLIENT_RULE_SAMPLES)('$name: the sample is one the client refuses', ({ rule, token }) => {
    expect(new RegExp(rule.source, rule.flags).test(`note ${token}\n`)).toBe(true);
  });

  it.each(CLIENT_RULE_SAMPLES)('$name: Memdir finds it in a memory file and shows it masked', async ({ name, token }) => {
    const file = path.join(dir, `reference_${name}.md`);
    const text = memoryHolding(name, token);
    await fs.writeFile(file, text);
    const report = await scanFile(file);
    const at = text.indexOf(token);
    const inToken = report.findings.filter((f) => f.range[0] < at + token.length && f.range[1] > at);
    expect(inToken.map((f) => f.severity)).toContain('error');
    for (const f of inToken) {
      expect(f.match).not.toContain(text.slice(...f.range));
      expect(JSON.stringify(f)).not.toContain(token.slice(-16));
    }
  });
});
