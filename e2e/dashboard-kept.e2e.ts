/**
 * The dashboard keeps what it read when a later read fails, in real Chromium against the real
 * headless host: a reload of the projects after a change on disk that Memdir cannot answer (the
 * host stopping, a failure) leaves the table as it was, with one line saying the list could not
 * be read again and why — it used to replace the whole table with the error.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topic } from '../src/main/relink/test-support/moved-project.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`the dashboard when a reload fails${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-kept-'));
    memory = path.join(root, 'home', 'projects', '-work-shop', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [No ORM](feedback_sql.md) — write SQL by hand\n');
    await fs.writeFile(path.join(memory, 'feedback_sql.md'), topic('No ORM', 'feedback', 'Write SQL by hand.'));
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('keeps the table and says the list could not be read again', async () => {
    await page.goto(host.url);
    const table = page.getByRole('table', { name: 'Projects' });
    await table.getByText('1 private').waitFor();
    // From now on Memdir fails to list the projects.
    await page.route('**/api/call', async (route) => {
      const body = route.request().postDataJSON() as { name?: string } | null;
      if (body?.name !== 'projects.list') return route.continue();
      await route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ ok: false, error: { code: 'internal', message: 'The disk is on fire.' } }),
      });
    });
    // Another program writes a memory: the page hears it and reads the list again, which fails.
    await fs.writeFile(path.join(memory, 'feedback_tabs.md'), topic('Tabs', 'feedback', 'Tabs, not spaces.'));
    await page.getByText(/could not be read again: The disk is on fire\./).waitFor();
    expect(await table.getByText('1 private').count()).toBe(1);
    await page.unroute('**/api/call');
    expect(errors).toEqual([]);
  });
});
