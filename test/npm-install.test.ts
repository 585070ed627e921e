/**
 * Which Node Memdir needs is written once, in package.json's `engines`; README says the same, the
 * launcher checks it (launch.test.ts), and `npm install` does not refuse a user whose config has
 * `engine-strict` for the Electron packages that declare a newer Node than they need.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..');
let root: string;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-npm-'));
  for (const file of ['package.json', 'package-lock.json', '.npmrc']) await fs.copyFile(path.join(REPO, file), path.join(root, file));
  await fs.writeFile(path.join(root, 'user.npmrc'), 'engine-strict=true\n');
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('the Node Memdir needs', () => {
  it('is package.json’s engines, which README states and this machine’s Node meets', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
    const version = /^>=(\d+\.\d+)$/.exec(manifest.engines.node)?.[1];
    expect(version).toBeDefined();
    const readme = await fs.readFile(path.join(REPO, 'README.md'), 'utf8');
    expect(readme).toContain(`Node ≥ ${version}`);
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    const [wantMajor, wantMinor] = version!.split('.').map(Number) as [number, number];
    expect(major > wantMajor || (major === wantMajor && minor >= wantMinor)).toBe(true);
  });

  it('is not refused by npm for a user with engine-strict (the lock file installs as it is)', async () => {
    const { npm_config_engine_strict: _strict, ...env } = process.env;
    const install = () =>
      promisify(execFile)(
        'npm',
        [
          'ci',
          '--dry-run',
          '--ignore-scripts',
          '--offline',
          '--no-audit',
          '--no-fund',
          '--no-update-notifier',
          `--userconfig=${path.join(root, 'user.npmrc')}`,
        ],
        { cwd: root, env },
      );
    const { stderr } = await install();
    expect(stderr).not.toContain('npm error');
    // Without the checkout's .npmrc, the same user is refused.
    await fs.rm(path.join(root, '.npmrc'));
    await expect(install()).rejects.toThrow(/EBADENGINE/);
  });
});
