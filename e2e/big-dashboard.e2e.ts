/**
 * The dashboard of a big home, in real Chromium against the real headless host: 200 projects
 * (bench/corpus.ts's generator). It draws a page of 50 rows, not all 200 (5,800 nodes, each refresh
 * a long task); "Show 50 more" is reached and pressed from the keyboard and takes the focus to the
 * first project it adds; search still finds a project not drawn yet.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHome } from '../bench/corpus.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const PROJECTS = 200;

describe.skipIf(!HAS_BROWSER)(`a home of ${PROJECTS} projects${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-big-home-'));
    const { home } = writeHome(root, { projects: PROJECTS, memoriesPerProject: 3, teamEvery: 10 });
    host = await startHost(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    page.on('pageerror', (e) => errors.push(e.message));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  const rows = () => page.getByRole('table', { name: 'Projects' }).locator('tbody tr');

  it('draws a page of projects, the next from the keyboard, and search finds one not drawn yet', async () => {
    await page.goto(host.url);
    const more = page.getByRole('group', { name: 'More projects' });
    await more.getByText(`50 of ${PROJECTS} projects shown`).waitFor({ timeout: 60_000 });
    // Was: all 200 rows drawn.
    expect(await rows().count()).toBe(50);
    const fifty = more.getByRole('button', { name: 'Show 50 more' });
    await fifty.focus();
    await page.keyboard.press('Enter');
    await more.getByText(`100 of ${PROJECTS} projects shown`).waitFor();
    expect(await rows().count()).toBe(100);
    // The focus is on the first project the page added, so Tab goes on from there.
    const focused = await page.evaluate("document.activeElement?.textContent ?? ''");
    expect(focused).toBe(await rows().nth(50).locator('.project-name').textContent());
    await page.getByRole('searchbox', { name: 'Search projects' }).fill('repo-199');
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain('repo-199');
    expect(await more.count()).toBe(0);
    expect(errors).toEqual([]);
  }, 180_000);
});
