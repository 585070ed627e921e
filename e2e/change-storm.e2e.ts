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

  /** The file open in the editor, as another program writes it: version `n` of its body. */
  const sqlVersion = (n: number) => topic('No ORM', 'feedback', `Write SQL by hand (version ${n}).`);
  const editorForm = () => page.getByRole('form', { name: 'Edit feedback_sql.md' });

  /** Another program writes the open file `n` times, one change event each; returns the seconds it took. */
  async function burstOnOpenFile(from: number, n: number): Promise<number> {
    const started = Date.now();
    for (let i = from; i < from + n; i++) {
      await fs.writeFile(path.join(memory, 'feedback_sql.md'), sqlVersion(i));
      await sleep(200);
    }
    await sleep(2_000);
    return Math.ceil((Date.now() - started) / 1000);
  }

  it("reads the editor's open file once per burst of outside writes, and shows its last bytes", async () => {
    await page.goto(`${host.url}#/p/${DIR}/memories/private/feedback_sql.md`);
    const body = editorForm().getByLabel('Memory body');
    await body.waitFor();
    await sleep(1_500);
    count();
    const seconds = await burstOnOpenFile(1, 20);
    // Was one read of the file per change event (20); now at most one a second.
    expect(reads['memories.read'] ?? 0, `memories.read was read ${reads['memories.read']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    await expect.poll(() => body.textContent(), { timeout: 5_000 }).toContain('(version 20)');
    expect(errors).toEqual([]);
  });

  it("never lets an older read of the editor's file have the last word over a newer one", async () => {
    await page.goto(`${host.url}#/p/${DIR}/memories/private/feedback_sql.md`);
    const body = editorForm().getByLabel('Memory body');
    await body.waitFor();
    await sleep(1_500);
    const { asked, release } = await holdFirst('memories.read');
    await fs.writeFile(path.join(memory, 'feedback_sql.md'), sqlVersion(101));
    // Its read is answered with version 101 (held); the file is then written again.
    await asked;
    await fs.writeFile(path.join(memory, 'feedback_sql.md'), sqlVersion(102));
    await sleep(1_000);
    await release();
    await sleep(1_500);
    await expect.poll(() => body.textContent(), { timeout: 5_000 }).toContain('(version 102)');
    // And it stays there: no late answer replaces it.
    await sleep(1_000);
    expect(await body.textContent()).toContain('(version 102)');
    expect(errors).toEqual([]);
  });

  it('keeps an edit being typed through a burst of outside writes: both versions shown, the last one on disk', async () => {
    await page.goto(`${host.url}#/p/${DIR}/memories/private/feedback_sql.md`);
    const form = editorForm();
    const body = form.getByLabel('Memory body');
    await body.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Mine, typed here.');
    await sleep(1_500);
    count();
    // The person keeps typing while the burst goes on.
    const typing = (async () => {
      for (let i = 0; i < 10; i++) {
        await page.keyboard.type(` k${i}`);
        await sleep(300);
      }
    })();
    const seconds = await burstOnOpenFile(201, 20);
    await typing;
    expect(reads['memories.read'] ?? 0, `memories.read was read ${reads['memories.read']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    const conflict = form.getByRole('region', { name: 'Conflict' });
    await expect.poll(() => conflict.textContent(), { timeout: 5_000 }).toContain('(version 220)');
    expect(await body.textContent()).toContain('Mine, typed here. k0 k1 k2 k3 k4 k5 k6 k7 k8 k9');
    // Nothing was written over the other program's last version.
    expect(await fs.readFile(path.join(memory, 'feedback_sql.md'), 'utf8')).toBe(sqlVersion(220));
    // Take theirs: the editor shows the last bytes on disk, and the next test starts clean.
    await conflict.getByRole('button', { name: /Take theirs/ }).click();
    await expect.poll(() => body.textContent()).toContain('(version 220)');
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
