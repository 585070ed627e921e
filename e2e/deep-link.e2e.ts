/**
 * Where main sends the window (a `memdir://` link, a notification clicked) as the renderer
 * shows it, in real Chromium against an in-process host: the desktop app publishes the very same
 * `navigate` event from deepLinkTarget. A known project opens; an unknown one leaves the user on
 * the dashboard with a sentence saying why.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppContext } from '../src/main/app/app-context.js';
import { createAppDispatcher } from '../src/main/api/index.js';
import { deepLinkTarget } from '../src/main/desktop/deep-link.js';
import { buildFixtureHome } from '../src/main/memdir/test-support/fixture-home.js';
import { type RunningHost, startHost } from '../src/main/shell/host/host-server.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`memdir:// links in the app${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let ctx: AppContext;
  let host: RunningHost;
  let browser: Browser;
  let page: Page;
  let rendererListening: Promise<void>;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-link-'));
    const fixture = await buildFixtureHome(root);
    ctx = await AppContext.create({ homeFlag: fixture.home, dataDir: path.join(root, 'data'), env: {} });
    // The desktop shell holds a link back until the renderer subscribes (main.ts), and so does
    // this test, or the navigation it publishes reaches no one. (The page now subscribes before
    // it reads, so its table showing means it listens; the wait says the rule outright.)
    const dispatcher = createAppDispatcher(ctx);
    let listening!: () => void;
    rendererListening = new Promise((resolve) => (listening = resolve));
    const subscribe: typeof dispatcher.subscribe = (...args) => {
      const sub = dispatcher.subscribe(...args);
      if (sub.ok) listening();
      return sub;
    };
    // The built renderer (npm test builds first).
    host = await startHost({ dispatcher: { ...dispatcher, subscribe }, staticDir: path.resolve(import.meta.dirname, '../out/renderer'), port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(host.url);
    await page.getByRole('table', { name: 'Projects' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await ctx?.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  const open = async (url: string) => {
    await rendererListening;
    ctx.events.publish({ type: 'navigate', ...(await deepLinkTarget(url, (dir) => ctx.project(dir))) });
  };

  it('opens the project a link names', async () => {
    await open('memdir://project/-work-shop');
    await expect.poll(() => page.url().replace(/^[^#]*/, '')).toBe('#/p/-work-shop/memories');
  });

  it('says in the app that a linked project does not exist', async () => {
    await open('memdir://project/-work-gone');
    await page.getByText('Memdir cannot open memdir://project/-work-gone: There is no project "-work-gone"').waitFor();
    expect(page.url().replace(/^[^#]*/, '')).toBe('#/');
  });
});
