/**
 * A big project, used as a person would, in real Chromium at 1024×700 against the real headless
 * host: 1,200 realistic memories (bench/corpus.ts, long Chinese and emoji names among them) and a
 * 24 KB MEMORY.md. The list renders only the rows in view; every memory selected (Home, Space,
 * Shift+End) changes type in one action, and its one Undo brings every file back byte for byte;
 * History says it is reading while it reads, never "No history yet" over a history it has not read.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMemory, indexFor, loadCorpus } from '../bench/corpus.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

/** Over the 1,000 a bulk action once took: the project a select-all of a big home makes. */
const MEMORIES = 1_200;
const REAL_PATH = '/work/客户端项目 很长的名字 🚀 big';
const DIR = REAL_PATH.replace(/[^A-Za-z0-9]/g, '-');
const LONG_NAME = '部署流程与回滚注意事项：先跑集成测试再合并到主干，别跳过灰度发布 🚀🔥✅';

describe.skipIf(!HAS_BROWSER)(`a project of ${MEMORIES} memories${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  /** Every memory file's bytes as written, by name. */
  const written = new Map<string, Buffer>();

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-big-'));
    const project = path.join(root, 'home', 'projects', DIR);
    memory = path.join(project, 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(
      path.join(project, '00000000-0000-4000-8000-000000000001.jsonl'),
      `${JSON.stringify({ type: 'user', cwd: REAL_PATH, sessionId: '00000000-0000-4000-8000-000000000001', version: '2.1.332', message: { role: 'user', content: 'hi' }, uuid: 'u1', timestamp: '2026-03-01T09:00:00.000Z' })}\n`,
    );
    const corpus = loadCorpus();
    const memories = Array.from({ length: MEMORIES }, (_, i) => {
      const m = generateMemory(corpus, 17, i);
      // One in seven with a long Chinese and emoji name, as people write them.
      if (i % 7 !== 3 || !/^\uFEFF?---\r?\nname:/.test(m.text)) return m;
      const title = `${LONG_NAME} ${i}`;
      return { ...m, title, text: m.text.replace(/^(\uFEFF?---\r?\n)name:[^\r\n]*/, `$1name: "${title}"`) };
    });
    for (const m of memories) {
      await fs.writeFile(path.join(memory, m.file), m.text);
      written.set(m.file, Buffer.from(m.text));
    }
    // A 24 KB index: as many pointers as fit, as Claude Code's own index of a big project.
    let index = '';
    for (const line of indexFor(corpus, 17, memories).split('\n')) {
      if (Buffer.byteLength(`${index}${line}\n`) > 24_000) break;
      index += `${line}\n`;
    }
    await fs.writeFile(path.join(memory, 'MEMORY.md'), index);
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  const list = () => page.getByRole('listbox', { name: 'Memories' });
  const rowsInDom = () => page.locator('[role="option"][data-file]').count();

  it('renders only the rows in view, scrolled to the end too', async () => {
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    await expect.poll(() => page.locator('.list-count').textContent(), { timeout: 60_000 }).toContain(`${MEMORIES.toLocaleString('en-US')} memories`);
    expect(await rowsInDom()).toBeLessThan(40);
    await list().focus();
    await page.keyboard.press('End');
    await expect.poll(() => page.locator('[role="option"][data-file]').last().getAttribute('aria-label')).not.toBeNull();
    expect(await rowsInDom()).toBeLessThan(40);
    await page.keyboard.press('Home');
  });

  it('changes the type of every memory selected in one action, and its one Undo brings every file back as it was', async () => {
    await list().focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Space');
    await page.keyboard.press('Shift+End');
    await page.getByText(`${MEMORIES.toLocaleString('en-US')} memories selected`).waitFor();
    await page.getByRole('combobox', { name: 'Change the type of the selected memories' }).selectOption('reference');
    // While it runs (a minute for thousands on a busy machine) the bar says so and takes no second click.
    const bar = page.getByRole('toolbar', { name: 'Selected memories' });
    await bar.getByText(`Changing the type of ${MEMORIES.toLocaleString('en-US')} memories to reference…`).waitFor({ timeout: 5_000 });
    expect(await bar.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
    // Was: "The selection has 1,200 items; a selection can have at most 1,000 items." — nothing changed.
    const done = page.locator('.toast', { hasText: /^Changed to reference: [\d,]+ memories/ });
    await done.waitFor({ timeout: 120_000 });
    const changed = async () => {
      let n = 0;
      for (const [file, bytes] of written) if (!bytes.equals(await fs.readFile(path.join(memory, file)))) n++;
      return n;
    };
    expect(await changed()).toBeGreaterThan(MEMORIES / 2);
    // The few left (frontmatter that cannot be read) are grouped by reason, each file named — was: every
    // sentence in one long line of the notice.
    expect(await done.locator('.toast-body > span').textContent()).toMatch(/ [\d,]+ memories left as they were, for one reason\.$/);
    await done.getByRole('button', { name: 'Show which and why' }).click();
    const why = done.locator('.toast-details li');
    expect(await why.count()).toBe(1);
    expect(await why.first().textContent()).toMatch(/^Its frontmatter cannot be read; open it to repair it first \(\d+\): [^ ]+\.md(, [^ ]+\.md)+$/);
    await done.getByRole('button', { name: 'Undo' }).click();
    // Was: the undo read each file's two versions from history with six git runs, one after another —
    // minutes for a thousand memories, with nothing said; the person took it as lost.
    await page.locator('.toast', { hasText: /^Undone\./ }).waitFor({ timeout: 90_000 });
    expect(await changed()).toBe(0);
    expect(errors).toEqual([]);
  }, 300_000);

  it('says History is being read while it is, not that there is none', async () => {
    let held: Route | null = null;
    let asked: () => void = () => undefined;
    const askedFor = new Promise<void>((r) => (asked = r));
    await page.route('**/api/call', async (route) => {
      if ((route.request().postDataJSON() as { name?: string } | null)?.name !== 'history.list' || held) return route.continue();
      held = route;
      asked();
    });
    await page.goto(`${host.url}#/p/${DIR}/history`);
    await askedFor;
    await page.waitForTimeout(500);
    expect(await page.getByText(/^No history yet/).count()).toBe(0);
    await page.getByText('Reading the history…').waitFor();
    await held!.continue();
    await page.unroute('**/api/call');
    await page
      .getByRole('list', { name: 'History' })
      .getByText(/^Undo: Change the type of [\d,]+ memories to reference/)
      .waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
  });
});
