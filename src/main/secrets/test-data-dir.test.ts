// Test hygiene: a test that scans in-process (no CLI, no app context naming a data dir) must not
// make the fingerprint key, a scan cache or anything else in the data dir of the person running
// the tests. test/setup-data-dir.ts points Memdir's data dir (MEMDIR_DATA_DIR) at a temp dir per test file.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { processDataDir, resolveDataDir } from '../core/index.js';
import { scanText } from './scanner.js';

/** The data dir Memdir would use for the person running the tests (their platform's default). */
function usersDataDir(): string {
  const { MEMDIR_DATA_DIR: _, ...env } = process.env;
  return resolveDataDir(env);
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

it("an in-process scan makes its fingerprint key in a temp data dir, never in the user's", async () => {
  const users = usersDataDir();
  const usersKey = path.join(users, 'secrets', 'fingerprint.key');
  const hadKey = await exists(usersKey);
  const hadDir = await exists(users);

  const secret = ['ghp_', 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j'].join('');
  const findings = await scanText(`token: ${secret}\n`, { file: 'reference_gh.md' });
  expect(findings.map((f) => f.fingerprint)).toEqual([expect.stringMatching(/^[0-9a-f]{16}$/)]);

  const dataDir = processDataDir();
  expect(path.relative(await fs.realpath(os.tmpdir()), await fs.realpath(dataDir))).not.toMatch(/^\.\.|^$/);
  expect(await exists(path.join(dataDir, 'secrets', 'fingerprint.key'))).toBe(true);
  expect(path.relative(users, dataDir)).toMatch(/^\.\./);
  // Nothing new in the user's data dir: no key, and no dir where there was none.
  expect(await exists(usersKey)).toBe(hadKey);
  expect(await exists(users)).toBe(hadDir);
});
