/**
 * The desktop app itself, launched with Playwright's Electron driver where Electron's binary
 * exists (a user's machine). Here, offline, the binary cannot be downloaded: the test is
 * skipped with the reason.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findElectron } from '../src/main/shell/launch.js';

const found = findElectron();
const MAIN = path.resolve(import.meta.dirname, '../out/main/shell/electron/main.js');

describe('Electron app', () => {
  it.skipIf(!found.ok)(`launches with a sandboxed, isolated window${found.ok ? '' : ` — skipped: ${found.reason}`}`, async () => {
    if (!found.ok) return;
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-electron-'));
    const app = await electron.launch({ executablePath: found.path, args: [MAIN, '--home', path.join(root, 'home')], env: { ...process.env, MEMDIR_DATA_DIR: path.join(root, 'data') } });
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
