/**
 * A newcomer's path through the app in real Chromium against the real headless host:
 * open the demo → browse → edit a memory → the index follows → a file written by another
 * program appears live → delete → restore from history → fix a health problem.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

/**
 * A change another program makes reaches the page through the host's watcher, a rescan and the
 * event stream: well under a second on an idle machine, seconds on a loaded one. The test waits
 * for it to show (without a reload); how fast it shows is not a test's to assert.
 */
const LIVE = 20_000;

describe.skipIf(!HAS_BROWSER)(`newcomer's path${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const checkout = () => path.join(root, 'data', 'demo', 'claude-home', 'projects', '-demo-checkout-service', 'memory');

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-'));
    host = await startHost(['--home', path.join(root, 'no-home-yet'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('opens the demo workspace from the empty state', async () => {
    await page.goto(host.url);
    await expect.poll(() => page.getByRole('heading', { name: 'No Claude Code home found' }).isVisible()).toBe(true);
    await page.screenshot({ path: artifact('01-empty-state.png') });
    await page.getByRole('button', { name: 'Open demo workspace' }).first().click();
    await page.getByRole('button', { name: '/demo/checkout-service' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByRole('table', { name: 'Projects' }).locator('tbody tr').count()).toBe(4);
    // The token left the address bar once read.
    expect(page.url()).not.toContain('token=');
    await page.screenshot({ path: artifact('02-dashboard.png') });
  });

  it('browses a project and edits a memory; the index follows', async () => {
    await page.getByRole('button', { name: '/demo/checkout-service' }).click();
    await page.locator('[data-file="feedback_sql.md"]').click();
    const description = page.getByLabel('Description');
    await expect.poll(() => description.inputValue()).toBe('We write SQL by hand; never introduce an ORM');
    await description.fill('Hand-written SQL only; the ORM was removed after the outage');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved feedback_sql.md.').waitFor();
    const file = await fs.readFile(path.join(checkout(), 'feedback_sql.md'), 'utf8');
    expect(file).toContain('description: Hand-written SQL only; the ORM was removed after the outage');
    await page.getByRole('button', { name: 'MEMORY.md' }).click();
    // The line in MEMORY.md (the same text also shows in "What the agent sees").
    await page
      .getByRole('list', { name: 'MEMORY.md lines' })
      .getByText('- [No ORM](feedback_sql.md) — Hand-written SQL only; the ORM was removed after the outage')
      .waitFor();
    await page.screenshot({ path: artifact('03-index.png') });
  });

  it('shows a memory written by another program without a reload', async () => {
    await page.getByRole('button', { name: 'Memories' }).click();
    await page.locator('[data-file="feedback_sql.md"]').waitFor();
    await fs.writeFile(
      path.join(checkout(), 'reference_runbook.md'),
      '---\nname: Deploy runbook\ndescription: Where the deploy runbook lives\ntype: reference\n---\n\nSee the wiki.\n',
    );
    await page.locator('[data-file="reference_runbook.md"]').waitFor({ timeout: LIVE });
  });

  it('follows a memory another program writes in a subfolder (retros/): added, changed and removed, without a reload', async () => {
    const retros = path.join(checkout(), 'retros');
    const row = page.locator('[data-file="retros/2026-q1.md"]');
    await fs.mkdir(retros);
    await fs.writeFile(path.join(retros, '2026-q1.md'), '---\nname: Q1 retro\ndescription: What went well in Q1\ntype: project\n---\n\nThe cutover.\n');
    await row.waitFor({ timeout: LIVE });
    await fs.writeFile(
      path.join(retros, '2026-q1.md'),
      '---\nname: Q1 retro\ndescription: What went well in Q1, and the on-call rota\ntype: project\n---\n\nThe cutover.\n',
    );
    await row.getByText('What went well in Q1, and the on-call rota').waitFor({ timeout: LIVE });
    await fs.rm(path.join(retros, '2026-q1.md'));
    await expect.poll(() => row.count(), { timeout: LIVE }).toBe(0);
    await fs.rm(retros, { recursive: true });
  });

  it('deletes a memory and restores it from history', async () => {
    await page.locator('[data-file="reference_runbook.md"]').click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete' }).last().click();
    await page.getByText('Deleted reference_runbook.md. It stays in history.').waitFor();
    await expect.poll(() => page.locator('[data-file="reference_runbook.md"]').count()).toBe(0);
    await page.getByRole('button', { name: 'History' }).click();
    const deleted = page.locator('details.deleted li', { hasText: 'reference_runbook.md' });
    await deleted.waitFor();
    await page.screenshot({ path: artifact('04-history.png') });
    await deleted.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Restored reference_runbook.md.').waitFor();
    expect(await fs.readFile(path.join(checkout(), 'reference_runbook.md'), 'utf8')).toContain('Deploy runbook');
    await page.getByRole('button', { name: 'Memories' }).click();
    await page.locator('[data-file="reference_runbook.md"]').waitFor();
  });

  it('fixes a health problem in one click', async () => {
    await page.getByRole('button', { name: 'Health' }).click();
    const dangling = page.getByRole('button', { name: /Fix: Line \d+ of MEMORY\.md points at project_deploy_notes\.md/ });
    await dangling.waitFor();
    await page.screenshot({ path: artifact('05-health.png') });
    await dangling.click();
    await page.getByText('Fixed 1 problem.').waitFor();
    await expect.poll(() => dangling.count()).toBe(0);
    expect(await fs.readFile(path.join(checkout(), 'MEMORY.md'), 'utf8')).not.toContain('project_deploy_notes.md');
    expect(errors).toEqual([]);
  });
});
