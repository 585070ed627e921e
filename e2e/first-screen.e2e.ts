/**
 * The dashboard's first screen loads in one round (issue 16, bench start): the page names every
 * file the UI needs, so the browser asks for them with the entry, not after the entry has run and
 * imported the UI; and none of them is zod (the contract's checks are main's, not the page's).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`the dashboard's first screen${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-first-'));
    const memory = path.join(root, 'home', 'projects', '-work-app', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Style](feedback_style.md) — tabs\n');
    await fs.writeFile(path.join(memory, 'feedback_style.md'), '---\nname: Style\ndescription: tabs\ntype: feedback\n---\nTabs.\n');
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('asks for every script and style of the first screen before the entry asks anything of Memdir', async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await page.goto(host.url);
    await expect.poll(() => page.getByRole('table', { name: 'Projects' }).locator('tbody tr').count()).toBe(1);
    expect(asked).toContain('/api/call');
    const beforeFirstCall = asked.slice(0, asked.indexOf('/api/call'));
    const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
    const firstScreen = loaded.filter((p) => p.startsWith('/assets/') && /\.(js|css)$/.test(p));
    expect(firstScreen.some((p) => /\/render-[^/]+\.js$/.test(p))).toBe(true);
    expect(firstScreen.filter((p) => !beforeFirstCall.includes(p))).toEqual([]);
    // zod is main's: the page loads none of it.
    const scripts = await Promise.all(firstScreen.filter((p) => p.endsWith('.js')).map(async (p) => (await fetch(`${host.origin}${p}`)).text()));
    expect(scripts.filter((s) => s.includes('ZodType'))).toEqual([]);
    await page.close();
  });
});
