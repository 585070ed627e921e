/** The app as the e2e suite opens it: the headless host on a free port and one Chromium page on its dashboard. */
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { type Host, startHost } from './host.js';

/**
 * Starts the host with `args` (and `env`), opens a 1360×900 page on it and collects the page's
 * uncaught errors into `errors`, for the test to assert there are none.
 */
export async function openApp(args: string[], errors: string[], env?: NodeJS.ProcessEnv): Promise<{ host: Host; browser: Browser; page: Page }> {
  const host = await startHost(args, env);
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(host.url);
  return { host, browser, page };
}
