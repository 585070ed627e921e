/**
 * Dream now on the demo workspace, in real Chromium against the real headless host (offline
 * rules: no model needed): the gates → Dream now → live phase progress → the dream in the
 * history with its per-file diffs → revert → the dashboard's Dream column.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`dream${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const checkout = () => path.join(root, 'data', 'demo', 'claude-home', 'projects', '-demo-checkout-service', 'memory');

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-dream-'));
    // Offline: the deterministic rules consolidate, whatever model this machine could reach.
    await fs.mkdir(path.join(root, 'data'), { recursive: true });
    await fs.writeFile(path.join(root, 'data', 'settings.json'), JSON.stringify({ model: { provider: 'offline' } }));
    host = await startHost(['--home', path.join(root, 'no-home-yet'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('shows the gates of a project, each with its value', async () => {
    await page.goto(host.url);
    await page.getByRole('button', { name: 'Open demo workspace' }).first().click();
    await page.getByRole('button', { name: '/demo/checkout-service' }).click();
    await page.getByRole('button', { name: 'Dream', exact: true }).click();
    const gates = page.getByRole('table', { name: 'Gates' });
    await gates.waitFor();
    // The demo's checkout project has two sessions; five are needed.
    await expect
      .poll(() => gates.locator('tr[data-gate="sessions"]').textContent())
      .toMatch(/^Sessions since then25closed2 sessions so far — never dreamt, so every session counts.*; needs 5\.$/);
    expect(await gates.locator('tr[data-gate="time"]').textContent()).toContain('never dreamt');
    expect(await gates.locator('tr[data-gate="lock"]').textContent()).toContain('not checked');
    // Scheduled dreams are off in the demo (autoDreamEnabled unset): nothing promises a dream by itself.
    await page.getByText('No dream yet. Dream now to consolidate.', { exact: true }).waitFor();
  });

  it('dreams now: phase by phase, then the dream is in the history with its diffs', async () => {
    // Record every phase the bar shows: an offline dream of the demo takes about a second.
    // (A string: the e2e suite is type-checked without DOM types.)
    await page.evaluate(`(() => {
      const seen = new Set();
      window.phasesSeen = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('.phase-bar .phase.active')) seen.add(el.textContent || '');
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    })()`);
    await page.getByRole('button', { name: 'Dream now' }).click();
    const dreams = page.getByRole('list', { name: 'Dreams' });
    await dreams.getByRole('button').first().waitFor({ timeout: 30_000 });
    const phases = (await page.evaluate('[...window.phasesSeen]')) as string[];
    expect(phases.length).toBeGreaterThan(0);
    for (const p of phases) expect(['Orient', 'Gather', 'Consolidate', 'Prune', 'Apply']).toContain(p);
    await expect.poll(() => dreams.getByRole('button').first().textContent()).toMatch(/manual.*completed.*5 files/);

    const changed = page.getByRole('table', { name: 'Files changed' });
    await changed.getByRole('button', { name: 'feedback_no_db_mocks.md' }).waitFor();
    expect(await changed.textContent()).toMatch(/deletefeedback_no_db_mocks\.mdmerge/);
    expect(await changed.textContent()).toMatch(/updateproject_payment_incident\.mddates.*"yesterday" →/);
    // Per-file diffs.
    await page.getByRole('region', { name: 'Changes to feedback_no_db_mocks.md' }).waitFor();
    await page.getByRole('region', { name: 'Changes to project_payment_incident.md' }).waitFor();
    await changed.getByRole('button', { name: 'project_payment_incident.md' }).click();
    await expect.poll(() => page.getByRole('region', { name: /^Changes to / }).count()).toBe(1);
    await page.getByRole('heading', { name: /Diff of project_payment_incident\.md/ }).waitFor();
    const flags = page.getByRole('region', { name: 'For you to look at' });
    await flags.getByText(/project_freeze\.md.*has passed/).waitFor();
    await page.screenshot({ path: artifact('07-dream.png'), fullPage: true });

    const files = await fs.readdir(checkout());
    expect(files).not.toContain('feedback_no_db_mocks.md');
    const incident = await fs.readFile(path.join(checkout(), 'project_payment_incident.md'), 'utf8');
    expect(incident).not.toMatch(/yesterday|next Friday/);
    expect(incident).toMatch(/doubled some charges \d{4}-\d{2}-\d{2}\./);
    // The project's history has it as one entry.
    await page.getByRole('button', { name: 'History', exact: true }).click();
    const entry = page.getByRole('list', { name: 'History' }).getByRole('button').first();
    await expect.poll(() => entry.textContent()).toMatch(/^dreamdream \d{8}-\d{6}-[0-9a-f]{4}/);
  });

  it("at a laptop's 1024×700 the dream's tables stay inside its section (the Files changed table stuck out ~17 px)", async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByRole('button', { name: 'Dream', exact: true }).click();
    await page.getByRole('table', { name: 'Files changed' }).waitFor();
    await page.getByRole('region', { name: /^Dream \d/ }).screenshot({ path: artifact('07-dream-1024.png') });
    const out = await page.evaluate(`[...document.querySelectorAll('.dream-detail table, .dream table')].map((t) => {
      const box = t.closest('section') || t.parentElement;
      const r = t.getBoundingClientRect();
      const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
      return { table: t.getAttribute('aria-label') || t.className || box.getAttribute('aria-label'), right: r.right, edge, scrolls: document.scrollingElement.scrollWidth > innerWidth };
    })`);
    for (const t of out as { table: string; right: number; edge: number; scrolls: boolean }[]) {
      expect(t.right, `table "${t.table}" ends inside its section`).toBeLessThanOrEqual(t.edge + 0.5);
      expect(t.scrolls).toBe(false);
    }
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  it('reverts the dream: the pre-dream content comes back', async () => {
    await page.getByRole('button', { name: 'Dream', exact: true }).click();
    await page.getByRole('button', { name: 'Revert this dream' }).click();
    // Then where each pointer the dream dropped is back, in the one undo's words.
    await page
      .getByRole('status')
      .filter({ hasText: /^Reverted: 5 files put back\. The pointer to feedback_no_db_mocks\.md is back at line 6 of MEMORY\.md, where it was\./ })
      .waitFor();
    await page.getByText(/^Reverted just now: /).waitFor();
    expect(await fs.readdir(checkout())).toContain('feedback_no_db_mocks.md');
    expect(await fs.readFile(path.join(checkout(), 'project_payment_incident.md'), 'utf8')).toContain('doubled some charges yesterday');
    await expect.poll(() => page.getByRole('list', { name: 'Dreams' }).getByRole('button').first().textContent()).toMatch(/reverted/);
    await page.screenshot({ path: artifact('08-dream-reverted.png'), fullPage: true });
  });

  it('shows the last dream in the dashboard', async () => {
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    const row = page.getByRole('table', { name: 'Projects' }).locator('tr', { hasText: '/demo/checkout-service' });
    // Memdir dreams on a schedule only where autoDreamEnabled is on (R-DREAM-GATE: default off).
    await expect.poll(() => row.locator('.dream-cell').textContent()).toMatch(/scheduled dreams off.*last just now/);
    await page.screenshot({ path: artifact('09-dashboard-dream.png') });
    expect(errors).toEqual([]);
  });

  it('reads its dreams once per burst of memory changes, not once per file, and still shows a dream that ends', async () => {
    await page.getByRole('button', { name: '/demo/checkout-service' }).click();
    await page.getByRole('button', { name: 'Dream', exact: true }).click();
    const dreams = page.getByRole('list', { name: 'Dreams' });
    await dreams.getByRole('button').first().waitFor();
    const before = await dreams.getByRole('button').count();
    // Every dream.list the page asks the host, from now on.
    let reads = 0;
    const started = Date.now();
    page.on('request', (r) => {
      if (r.url().endsWith('/api/call') && (JSON.parse(r.postData() ?? '{}') as { name?: string }).name === 'dream.list') reads++;
    });
    // Another program writes 30 memories, one at a time: each is its own change event (the watcher settles in 120 ms).
    for (let i = 0; i < 30; i++) {
      await fs.writeFile(path.join(checkout(), `reference_note_${i}.md`), `---\nname: Note ${i}\ndescription: note ${i}\ntype: reference\n---\n\nnote ${i}\n`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 2_000));
    // Was one read per change (23 for these 30 files); now at most one a second, however slow the machine makes the writes.
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(reads, `dream.list was read ${reads} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);

    // A dream that ends is shown without a refresh, however the reads are spaced.
    await page.getByRole('button', { name: 'Dream now' }).click();
    await expect.poll(() => dreams.getByRole('button').count(), { timeout: 30_000 }).toBe(before + 1);
    expect(errors).toEqual([]);
  });
});
