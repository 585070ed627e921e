/**
 * The desktop app itself, launched with Playwright's Electron driver where Electron's binary
 * exists (a user's machine after a first `npm start`). Where it was never downloaded (offline)
 * the test is skipped with the reason.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findElectronPackage, locateElectron } from '../src/main/shell/electron-binary.js';

const pkg = findElectronPackage();
const located = pkg ? locateElectron(pkg, process.env) : null;
const found =
  located?.state === 'present'
    ? { ok: true as const, path: located.path }
    : { ok: false as const, reason: located?.state === 'missing' ? `${located.reason} (npm start downloads it)` : 'the electron package is not installed' };
const MAIN = path.resolve(import.meta.dirname, '../out/main/shell/electron/main.js');

describe('Electron app', () => {
  it.skipIf(!found.ok)(`launches with a sandboxed, isolated window${found.ok ? '' : ` — skipped: ${found.reason}`}`, async () => {
    if (!found.ok) return;
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-electron-'));
    const app = await electron.launch({
      executablePath: found.path,
      args: [MAIN, '--home', path.join(root, 'home')],
      env: { ...process.env, MEMDIR_DATA_DIR: path.join(root, 'data') },
    });
    try {
      const page = await app.firstWindow();
      await page.getByRole('heading', { name: 'No Claude Code home found' }).waitFor();
      expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
      expect(await page.evaluate(() => typeof (globalThis as { memdirBridge?: unknown }).memdirBridge)).toBe('object');
    } finally {
      await app.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
