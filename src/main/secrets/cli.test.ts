// `memdir secrets scan` (src/cli/commands/secrets.ts), run as the CLI runs it.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../cli/command.js';
import { secretsScanCommand } from '../../cli/commands/secrets.js';

// The test runs the CLI from the temp folder, where `--import tsx` would not resolve.
const TSX = pathToFileURL(path.resolve(import.meta.dirname, '../../../node_modules/tsx/dist/loader.mjs')).href;
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
      expect.objectContaining({
        file: 'memory/team/billing.md',
        where: 'content',
        line: 5,
        rule: 'memdir/stripe-key',
        match: 'sk_live_************',
        severity: 'error',
      }),
    ]);
    expect(report.files).toBe(2);
    expect(out).not.toContain(KEY);
  });

  it('scans a single file and says so in text', async () => {
    const { code, out } = await scan('memory/team/billing.md', false);
    expect(code).toBe(1);
    expect(out).toContain('memory/team/billing.md:5:9  error  Stripe secret or restricted key  sk_live_************  (memdir/stripe-key)');
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

  it("says what each finding is and where — in a file's text (line) or in a file or folder name — and never prints a secret, in JSON or text", async () => {
    const ghp = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`;
    const akia = `AKIA${'QX7RZ2LM4NP8TV3W'}`;
    const ec = `-----BEGIN EC PRIVATE KEY-----\n${'MHcCAQEEIBq3Zr8Tn2Vx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4VeHo9rUu1Ii5Oo7Pp+Aa3Ss6Dd8Ff0Gg2Hh4Jj6Kk8Ll0Zz1Xx3Cc5Vv7Bb9Nn2Mm4'.repeat(2)}`;
    const memory = path.join(tmp, 'memory');
    await fs.writeFile(path.join(memory, `reference_${ghp}.md`), 'The release bot token is in this name.\n');
    await fs.mkdir(path.join(memory, akia));
    await fs.writeFile(
      path.join(memory, akia, 'notes.md'),
      `Quoted from the runbook:\n\n${ec
        .split('\n')
        .map((l) => `> ${l}`)
        .join('\n')}\n`,
    );
    // Session 45: a password shows none of its characters (its mask showed the first two to four).
    const password = 'Tr0ub4dor&3x';
    await fs.writeFile(path.join(memory, 'team', 'db.md'), `Staging DB\n\nthe staging admin password is: ${password}\n`);
    const secrets = [KEY, ghp, akia, ec.split('\n')[1]!.slice(0, 40), ...Array.from({ length: password.length - 3 }, (_, i) => password.slice(i, i + 4))];
    const memdir = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await promisify(execFile)(
          process.execPath,
          ['--import', TSX, path.resolve(import.meta.dirname, '../../cli/memdir.ts'), 'secrets', 'scan', ...args],
          { cwd: tmp },
        );
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    };
    const json = await memdir('memory', '--json');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { findings: { file: string; where: string; line: number | null; rule: string; match: string }[] };
    const byRule = report.findings.map((f) => ({ where: f.where, line: f.line, rule: f.rule, file: f.file }));
    // Each mask is a token's public prefix and stars, or stars (and the length past 32): nothing of a secret.
    for (const f of report.findings) expect(f.match.replace(/^(?:sk_live_|ghp_|AKIA)/, ''), f.rule).toMatch(/^\*+(?:…\(\d+\))?$/);
    expect(byRule).toEqual(
      expect.arrayContaining([
        { where: 'content', line: 5, rule: 'memdir/stripe-key', file: 'memory/team/billing.md' },
        { where: 'content', line: 3, rule: 'memdir/generic-assignment', file: 'memory/team/db.md' },
        { where: 'name', line: null, rule: 'github/GITHUB_TOKEN', file: expect.stringMatching(/^memory\/reference_ghp_\*+\.md$/) },
        { where: 'name', line: null, rule: 'aws/AWSAccessKeyID', file: expect.stringMatching(/^memory\/AKIA\*+\/notes\.md$/) },
        { where: 'content', line: 3, rule: 'memdir/private-key', file: expect.stringMatching(/^memory\/AKIA\*+\/notes\.md$/) },
      ]),
    );
    const text = await memdir('memory');
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^memory\/reference_ghp_\*+\.md \(in its name\) {2}error {2}GitHub token/m);
    const single = await memdir(path.join('memory', `reference_${ghp}.md`), '--json');
    expect(single.code).toBe(1);
    for (const run of [json, text, single]) for (const secret of secrets) expect(run.stdout + run.stderr).not.toContain(secret);
  });
});
