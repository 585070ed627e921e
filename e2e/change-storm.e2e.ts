/**
 * A burst of memory changes made outside (Claude Code, a dream, `git pull` in personal sync)
 * reads the open project and the dashboard once per burst, not once per change, in real Chromium
 * against the real headless host; and the page still ends on the last change, one that arrives
 * while a read is under way included (its answer, older than the change, does not have the last word).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topic } from '../src/main/relink/test-support/moved-project.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const DIR = '-work-shop';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!HAS_BROWSER)(`a burst of memory changes${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  /** The page's reads of the host, by call name, since `count` was last called. */
  let reads: Record<string, number> = {};
  const count = () => (reads = {});

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-storm-'));
    memory = path.join(root, 'home', 'projects', DIR, 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [No ORM](feedback_sql.md) — write SQL by hand\n');
    await fs.writeFile(path.join(memory, 'feedback_sql.md'), topic('No ORM', 'feedback', 'Write SQL by hand.'));
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().endsWith('/api/call')) return;
      const name = (JSON.parse(r.postData() ?? '{}') as { name?: string }).name ?? '?';
      reads[name] = (reads[name] ?? 0) + 1;
    });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** Another program writes `n` memories one at a time: each is its own change event (the watcher settles in 120 ms). Returns the seconds it took. */
  async function burst(prefix: string, n: number): Promise<number> {
    const started = Date.now();
    for (let i = 0; i < n; i++) {
      await fs.writeFile(path.join(memory, `reference_${prefix}_${i}.md`), topic(`${prefix} ${i}`, 'reference', `${prefix} ${i}`));
      await sleep(200);
    }
    await sleep(2_000);
    return Math.ceil((Date.now() - started) / 1000);
  }

  const memories = () => page.getByRole('listbox', { name: 'Memories' });
  const projects = () => page.getByRole('table', { name: 'Projects' });

  it('reads the open project and the projects once per burst, and shows the last memory written', async () => {
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    await memories().getByText('No ORM', { exact: true }).waitFor();
    await sleep(1_500);
    count();
    const seconds = await burst('project', 20);
    // Was one read of each per change (20 each); now at most one a second, however slow the machine makes the writes.
    expect(reads['projects.get'] ?? 0, `projects.get was read ${reads['projects.get']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    expect(reads['projects.list'] ?? 0, `projects.list was read ${reads['projects.list']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    await memories().getByText('project 19', { exact: true }).waitFor({ timeout: 5_000 });
    expect(errors).toEqual([]);
  });

  it('reads the dashboard once per burst, and shows the last count', async () => {
    await page.goto(host.url);
    await projects().getByText('21 private').waitFor();
    await sleep(1_500);
    count();
    const seconds = await burst('dashboard', 20);
    expect(reads['projects.list'] ?? 0, `projects.list was read ${reads['projects.list']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    // The project opened last is kept as it is now (the page opens on it), once per burst too.
    expect(reads['projects.get'] ?? 0, `projects.get was read ${reads['projects.get']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    await projects().getByText('41 private').waitFor({ timeout: 5_000 });
    expect(errors).toEqual([]);
  });

  /**
   * Holds the first answer of `name` the page asks for after this call: read from the host at once
   * (so it is older than what the test writes next) and handed to the page when `release` is called.
   */
  async function holdFirst(name: string): Promise<{ asked: Promise<void>; release: () => Promise<void> }> {
    let held: Route | null = null;
    let answer: Awaited<ReturnType<Route['fetch']>> | null = null;
    let onAsked: () => void = () => undefined;
    const asked = new Promise<void>((r) => (onAsked = r));
    await page.route('**/api/call', async (route) => {
      const body = route.request().postDataJSON() as { name?: string } | null;
      if (held || body?.name !== name) return route.continue();
      held = route;
      answer = await route.fetch();
      onAsked();
    });
    return {
      asked,
      release: async () => {
        await held!.fulfill({ response: answer! });
        await page.unroute('**/api/call');
      },
    };
  }

  it('shows a change that arrived while a read was under way, after that read', async () => {
    for (const [name, view, shows] of [
      ['projects.list', () => page.goto(host.url), (n: number) => projects().getByText(`${n} private`)],
      ['projects.get', () => page.goto(`${host.url}#/p/${DIR}/memories`), (n: number) => page.getByText(`${n} memories · `)],
    ] as const) {
      await view();
      await sleep(1_500);
      const before = (await fs.readdir(memory)).filter((f) => f !== 'MEMORY.md').length;
      const { asked, release } = await holdFirst(name);
      // A change: the page reads; its answer is held, read from the host before the next change.
      await fs.writeFile(path.join(memory, `reference_during_${before + 1}.md`), topic(`during ${before + 1}`, 'reference', 'first'));
      await asked;
      await fs.writeFile(path.join(memory, `reference_during_${before + 2}.md`), topic(`during ${before + 2}`, 'reference', 'second'));
      // Its event reaches the page while the read is under way.
      await sleep(1_000);
      await release();
      // The held answer (without the second memory) is not the last word.
      await sleep(500);
      await expect.poll(() => shows(before + 2).count(), { timeout: 5_000 }).toBe(1);
    }
    expect(errors).toEqual([]);
  });

  it('shows an edit made in the app at once, even right after an outside change was read', async () => {
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    await page.locator('[data-file="feedback_sql.md"][data-scope="private"]').click();
    const description = page.getByRole('textbox', { name: /^Description/ });
    await description.waitFor();
    await description.fill('edited in the app');
    await sleep(1_500);
    // An outside change is read at once: another one now would wait for the second to be over.
    const read = page.waitForRequest((r) => r.url().endsWith('/api/call') && r.postDataJSON()?.name === 'projects.get');
    await fs.writeFile(path.join(memory, 'reference_outside.md'), topic('outside', 'reference', 'outside'));
    await read;
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved feedback_sql.md.').waitFor();
    const saved = Date.now();
    await memories().getByText('edited in the app').waitFor();
    // The person's own edit is not held back with the outside burst (that would be up to a second).
    expect(Date.now() - saved).toBeLessThan(600);
    expect(errors).toEqual([]);
  });
});
