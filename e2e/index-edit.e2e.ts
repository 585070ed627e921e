/**
 * Editing MEMORY.md in the app beside a Claude Code that writes the same folder (review x1 F3),
 * in real Chromium against the real host: an unsaved edit is a draft like a memory's (it survives
 * going to Memories and back, and is listed under Drafts); a save over a line Claude Code appended
 * meanwhile merges onto it without asking about a pointer the user never touched; a save over a
 * line Claude Code changed too shows both versions, and "Keep mine" saves with theirs in history.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import { type Host, artifact } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

const TOPIC = (name: string) => `---\nname: ${name}\ndescription: about ${name}\ntype: user\n---\n${name}\n`;
const INDEX = '# Index\n- [A](a.md) — about a\n';

describe.skipIf(!HAS_BROWSER)(`editing MEMORY.md beside Claude Code${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const memory = () => path.join(home, 'projects', '-work-idx', 'memory');
  const index = () => fs.readFile(path.join(memory(), 'MEMORY.md'), 'utf8');
  const claudeCodeWrites = async (file: string, text: string) => fs.writeFile(path.join(memory(), file), text);

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-index-edit-'));
    home = path.join(root, 'home');
    await fs.mkdir(memory(), { recursive: true });
    await claudeCodeWrites('a.md', TOPIC('a'));
    await claudeCodeWrites('MEMORY.md', INDEX);
    ({ host, browser, page } = await openApp(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')], errors));
    await page.getByRole('table', { name: 'Projects' }).waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  const openIndex = async () => {
    await page.evaluate(`location.hash = '#/p/-work-idx/index'`);
    await page.getByRole('list', { name: 'MEMORY.md lines' }).or(page.getByRole('textbox')).first().waitFor({ timeout: 30_000 });
  };
  const typeAtEnd = async (text: string) => {
    const cm = page.locator('.cm-content');
    await cm.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(text);
  };

  it('an unsaved edit survives going to Memories and back, and is listed under Drafts', async () => {
    await openIndex();
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).click();
    await typeAtEnd('## My careful notes\n');
    await page.getByRole('button', { name: 'Memories', exact: true }).click();
    await page.getByRole('searchbox', { name: 'Search memories' }).waitFor();
    await page.getByRole('button', { name: 'MEMORY.md', exact: true }).click();
    await page.getByText('Restored your unsaved edit of MEMORY.md', { exact: false }).waitFor({ timeout: 10_000 });
    expect(await page.locator('.cm-content').innerText()).toContain('## My careful notes');
    await page.evaluate(`location.hash = '#/drafts'`);
    await page.getByRole('list', { name: 'Drafts' }).getByText('MEMORY.md').first().waitFor({ timeout: 10_000 });
    expect(await index()).toBe(INDEX);
  });

  it('a save over a pointer Claude Code appended meanwhile merges onto it, asking nothing about that pointer', async () => {
    await openIndex();
    await page.getByText('Restored your unsaved edit of MEMORY.md', { exact: false }).waitFor({ timeout: 10_000 });
    await claudeCodeWrites('b.md', TOPIC('b'));
    await claudeCodeWrites('MEMORY.md', `${INDEX}- [B](b.md) — about b\n`);
    await page.getByRole('button', { name: 'Save MEMORY.md' }).click();
    await page.getByText('merged with the change made on disk', { exact: false }).waitFor({ timeout: 10_000 });
    expect(await page.getByRole('group', { name: 'Confirm save' }).count()).toBe(0);
    // Both additions stay: the line on disk first, then the user's.
    expect(await index()).toBe(`${INDEX}- [B](b.md) — about b\n## My careful notes\n`);
  });

  it('a save over a line Claude Code changed too shows both versions; Keep mine saves, theirs stays in history', async () => {
    await openIndex();
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).click();
    const cm = page.locator('.cm-content');
    await cm.getByText('## My careful notes').click();
    await page.keyboard.press('End');
    await page.keyboard.type(' (mine)');
    const theirs = (await index()).replace('## My careful notes', '## My careful notes (Claude Code)');
    await claudeCodeWrites('MEMORY.md', theirs);
    await page.getByRole('button', { name: 'Save MEMORY.md' }).click();
    const merge = page.getByRole('region', { name: 'MEMORY.md changed on disk' });
    await merge.waitFor({ timeout: 10_000 });
    expect(await merge.textContent()).toContain('## My careful notes (Claude Code)');
    expect(await merge.textContent()).toContain('## My careful notes (mine)');
    await page.screenshot({ path: artifact('index-edit-conflict.png') });
    expect(await index()).toBe(theirs);
    await merge.getByRole('button', { name: /Keep mine/ }).click();
    await merge.waitFor({ state: 'detached', timeout: 10_000 });
    await page.getByRole('list', { name: 'MEMORY.md lines' }).getByText('## My careful notes (mine)').waitFor({ timeout: 10_000 });
    expect(await index()).toBe(theirs.replace('(Claude Code)', '(mine)'));
    // Claude Code's version was recorded before the save wrote over it.
    await page.getByRole('button', { name: 'History', exact: true }).click();
    await page.getByText('Changes made outside Memdir').first().waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
  });
});
