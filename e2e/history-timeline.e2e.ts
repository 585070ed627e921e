/**
 * The History view's timeline with one change (session 39, GUI review at 1024×700): the axis ran
 * "Jan 2027 … Oct 2029" for a single December 2026 point — uPlot's own span for one point is 1000
 * days after it. The axis must hold the point, and its labels around the point name its month, in
 * the viewer's time zone (here Auckland, half a day ahead of UTC).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const TZ = 'Pacific/Auckland';

describe.skipIf(!HAS_BROWSER)(`the history timeline${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-timeline-'));
    memory = path.join(root, 'home', 'projects', '-work-timeline', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '');
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1024, height: 700 }, timezoneId: TZ });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('one change: the axis holds its point, and the labels around it name its month', async () => {
    await page.goto(`${host.url}#/p/-work-timeline/history`);
    await page.getByRole('heading', { name: '-work-timeline' }).waitFor({ timeout: 20_000 });
    const before = Date.now();
    await fs.writeFile(path.join(memory, 'deploy.md'), '---\nname: Deploy steps\ndescription: How we deploy\ntype: project\n---\n\nShip.\n');
    await page.getByText('Changes made outside Memdir').first().waitFor({ timeout: 20_000 });
    const after = Date.now();
    const chart = page.getByRole('region', { name: 'Timeline' }).getByRole('img', { name: /^Memories and MEMORY.md lines over 1 change/ });
    await expect.poll(() => chart.getAttribute('data-axis-labels')).toBeTruthy();
    await page.screenshot({ path: artifact('history-timeline.png') });
    const axis = await chart.evaluate((el) => ({ ...el.dataset }));
    const from = Date.parse(axis.axisFrom!);
    const to = Date.parse(axis.axisTo!);
    // The point (written between `before` and `after`) lies inside the axis, not at or past its edge.
    expect(from, `axis ${axis.axisFrom} … ${axis.axisTo}`).toBeLessThan(before);
    expect(to, `axis ${axis.axisFrom} … ${axis.axisTo}`).toBeGreaterThan(after);
    expect(to - from, 'a single change is drawn over a day, not years').toBeLessThanOrEqual(2 * 86_400_000);
    // …and the labels name the point's month (in the viewer's time zone).
    const month = new Intl.DateTimeFormat('en-US', { month: 'short', timeZone: TZ }).format(before);
    expect(axis.axisLabels).toContain(month);
  });
});
