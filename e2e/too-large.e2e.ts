/**
 * A topic file over the size limit (1 MB), in real Chromium against the real headless host: Claude
 * Code still offers it to recall, so the list shows it — marked too large, with its size — counts
 * it, and it can be renamed and deleted (Undo as always). Checked on disk, not only on screen.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const DIR = '-work-enc';
const BIG = `---\nname: Big\ndescription: big file\ntype: reference\n---\n${'x'.repeat(1_300_000)}\n`;
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe.skipIf(!HAS_BROWSER)(`a memory over the size limit${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const exists = (file: string) =>
    fs.access(path.join(memory, file)).then(
      () => true,
      () => false,
    );

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-big-'));
    memory = path.join(root, 'home', 'projects', DIR, 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'big.md'), BIG);
    for (const f of ['one', 'two']) await fs.writeFile(path.join(memory, `${f}.md`), `---\nname: ${f}\ndescription: about ${f}\ntype: user\n---\n${f}\n`);
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Big](big.md) — big file\n- [one](one.md) — about one\n- [two](two.md) — about two\n');
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${host.url}#/p/${DIR}/memories`);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('lists it marked too large with its size, and counts it', async () => {
    const row = page.locator('[data-file="big.md"]');
    await row.waitFor({ timeout: 30_000 });
    await row.getByText('too large: 1.3 MB').waitFor();
    await row.getByText('big file').waitFor();
    await eventually(() => page.locator('.list-count').textContent()).toContain('3 memories');
  });

  it('deletes it from the list, and Undo brings it back whole', async () => {
    await page.locator('[data-file="big.md"]').click({ modifiers: ['Control'] });
    const bar = page.getByRole('toolbar', { name: 'Selected memories' });
    await bar.getByRole('button', { name: 'Delete' }).click();
    await bar.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Deleted 1 memory.' });
    await toast.waitFor();
    expect(await exists('big.md')).toBe(false);
    await toast.getByRole('button', { name: 'Undo' }).click();
    await eventually(() => exists('big.md')).toBe(true);
    expect(await fs.readFile(path.join(memory, 'big.md'), 'utf8')).toBe(BIG);
    await page.locator('[data-file="big.md"]').getByText('too large: 1.3 MB').waitFor();
    expect(errors).toEqual([]);
  });

  it('renames it from where it says why it does not open: the file keeps every byte and its pointer follows', async () => {
    await page
      .getByRole('toolbar', { name: 'Selected memories' })
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    const rename = async (from: string, to: string) => {
      await page.locator(`[data-file="${from}"]`).click();
      await page.getByRole('alert').filter({ hasText: 'too large for a memory' }).waitFor();
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByLabel('New file name').fill(to);
      await page.getByRole('button', { name: 'Rename' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Renamed to ${to}.` })
        .waitFor();
      await eventually(() => exists(from)).toBe(false);
      expect(await fs.readFile(path.join(memory, to), 'utf8')).toBe(BIG);
      expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toContain(`- [Big](${to}) — big file`);
    };
    await rename('big.md', 'reference_big.md');
    await page.locator('[data-file="reference_big.md"]').getByText('too large: 1.3 MB').waitFor();
    await rename('reference_big.md', 'big.md');
    expect(errors).toEqual([]);
  });

  it('says why it does not open, and deletes it from there too', async () => {
    await page
      .getByRole('toolbar', { name: 'Selected memories' })
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    await page.locator('[data-file="big.md"]').click();
    await page.getByRole('alert').filter({ hasText: 'too large for a memory' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted big.md' }).waitFor();
    expect(await exists('big.md')).toBe(false);
    expect(errors).toEqual([]);
  });
});
