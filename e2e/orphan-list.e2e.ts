/**
 * Orphaned memory on the dashboard, in real Chromium against the real headless host, when Claude
 * Code ran in many folders since removed (scratch and temporary directories): the panel shows the
 * five most recently active and a button for the rest, so the projects' table and the "Look for
 * projects in" field stay on the first screen.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topic } from '../src/main/relink/test-support/moved-project.js';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import type { Host } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

const ORPHANS = 7;

describe.skipIf(!HAS_BROWSER)(`orphaned memory on the dashboard${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  // Folder names no existing path can have: each a memory left behind by a removed scratch folder.
  const dirOf = (i: number) => `-memdir-e2e-gone-scratch-${i}`;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-orphans-'));
    const day = 24 * 3600 * 1000;
    for (let i = 1; i <= ORPHANS; i++) {
      const memory = path.join(root, 'home', 'projects', dirOf(i), 'memory');
      await fs.mkdir(memory, { recursive: true });
      await fs.writeFile(path.join(memory, 'MEMORY.md'), `- [Note ${i}](note.md) — scratch ${i}\n`);
      await fs.writeFile(path.join(memory, 'note.md'), topic(`note ${i}`, 'project', `Scratch work ${i}.`));
      // Scratch 1 was active most recently, scratch 7 longest ago.
      const when = new Date(Date.now() - i * day);
      for (const f of ['MEMORY.md', 'note.md']) await fs.utimes(path.join(memory, f), when, when);
    }
    ({ host, browser, page } = await openApp(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')], errors));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('shows the five most recently active, and the rest on demand', async () => {
    const panel = page.getByRole('region', { name: 'Orphaned memory' });
    const orphans = panel.locator('[aria-label^="Orphan "]');
    await expect.poll(() => orphans.count()).toBe(5);
    expect(await orphans.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual([1, 2, 3, 4, 5].map((i) => `Orphan ${dirOf(i)}`));
    await panel.getByRole('button', { name: `Show all ${ORPHANS} orphans (2 more)` }).click();
    await expect.poll(() => orphans.count()).toBe(ORPHANS);
    await panel.getByRole('button', { name: 'Show the first 5 only' }).click();
    await expect.poll(() => orphans.count()).toBe(5);
    expect(errors).toEqual([]);
  });
});
