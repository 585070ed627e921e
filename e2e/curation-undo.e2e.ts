/**
 * The Undo on Health's notices (Fix, Merge duplicates) in real Chromium against the real headless
 * host, beside a Claude Code that writes the same folder meanwhile (review x1, F1): the Undo
 * reverses only the action's own change, through the one undo, so a memory Claude Code wrote
 * since and a line it added to another memory stay.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import type { Host } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

const topic = (name: string, description: string, type: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;

describe.skipIf(!HAS_BROWSER)(`Undo on Health's notices keeps what Claude Code wrote since${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const write = (file: string, text: string) => fs.writeFile(path.join(memory, file), text);
  const read = (file: string) => fs.readFile(path.join(memory, file), 'utf8').catch(() => null);

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-curation-undo-'));
    memory = path.join(root, 'home', 'projects', '-work-undoall', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await write('a.md', topic('A', 'alpha', 'feedback', 'aaa'));
    await write('orphan.md', topic('Orphan', 'not listed yet', 'project', 'ooo'));
    await write('c.md', topic('C', 'gamma', 'project', 'ccc'));
    await write('MEMORY.md', '- [A](a.md) — alpha\n- [C](c.md) — gamma\n');
    ({ host, browser, page } = await openApp(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')], errors));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("Undo of a Fix takes only the fix back: Claude Code's new memory, its pointer and its line in another memory stay", async () => {
    await page.goto(`${host.url}#/p/-work-undoall/health`);
    await page.getByRole('button', { name: /^Fix 1 safely/ }).click({ timeout: 20_000 });
    const toast = page.getByRole('status').filter({ hasText: 'Fixed 1 problem' });
    await toast.waitFor();
    await expect.poll(() => read('MEMORY.md')).toContain('orphan.md');
    // Claude Code, in a session meanwhile: a new memory with its pointer, and a fact added to c.md.
    await write('d.md', topic('D', 'deploy from main only', 'project', 'Deploy only from main.'));
    await write('MEMORY.md', (await read('MEMORY.md')) + '- [D](d.md) — deploy from main only\n');
    const c = (await read('c.md')) + 'CC added: staging is at staging.example.\n';
    await write('c.md', c);
    await toast.getByRole('button', { name: 'Undo' }).click();
    // Before the fix this notice said "Undid the fixes." after putting the whole folder back.
    await page
      .getByRole('status')
      .filter({ hasText: /Undone\.|Undid/ })
      .waitFor();
    await expect.poll(() => read('MEMORY.md')).not.toContain('orphan.md');
    const index = await read('MEMORY.md');
    expect(index).not.toContain('orphan.md');
    expect(index).toContain('- [D](d.md) — deploy from main only');
    expect(await read('d.md')).toContain('Deploy only from main.');
    expect(await read('c.md')).toBe(c);
    expect(await read('orphan.md')).toContain('ooo');
    expect(await page.getByRole('status').allInnerTexts()).toContainEqual(expect.stringContaining('Undone.'));
    expect(errors).toEqual([]);
  });
});
