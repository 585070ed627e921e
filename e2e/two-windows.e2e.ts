/**
 * Two windows on one memory (the headless host open in two tabs), in real Chromium (review x1
 * F6): drafts are kept per file, so the second window's draft must never silently replace the
 * first's. The second window is told, the first window's draft stays stored; "Keep mine instead"
 * keeps the second's, and then the first window is told in turn when it types again. A save in
 * one window leaves the other's draft stored, and the other window is told at once, as is an
 * idle window when another one starts a draft of its memory. The Drafts list of every other window
 * follows at once: a draft typed elsewhere appears, one saved or discarded elsewhere goes.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const DIR = '-work-two-windows';

describe.skipIf(!HAS_BROWSER)(`two windows on one memory${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let dataDir: string;
  let host: Host;
  let browser: Browser;
  let context: BrowserContext;
  const errors: string[] = [];

  let memory: string;
  /** The descriptions of the drafts stored on disk. */
  const stored = async (): Promise<string[]> => {
    const dir = path.join(dataDir, 'drafts');
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    return Promise.all(names.map(async (n) => (JSON.parse(await fs.readFile(path.join(dir, n), 'utf8')) as { description: string }).description));
  };

  const open = async (file = 'a.md'): Promise<Page> => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    await page.locator(`[data-file="${file}"][data-scope="private"]`).click();
    await page.getByRole('textbox', { name: /^Description/ }).waitFor();
    return page;
  };

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-windows-'));
    memory = path.join(root, 'home', 'projects', DIR, 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'a.md'), '---\nname: A\ndescription: alpha\ntype: feedback\n---\n\naaa\n');
    await fs.writeFile(path.join(memory, 'sql.md'), '---\nname: SQL\ndescription: queries\ntype: feedback\n---\n\nuse joins\n');
    await fs.writeFile(path.join(memory, 'b.md'), '---\nname: B\ndescription: beta\ntype: feedback\n---\n\nbbb\n');
    await fs.writeFile(path.join(memory, 'd.md'), '---\nname: D\ndescription: delta\ntype: feedback\n---\n\nddd\n');
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [A](a.md) — alpha\n- [SQL](sql.md) — queries\n- [B](b.md) — beta\n- [D](d.md) — delta\n');
    dataDir = path.join(root, 'data');
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', dataDir]);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  });
  // Each page holds a live event stream: Chromium opens at most 6 connections to one host.
  afterEach(async () => {
    for (const page of context.pages()) await page.close();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("the second window is told of the first's unsaved draft, which is never replaced unseen", async () => {
    const w1 = await open();
    const w2 = await open();
    await w1.getByRole('textbox', { name: /^Description/ }).fill('E1 typed in window 1');
    await expect.poll(stored).toEqual(['E1 typed in window 1']);

    await w2.getByRole('textbox', { name: /^Description/ }).fill('E2 typed in window 2');
    const told = w2.getByRole('alert').filter({ hasText: 'Another window has an unsaved draft of a.md' });
    await told.waitFor();
    expect(await stored()).toEqual(['E1 typed in window 1']);
    // Window 2 still shows what it typed.
    expect(await w2.getByRole('textbox', { name: /^Description/ }).inputValue()).toBe('E2 typed in window 2');

    // The person chooses window 2's: kept; window 1 is told in turn when it types again.
    await told.getByRole('button', { name: 'Keep mine instead' }).click();
    await expect.poll(stored).toEqual(['E2 typed in window 2']);
    await w1.getByRole('textbox', { name: /^Description/ }).fill('E1 typed in window 1, more');
    await w1.getByRole('alert').filter({ hasText: 'Another window has an unsaved draft of a.md' }).waitFor();
    expect(await stored()).toEqual(['E2 typed in window 2']);
    expect(errors).toEqual([]);
  });

  it("a save in one window leaves the other window's draft stored: closed and reopened, it is shown beside what was saved", async () => {
    const wB = await open('sql.md');
    const wA = await open('sql.md');
    const description = (page: Page) => page.getByRole('textbox', { name: /^Description/ });
    await description(wB).fill("B's careful edit");
    await expect.poll(stored).toContain("B's careful edit");
    // Window A, idle, hears of B's draft at once.
    await wA.getByRole('status').filter({ hasText: 'Another window has an unsaved draft of sql.md' }).waitFor();

    await description(wA).fill("A's saved edit");
    // B's window is closed (or reloaded) with its draft stored, then A saves: B's draft stays.
    await wB.close();
    await wA.getByRole('button', { name: 'Save', exact: true }).click();
    await wA.getByText('Saved sql.md.').waitFor();
    expect(await fs.readFile(path.join(memory, 'sql.md'), 'utf8')).toContain("description: A's saved edit");
    expect(await stored()).toContain("B's careful edit");

    // Reopened, B's draft is there, beside what A saved: keep it, or take A's.
    const again = await open('sql.md');
    expect(await description(again).inputValue()).toBe("B's careful edit");
    const conflict = again.getByRole('region', { name: 'Conflict' });
    await conflict.waitFor();
    expect(await conflict.textContent()).toContain("description: A's saved edit");
    await conflict.getByRole('button', { name: 'Keep mine (save over it)' }).click();
    await again.getByText('Saved sql.md.').waitFor();
    expect(await fs.readFile(path.join(memory, 'sql.md'), 'utf8')).toContain("description: B's careful edit");
    expect(errors).toEqual([]);
  });

  it('an idle window on a memory is told at once when another window drafts or saves it, not silently replaced', async () => {
    const w1 = await open('b.md');
    const w2 = await open('b.md');
    const description = (page: Page) => page.getByRole('textbox', { name: /^Description/ });
    await description(w1).fill('beta, edited in window 1');
    await w2.getByRole('status').filter({ hasText: 'Another window has an unsaved draft of b.md' }).waitFor();
    expect(await description(w2).inputValue()).toBe('beta');

    await w1.getByRole('button', { name: 'Save', exact: true }).click();
    await w1.getByText('Saved b.md.').waitFor();
    await w2.getByRole('status').filter({ hasText: 'b.md was just changed in another window or by another program' }).waitFor();
    await expect.poll(() => description(w2).inputValue()).toBe('beta, edited in window 1');

    // Window 2 edits and leaves it; window 1 saves again: window 2 is shown both versions at once.
    await description(w2).fill('beta, from window 2');
    await expect.poll(stored).toContain('beta, from window 2');
    await w1.getByRole('status').filter({ hasText: 'Another window has an unsaved draft of b.md' }).waitFor();
    await description(w1).fill('beta, again from window 1');
    await w1.getByRole('button', { name: 'Save', exact: true }).click();
    await w1.getByText('Saved b.md.').waitFor();
    await w2.getByRole('region', { name: 'Conflict' }).waitFor();
    expect(await description(w2).inputValue()).toBe('beta, from window 2');
    expect(await stored()).toContain('beta, from window 2');
    expect(errors).toEqual([]);
  });

  it("another window's Drafts list follows at once: a draft typed elsewhere appears, one saved or discarded elsewhere goes", async () => {
    const listed = async (): Promise<Page> => {
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(host.url);
      await page.getByRole('button', { name: /^Drafts/ }).click();
      await page.getByRole('heading', { name: 'Drafts' }).waitFor();
      return page;
    };
    const list = await listed();
    const row = (page: Page, file: string) => page.getByRole('list', { name: 'Drafts' }).locator('li', { hasText: file });
    /** The sidebar's count of drafts (no badge: none). */
    const count = async (page: Page): Promise<number> => {
      const badge = page.getByRole('button', { name: /^Drafts/ }).getByLabel(/unsaved$/);
      return (await badge.count()) ? Number(await badge.textContent()) : 0;
    };
    expect(await row(list, 'd.md').count()).toBe(0);

    // Another window drafts d.md: the list here shows it without being asked again.
    const editing = await open('d.md');
    await editing.getByRole('textbox', { name: /^Description/ }).fill('delta, drafted in another window');
    await expect.poll(stored).toContain('delta, drafted in another window');
    await row(list, 'd.md').waitFor();
    const before = await count(list);

    // It saves there: the draft goes from the list here, and from the sidebar's count.
    await editing.getByRole('button', { name: 'Save', exact: true }).click();
    await editing.getByText('Saved d.md.').waitFor();
    await row(list, 'd.md').waitFor({ state: 'detached' });
    await expect.poll(() => count(list)).toBe(before - 1);

    // Drafted again there, then discarded from a third window's Drafts list: it goes from this one too.
    await editing.getByRole('textbox', { name: /^Description/ }).fill('delta, drafted again');
    await row(list, 'd.md').waitFor();
    const other = await listed();
    await other.getByRole('button', { name: 'Discard the draft of d.md' }).click();
    await other.getByText('Discarded the draft of d.md.').waitFor();
    await row(list, 'd.md').waitFor({ state: 'detached' });
    expect(await stored()).not.toContain('delta, drafted again');
    expect(errors).toEqual([]);
  });
});
