/**
 * Claude Code's memory-store mode, in real Chromium against the real headless host: with
 * `CLAUDE_MEMORY_STORES` set (here in the user settings' env block, never synced: no sidecar),
 * Claude Code 2.1.332 loads no MEMORY.md (test/fixtures/claude-code-stores/loaded-2.1.332.json).
 * The memory list marks every memory "no index" instead of "unlisted", and the index tab says
 * nothing of it loads, and why, wherever it speaks of loading.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topic } from '../src/main/relink/test-support/moved-project.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const DIR = '-work-stores';
const STORES = JSON.stringify([
  { path: '/v1/memory_stores/memstore_me', scope: 'user' },
  { path: '/v1/memory_stores/memstore_team', scope: 'team' },
]);

describe.skipIf(!HAS_BROWSER)(`memory-store mode${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-stores-'));
    home = path.join(root, 'home');
    const memory = path.join(home, 'projects', DIR, 'memory');
    await fs.mkdir(path.join(memory, 'team', 'memstore_team'), { recursive: true });
    // listed.md has a pointer, loose.md none: without stores loose.md would be "unlisted".
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [listed](listed.md) — has a pointer\n');
    await fs.writeFile(path.join(memory, 'listed.md'), topic('listed', 'project', 'Listed.'));
    await fs.writeFile(path.join(memory, 'loose.md'), topic('loose', 'project', 'Not listed.'));
    await fs.writeFile(path.join(memory, 'team', 'memstore_team', 'shared.md'), topic('shared', 'reference', 'In the team store.'));
    await fs.writeFile(path.join(home, 'settings.json'), JSON.stringify({ env: { CLAUDE_MEMORY_STORES: STORES } }));
    host = await startHost(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('the memory list marks every memory "no index", and none "unlisted"', async () => {
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    const list = page.getByRole('listbox');
    await list.getByText('shared', { exact: true }).waitFor();
    const rows = list.getByRole('option');
    await expect.poll(() => rows.count()).toBe(3);
    for (const name of ['listed', 'loose', 'shared']) {
      const row = rows.filter({ has: page.getByText(name, { exact: true }) });
      await expect.poll(() => row.locator('.badge', { hasText: 'no index' }).count()).toBe(1);
    }
    expect(await list.getByText('unlisted', { exact: true }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('the index tab says nothing of MEMORY.md loads, and why, in the gauge, the agent view and the editor', async () => {
    await page.goto(`${host.url}#/p/${DIR}/index`);
    const why = `CLAUDE_MEMORY_STORES is set (in the env block of ${path.join(home, 'settings.json')}), so Claude Code syncs this memory folder, team/memstore_team/ itself with its memory stores, and Claude Code 2.1.332 then loads no MEMORY.md at session start, synced yet or not`;
    const sees = page.getByRole('region', { name: 'What the agent sees' });
    await sees.waitFor();
    await expect.poll(() => sees.textContent()).toContain(why);
    await expect.poll(() => sees.getByLabel('Index text the agent gets').textContent()).toBe('(nothing: Claude Code syncs memory stores)');
    // The gauge says why nothing loads: the stores, not auto memory.
    const gauge = page.getByLabel(/^Index load:/);
    await expect.poll(() => gauge.textContent()).toContain('Not loaded: Claude Code syncs memory stores');
    expect(await gauge.textContent()).not.toContain('auto memory');
    expect(await page.getByText('Everything reaches the agent').count()).toBe(0);
    await page.screenshot({ path: artifact('memory-stores-index.png'), fullPage: true });
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).click();
    const after = page.getByText(/^After saving:/);
    await expect.poll(() => after.textContent()).toContain(', but Claude Code syncs memory stores here: it loads none of it');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(errors).toEqual([]);
  });
});
