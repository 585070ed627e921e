/**
 * A user's review of the app by keyboard and screen reader (session 40), in real Chromium against
 * the real headless host at a laptop's 1024×700, on a copy of real memory directories: every step
 * by keyboard only (Tab, Enter, Space, Escape, arrows, Ctrl+K, Ctrl+S), and axe-core run in the
 * page on the main views, light and dark. Found: a closed question or dialog left the focus on the
 * page's body (Keep, Cancel, Escape); Escape did not close the delete and save-anyway questions;
 * the palette let Tab out behind it and its highlighted match was silent; a memory opened with
 * Enter left the focus in the list; Tab could not leave the memory body; the sidebar did not say
 * which view is open; chip text and "ok" green were under 4.5:1; scrolling boxes took no focus.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_SHARED_FIXTURES, sharedMemoryFixtures } from '../src/main/memdir/test-support/shared-fixtures.js';
import { axeFindings } from './support/axe.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const CLAWS = '-work-ab0t-com__claws';
const FIXTURES = ['ab0t-com__claws', 'albert821107__life_manage'];
const SHARED = sharedMemoryFixtures();
const SKIP = !HAS_BROWSER ? MISSING_BROWSER : !SHARED ? NO_SHARED_FIXTURES : null;

/** The focused element as a screen reader would name it, and whether it sits in a dialog or question. */
interface Focused {
  name: string;
  role: string;
  /** The dialog or question it is in (its label), or null. */
  within: string | null;
  /** The labelled list it is in, or null. */
  list: string | null;
}

