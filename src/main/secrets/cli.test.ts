// `memdir secrets scan` (src/cli/commands/secrets.ts), run as the CLI runs it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../cli/command.js';
import { secretsScanCommand } from '../../cli/commands/secrets.js';

const KEY = `sk_live_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7'}`;
let tmp: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-secrets-cli-')));
  await fs.mkdir(path.join(tmp, 'memory', 'team'), { recursive: true });
  await fs.writeFile(path.join(tmp, 'memory', 'MEMORY.md'), '- [Billing](team/billing.md) — how billing works\n');
  await fs.writeFile(path.join(tmp, 'memory', 'team', 'billing.md'), `---\nname: Billing\n---\n\nStripe: ${KEY}\n`);
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function scan(target: string, json: boolean) {
  let out = '';
  const io: CliIo = { out: (t) => (out += t), err: () => undefined, env: {}, cwd: tmp };
  const code = await secretsScanCommand.run({ positionals: [target], values: { json }, io });
  return { code, out };
}

describe('memdir secrets scan', () => {
  it('prints findings as JSON with masked matches and exits 1', async () => {
    const { code, out } = await scan('memory', true);
    expect(code).toBe(1);
    const report = JSON.parse(out);
    expect(report.findings).toEqual([
      expect.objectContaining({ file: 'memory/team/billing.md', line: 5, rule: 'memdir/stripe-key', match: 'sk_l************', severity: 'error' }),
    ]);
    expect(report.files).toBe(2);
    expect(out).not.toContain(KEY);
  });

  it('scans a single file and says so in text', async () => {
    const { code, out } = await scan('memory/team/billing.md', false);
    expect(code).toBe(1);
    expect(out).toContain('memory/team/billing.md:5:9  error  Stripe secret or restricted key  sk_l************  (memdir/stripe-key)');
    expect(out).not.toContain(KEY);
  });

  it('exits 0 when nothing is found', async () => {
    await fs.writeFile(path.join(tmp, 'memory', 'team', 'billing.md'), 'Stripe keys live in 1Password (Payments / Stripe live).\n');
    const { code, out } = await scan('memory', true);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ findings: [], skipped: [], files: 2 });
  });

  it('fails (exit 2 via CliFailure) on a path that does not exist', async () => {
    await expect(scan('nope', true)).rejects.toThrow('nope does not exist');
  });
});
