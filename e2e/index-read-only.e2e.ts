/**
 * A MEMORY.md Memdir will not edit — not UTF-8, binary (a NUL byte), a link leading out of the
 * memory directory — still reaches the agent: Claude Code reads it (the link followed, a byte that
 * is not UTF-8 as U+FFFD). In real Chromium against the real host, the MEMORY.md tab shows its
 * lines read-only, as Claude Code reads them, says why it is not editable, and offers no edit,
 * Make room or Reorder that could only fail. Nothing is written.
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
// "café" saved in Latin-1: the é is the single byte 0xE9, not UTF-8.
const LATIN1 = Buffer.concat([Buffer.from('# Index\n- [Cafe](cafe.md) — caf'), Buffer.from([0xe9]), Buffer.from(' notes\n- [Tea](tea.md) — about tea\n')]);
const BINARY = Buffer.from('- [Tea](tea.md) — about tea\n\0\0 trailing bytes\n');
const OUTSIDE = '# Shared index\n- [Tea](tea.md) — about tea, from a shared file\n';

describe.skipIf(!HAS_BROWSER)(`an index Memdir will not edit${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const memoryOf = (dir: string) => path.join(home, 'projects', dir, 'memory');

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-index-ro-'));
    home = path.join(root, 'home');
    for (const dir of ['-work-latin', '-work-binary', '-work-linked']) {
      await fs.mkdir(memoryOf(dir), { recursive: true });
      for (const name of ['cafe', 'tea']) await fs.writeFile(path.join(memoryOf(dir), `${name}.md`), TOPIC(name));
    }
    await fs.writeFile(path.join(memoryOf('-work-latin'), 'MEMORY.md'), LATIN1);
    await fs.writeFile(path.join(memoryOf('-work-binary'), 'MEMORY.md'), BINARY);
    await fs.writeFile(path.join(root, 'shared-index.md'), OUTSIDE);
    await fs.symlink(path.join(root, 'shared-index.md'), path.join(memoryOf('-work-linked'), 'MEMORY.md'));
    ({ host, browser, page } = await openApp(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')], errors));
    // The page shown, so it follows the address each case sets (page.goto returns before the UI renders).
    await page.getByRole('table', { name: 'Projects' }).waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  const cases = [
    { dir: '-work-latin', why: 'it is not valid UTF-8 text', line: '- [Cafe](cafe.md) — caf\uFFFD notes' },
    { dir: '-work-binary', why: 'it is a binary file, not text', line: '- [Tea](tea.md) — about tea' },
    { dir: '-work-linked', why: 'it is a symbolic link that leads outside the memory directory', line: '- [Tea](tea.md) — about tea, from a shared file' },
  ];
  for (const c of cases)
    it(`${c.dir}: shows its lines as Claude Code reads them, says why it is read-only, and offers nothing that would fail`, async () => {
      const before = await fs.readFile(path.join(memoryOf(c.dir), 'MEMORY.md'));
      await page.evaluate(`location.hash = '#/p/${c.dir}/index'`);
      const readOnly = page.getByRole('status', { name: 'MEMORY.md is read-only' });
      await readOnly.waitFor({ timeout: 30_000 });
      expect(await readOnly.textContent()).toContain(c.why);
      expect(await readOnly.textContent()).toContain('Claude Code still reads it');
      await page.getByRole('list', { name: 'MEMORY.md lines' }).getByText(c.line, { exact: true }).waitFor();
      expect(await page.locator('.banner.error').count()).toBe(0);

      const edit = page.getByRole('button', { name: 'Edit MEMORY.md' });
      const reorder = page.getByRole('button', { name: 'Reorder entries' });
      expect(await edit.isDisabled()).toBe(true);
      expect(await reorder.isDisabled()).toBe(true);
      expect(await reorder.getAttribute('title')).toContain(c.why);
      expect(await page.getByRole('button', { name: 'Make room…' }).count()).toBe(0);
      await page.screenshot({ path: artifact(`index-read-only${c.dir}.png`) });
      expect(await fs.readFile(path.join(memoryOf(c.dir), 'MEMORY.md'))).toEqual(before);
      expect(errors).toEqual([]);
    });

  it('an address changed while the page loads is followed: the MEMORY.md tab opens, not the dashboard', async () => {
    // The page renders once its event stream is live: held here, the UI's code is loaded (the route read from the address) but not yet listening.
    const late = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    late.on('pageerror', (e) => errors.push(e.message));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await late.route('**/api/events', async (route) => {
      await held;
      await route.continue();
    });
    try {
      const ui = late.waitForResponse((r) => /\/assets\/render-[^/]*\.js$/.test(new URL(r.url()).pathname));
      await late.goto(host.url);
      // Evaluated once: importing it again only waits until it has run. (A string: vitest would rewrite import() in a function.)
      await late.evaluate(`import(${JSON.stringify((await ui).url())}).then(() => undefined)`);
      await late.evaluate(`location.hash = '#/p/-work-latin/index'`);
      release();
      await late.getByRole('status', { name: 'MEMORY.md is read-only' }).waitFor({ timeout: 15_000 });
      expect(errors).toEqual([]);
    } finally {
      release();
      await late.close();
    }
  });
});