// Runs in the page (as text: this suite's TypeScript has no DOM types).
const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return { name: '(page body)', role: '', within: null, list: null };
  const box = el.closest('[role="dialog"], [role="alertdialog"], [role="group"]');
  return {
    name: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim(),
    role: el.getAttribute('role') ?? el.tagName.toLowerCase(),
    within: box?.getAttribute('aria-label') ?? box?.getAttribute('aria-labelledby') ?? null,
    list: el.closest('ol[aria-label], ul[aria-label]')?.getAttribute('aria-label') ?? null,
  };
})()`;

function focused(page: Page): Promise<Focused> {
  return page.evaluate(FOCUSED) as Promise<Focused>;
}

/** Press Tab (or Shift+Tab) until the focused control is named `name`: how a keyboard user gets there. */
async function tabTo(page: Page, name: string | ((f: Focused) => boolean), back = false): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const now = await focused(page);
    if (typeof name === 'string' ? now.name === name : name(now)) return;
    seen.push(now.name.slice(0, 30));
  }
  throw new Error(`Tab never reached ${String(name)}; it went through: ${seen.join(' | ')}`);
}

describe.skipIf(SKIP !== null)(`the app by keyboard and screen reader${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  let root: string;
  let home: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const memory = () => path.join(home, 'projects', CLAWS, 'memory');
  /** Each test starts from an address (as a bookmark would), with nothing focused; the rest is keys. */
  const start = async (hash: string) => {
    await page.goto(`${host.url}${hash}`);
    await page.locator('.content').waitFor();
    await page.evaluate('document.activeElement?.blur()');
  };
  const startInMemories = async () => {
    await start(`#/p/${encodeURIComponent(CLAWS)}/memories`);
    await page.getByRole('listbox', { name: 'Memories' }).waitFor();
  };

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-a11y-')));
    home = path.join(root, 'home');
    for (const id of FIXTURES) await fs.cp(path.join(SHARED!, id, 'memory'), path.join(home, 'projects', `-work-${id}`, 'memory'), { recursive: true });
    // The fixtures are read-only; their copies are the user's to edit.
    for (const e of await fs.readdir(home, { withFileTypes: true, recursive: true }))
      await fs.chmod(path.join(e.parentPath, e.name), e.isDirectory() ? 0o755 : 0o644);
    host = await startHost(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(host.url);
    await page.getByRole('table', { name: 'Projects' }).getByText('ab0t-com__claws').first().waitFor({ timeout: 20_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('the palette is a modal dialog: Tab stays in it, the arrowed match is announced, Escape gives the focus back', async () => {
    await start('#/');
    await tabTo(page, 'Alerts');
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await palette.waitFor();
    const input = palette.getByRole('combobox', { name: 'Type a command, project or memory' });
    await expect.poll(() => input.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('ArrowDown');
    // A screen reader follows the highlighted match through aria-activedescendant.
    const active = await input.getAttribute('aria-activedescendant');
    expect(active).toBeTruthy();
    expect(await palette.locator(`[id="${active}"]`).getAttribute('aria-selected')).toBe('true');
    for (const key of ['Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
      await page.keyboard.press(key);
      expect((await focused(page)).within, `after ${key}`).toBe('Command palette');
    }
    await page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    expect((await focused(page)).name).toBe('Alerts');
    // And it opens a project, by keyboard.
    await page.keyboard.press('Control+k');
    await expect.poll(() => input.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.type('claws');
    await page.keyboard.press('Enter');
    await page.getByRole('listbox', { name: 'Memories' }).waitFor();
    // The sidebar says which view is open, not only by its highlight.
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('button', { name: 'Memories' }).getAttribute('aria-current')).toBe('page');
    expect(await nav.getByRole('button', { name: 'Projects' }).getAttribute('aria-current')).toBeNull();
  });

  it('find, open, edit and save a memory; the save is announced; Delete asks, Escape keeps and gives the focus back; Undo by keyboard', async () => {
    await startInMemories();
    await page.keyboard.press('/');
    await page.keyboard.type('sync');
    await tabTo(page, 'Memories');
    await page.keyboard.press('Enter');
    const editor = page.getByRole('form', { name: 'Edit feedback_memory_sync.md' });
    await editor.waitFor();
    await expect.poll(async () => (await focused(page)).name).toBe('Name');
    await tabTo(page, 'Description');
    await page.keyboard.press('End');
    await page.keyboard.type(', checked by keyboard');
    await page.keyboard.press('Control+s');
    // The save is said in a live region, not only shown.
    await page.locator('[aria-live] [role="status"]', { hasText: 'Saved feedback_memory_sync.md.' }).waitFor();
    await expect.poll(() => fs.readFile(path.join(memory(), 'feedback_memory_sync.md'), 'utf8')).toContain('checked by keyboard');
    // A notice stays while the focus is on it (it went after 5 s, the focus with it, to the page's body).
    const saved = page.getByRole('status').filter({ hasText: 'Saved feedback_memory_sync.md.' });
    await tabTo(page, (f) => f.name === 'Dismiss');
    await page.waitForTimeout(7_000);
    expect(await saved.count()).toBe(1);
    expect((await focused(page)).name).toBe('Dismiss');
    await tabTo(page, 'Delete', true);
    await saved.waitFor({ state: 'detached' });

    await tabTo(page, 'Delete');
    await page.keyboard.press('Enter');
    const question = page.getByRole('group', { name: 'Confirm delete' });
    await question.waitFor();
    expect(await focused(page)).toMatchObject({ name: 'Keep', within: 'Confirm delete' });
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    expect((await focused(page)).name).toBe('Delete');
    // Keep (Enter on it) gives the focus back too.
    await page.keyboard.press('Enter');
    await question.waitFor();
    await page.keyboard.press('Enter');
    await question.waitFor({ state: 'detached' });
    expect((await focused(page)).name).toBe('Delete');

    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toMatchObject({ name: 'Delete', within: 'Confirm delete' });
    await page.keyboard.press('Enter');
    await expect
      .poll(() =>
        fs.stat(path.join(memory(), 'feedback_memory_sync.md')).then(
          () => 'there',
          () => 'gone',
        ),
      )
      .toBe('gone');
    await page.locator('[aria-live] [role="status"]', { hasText: /Deleted/ }).waitFor();
    await tabTo(page, 'Undo');
    await page.keyboard.press('Enter');
    await expect
      .poll(() =>
        fs.stat(path.join(memory(), 'feedback_memory_sync.md')).then(
          () => 'there',
          () => 'gone',
        ),
      )
      .toBe('there');
  });

  it('a save refused for a secret asks with the focus on Go back; Escape goes back to where the typing was', async () => {
    await startInMemories();
    await page.keyboard.press('/');
    await page.keyboard.type('secrets');
    await tabTo(page, 'Memories');
    await page.keyboard.press('Enter');
    await page.getByRole('form', { name: 'Edit feedback_no_secrets_in_memory.md' }).waitFor();
    await tabTo(page, 'Description');
    await page.keyboard.press('End');
    await page.keyboard.type(` ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`);
    await page.keyboard.press('Control+s');
    const warning = page.getByRole('alertdialog', { name: 'Secret warning' });
    await warning.waitFor();
    expect(await focused(page)).toMatchObject({ name: 'Go back', within: 'Secret warning' });
    await page.keyboard.press('Escape');
    await warning.waitFor({ state: 'detached' });
    expect((await focused(page)).name).toBe('Description');
    // Leave the memory as it was.
    await tabTo(page, 'Discard changes');
    await page.keyboard.press('Enter');
  });

  it('a bulk action by keyboard: Space picks, the toolbar acts, its Delete question gives the focus back', async () => {
    await startInMemories();
    await page.keyboard.press('/');
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await tabTo(page, 'Memories');
    await page.keyboard.press('Home');
    await page.keyboard.press(' ');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press(' ');
    const bar = page.getByRole('toolbar', { name: 'Selected memories' });
    await bar.getByText('2 memories selected').waitFor();
    await tabTo(page, 'Delete', true);
    expect(await bar.getByRole('button', { name: 'Delete' }).evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await bar.getByRole('group', { name: 'Confirm delete' }).waitFor();
    await page.keyboard.press('Escape');
    await bar.getByRole('group', { name: 'Confirm delete' }).waitFor({ state: 'detached' });
    expect(await bar.getByRole('button', { name: 'Delete' }).evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await tabTo(page, 'Move to team', true);
    await page.keyboard.press('Enter');
    // What it did is said in the live region, and the focus goes back to the list.
    await page.locator('[aria-live] [role="status"]', { hasText: /team/ }).first().waitFor();
    await expect.poll(() => fs.readdir(path.join(memory(), 'team')).catch(() => [])).toContain('MEMORY.md');
    await expect.poll(async () => (await focused(page)).name).toBe('Memories');
  });

  it('History: the restore question is a modal dialog — Tab stays in it, Escape cancels and gives the focus back', async () => {
    await startInMemories();
    await tabTo(page, 'History');
    await page.keyboard.press('Enter');
    const timeline = page.getByRole('list', { name: 'History' });
    await timeline.getByRole('button').first().waitFor();
    await tabTo(page, (f) => f.list === 'History');
    await page.keyboard.press('Enter');
    await tabTo(page, 'Restore whole snapshot…');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Restore the whole snapshot?' });
    await dialog.waitFor();
    expect((await focused(page)).within).toBe('restore-title');
    for (const key of ['Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
      await page.keyboard.press(key);
      expect((await focused(page)).within, `after ${key}`).toBe('restore-title');
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await focused(page)).name).toBe('Restore whole snapshot…');
    expect(errors).toEqual([]);
  });

  it('MEMORY.md by keyboard: Tab leaves its editor; the question before dropping pointers closes with Escape and gives the focus back', async () => {
    await start(`#/p/${encodeURIComponent(CLAWS)}/index`);
    // Edit is off (so Tab passes it by) until MEMORY.md is read: on a loaded machine the walk began before.
    await expect.poll(() => page.getByRole('button', { name: 'Edit MEMORY.md' }).isEnabled()).toBe(true);
    await tabTo(page, 'Edit MEMORY.md');
    await page.keyboard.press('Enter');
    await tabTo(page, 'MEMORY.md text', true);
    await page.keyboard.press('Control+a');
    await page.keyboard.type('# Memory Index\n');
    // Tab moves on (it went on indenting the text: a keyboard user could not leave).
    await page.keyboard.press('Tab');
    expect((await focused(page)).name).not.toBe('MEMORY.md text');
    await tabTo(page, 'Save MEMORY.md');
    await page.keyboard.press('Enter');
    const question = page.getByRole('group', { name: 'Confirm save' });
    await question.waitFor();
    expect(await focused(page)).toMatchObject({ name: 'Keep editing', within: 'Confirm save' });
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    expect((await focused(page)).name).toBe('Save MEMORY.md');
    await tabTo(page, 'Cancel');
    await page.keyboard.press('Enter');
    expect(await fs.readFile(path.join(memory(), 'MEMORY.md'), 'utf8')).toContain('](');
  });

  it('axe-core finds nothing moderate, serious or critical on the main views', async () => {
    const tabs = ['memories', 'index', 'health', 'history', 'recall', 'dream', 'team'];
    const views: [string, string][] = [
      ['dashboard', '#/'],
      ['memory editor', `#/p/${encodeURIComponent(CLAWS)}/memories/private/feedback_memory_sync.md`],
      ...tabs.map((t): [string, string] => [t, `#/p/${encodeURIComponent(CLAWS)}/${t}`]),
      ...['agents', 'review', 'drafts', 'sessions', 'alerts', 'settings'].map((v): [string, string] => [v, `#/${v}`]),
    ];
    // At 200 % zoom (640 CSS px, session 42): the folded sidebar, its Menu opened, the Projects cards.
    const narrow: [string, string][] = [
      ['narrow dashboard', '#/'],
      ['narrow menu', '#/'],
      ['narrow memories', `#/p/${encodeURIComponent(CLAWS)}/memories`],
      ['narrow history', `#/p/${encodeURIComponent(CLAWS)}/history`],
      ['narrow alerts', '#/alerts'],
    ];
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      // The app follows the system's theme (its default), CodeMirror's editor too.
      await page.emulateMedia({ colorScheme: theme });
      for (const [name, hash] of [...views, ...narrow]) {
        if (name.startsWith('narrow')) await page.setViewportSize({ width: 640, height: 700 });
        await page.goto(`${host.url}${hash}`);
        await page.locator('.content').waitFor();
        await page.waitForTimeout(800);
        if (name.endsWith('history')) await page.getByRole('list', { name: 'History' }).getByRole('button').first().click();
        if (name === 'narrow menu') await page.getByRole('button', { name: 'Menu' }).click();

        // Moderate too (session 41): heading-order found h1 then h3 on Index, Health and History.
        found.push(...(await axeFindings(page, `${theme} ${name}`)));
      }
      await page.setViewportSize({ width: 1024, height: 700 });
    }
    expect(found).toEqual([]);
  });
});
