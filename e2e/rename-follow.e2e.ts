/**
 * A memory open in the editor that a recorded change renames away (review s39): the rename's
 * Undo in the same window, a rename made in another window, Claude Code moving the file. Before,
 * each left the editor on the old name saying "deleted on disk while it was open", with a draft
 * of an unedited memory added to Drafts; the memory had only changed its name. Now the editor
 * follows it to its name, with an edit not yet saved carried along, and keeps no draft of its own.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const DIR = '-work-rename-follow';
const topic = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\ntype: feedback\n---\n\n${body}\n`;

describe.skipIf(!HAS_BROWSER)(`the editor follows a memory renamed while it is open${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let dataDir: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let context: BrowserContext;
  const errors: string[] = [];

  /** The files of the drafts stored on disk. */
  const stored = async (): Promise<string[]> => {
    const dir = path.join(dataDir, 'drafts');
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    return Promise.all(names.map(async (n) => (JSON.parse(await fs.readFile(path.join(dir, n), 'utf8')) as { file: string | null }).file ?? 'new'));
  };
  const heading = (page: Page) => page.locator('.editor-head h2').textContent();
  const open = async (file: string): Promise<Page> => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    await page.locator(`[data-file="${file}"][data-scope="private"]`).click();
    await page.getByRole('textbox', { name: /^Description/ }).waitFor();
    return page;
  };

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-rename-follow-'));
    memory = path.join(root, 'home', 'projects', DIR, 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'a.md'), topic('A', 'alpha', 'aaa'));
    await fs.writeFile(path.join(memory, 'b.md'), topic('B', 'beta', 'bbb'));
    await fs.writeFile(path.join(memory, 'c.md'), topic('C', 'gamma', 'ccc'));
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [A](a.md) — alpha\n- [B](b.md) — beta\n- [C](c.md) — gamma\n');
    dataDir = path.join(root, 'data');
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', dataDir]);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1024, height: 700 } });
  });
  afterEach(async () => {
    for (const page of context.pages()) await page.close();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("a rename, then its Undo: both windows follow the memory to each name, no 'deleted on disk', no draft", async () => {
    const w1 = await open('a.md');
    const w2 = await open('a.md');
    await w1.bringToFront();
    await w1.getByRole('button', { name: 'Rename', exact: true }).click();
    await w1.getByLabel('New file name').fill('a-renamed.md');
    await w1.keyboard.press('Enter');
    const toast = w1.getByRole('status').filter({ hasText: 'Renamed to a-renamed.md.' });
    await toast.waitFor();
    // The other window was on a.md: it shows the memory under its new name.
    await expect.poll(() => heading(w2)).toBe('a-renamed.md');
    expect(await w2.getByRole('region', { name: 'Deleted on disk' }).count()).toBe(0);

    await toast.getByRole('button', { name: 'Undo' }).click();
    await w1.getByRole('status').filter({ hasText: 'Undone.' }).waitFor();
    expect(await fs.readFile(path.join(memory, 'a.md'), 'utf8')).toBe(topic('A', 'alpha', 'aaa'));
    // Before: "a-renamed.md was deleted on disk while it was open. Your version is kept…", and a draft.
    for (const page of [w1, w2]) {
      await expect.poll(() => heading(page)).toBe('a.md');
      expect(await page.getByRole('region', { name: 'Deleted on disk' }).count()).toBe(0);
      expect(await page.getByText('deleted on disk while it was open').count()).toBe(0);
      expect(await page.getByRole('textbox', { name: /^Description/ }).inputValue()).toBe('alpha');
    }
    await w2.waitForTimeout(500);
    expect(await stored()).toEqual([]);
    expect((await w1.getByRole('button', { name: /^Drafts/ }).textContent())?.trim()).toBe('Drafts');
    expect(errors).toEqual([]);
  });

  it('Claude Code moves the open file: the editor follows it, the edit not yet saved goes along', async () => {
    const w1 = await open('b.md');
    await w1.getByRole('textbox', { name: /^Description/ }).fill('beta, typed');
    await expect.poll(stored).toEqual(['b.md']);
    // Claude Code, in a session meanwhile: `mv b.md b-moved.md`.
    await fs.rename(path.join(memory, 'b.md'), path.join(memory, 'b-moved.md'));
    await expect.poll(() => heading(w1)).toBe('b-moved.md');
    expect(await w1.getByRole('region', { name: 'Deleted on disk' }).count()).toBe(0);
    expect(await w1.getByRole('textbox', { name: /^Description/ }).inputValue()).toBe('beta, typed');
    await expect.poll(stored).toEqual(['b-moved.md']);
    expect(await w1.getByRole('status', { name: 'Changed elsewhere' }).textContent()).toContain('b.md was renamed to b-moved.md');
    expect(errors).toEqual([]);
  });

  it('a delete in another window, then its Undo: the window that had it open shows it again and keeps no draft of it', async () => {
    const w2 = await open('c.md');
    const w1 = await open('c.md');
    const draftsBefore = (await w2.getByRole('button', { name: /^Drafts/ }).textContent())?.trim();
    await w1.getByRole('button', { name: 'Delete', exact: true }).click();
    await w1.getByRole('button', { name: 'Delete', exact: true }).last().click();
    const toast = w1.getByRole('status').filter({ hasText: 'Deleted c.md.' });
    await toast.waitFor();
    await w2.getByRole('region', { name: 'Deleted on disk' }).waitFor();
    await toast.getByRole('button', { name: 'Undo' }).click();
    await w1.getByRole('status').filter({ hasText: 'Undone.' }).waitFor();
    await expect.poll(() => w2.getByRole('region', { name: 'Deleted on disk' }).count()).toBe(0);
    expect(await w2.getByRole('textbox', { name: /^Description/ }).inputValue()).toBe('gamma');
    // Before: the window showed c.md as it is again, but the draft of it, never edited, stayed under Drafts.
    await expect.poll(stored).not.toContain('c.md');
    await expect.poll(async () => (await w2.getByRole('button', { name: /^Drafts/ }).textContent())?.trim()).toBe(draftsBefore);
    expect(errors).toEqual([]);
  });

  it('a whole-snapshot restore over a rename says as many files as its confirmation did (a rename is two names)', async () => {
    const page = await open('a.md');
    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByLabel('New file name').fill('a-later.md');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Renamed to a-later.md.' }).waitFor();
    await page.goto(`${host.url}#/p/${DIR}/history`);
    // The point before the rename: the entry that made c.md come back.
    await page
      .getByRole('button', { name: /^restore\s+Undo: Delete c\.md/ })
      .first()
      .click();
    await page.getByRole('button', { name: 'Restore whole snapshot…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore the whole snapshot?' });
    const confirm = dialog.getByRole('button', { name: /^Restore \d+ files$/ });
    const planned = /\d+/.exec((await confirm.textContent()) ?? '')![0];
    await confirm.click();
    // Before: "Restore 2 files", then "Restored the whole snapshot: 1 file changed." (the rename counted once).
    await page
      .getByRole('status')
      .filter({ hasText: `Restored the whole snapshot: ${planned} files changed.` })
      .waitFor();
    expect(await fs.readFile(path.join(memory, 'a.md'), 'utf8')).toBe(topic('A', 'alpha', 'aaa'));
    expect(errors).toEqual([]);
  });
});
