/**
 * The memory list's summary line, in real Chromium against the real headless host: what it counts
 * past the index cut are the memories of the list whose pointer the agent never sees (the rows
 * marked "cut"), private and team alike — not every pointer below the cut, some of which name
 * files that do not exist (those are Health's dangling links).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexWithCut } from '../src/main/memdir/test-support/cut-home.js';
import { topic } from '../src/main/relink/test-support/moved-project.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const DIR = '-work-physics';

/** An index of 230 lines: 198 lines of prose, then pointers past line 200, most to files that are gone. */
const index = (pointers: string[]) => indexWithCut(pointers.map((p) => `- [${p}](${p}) — below the cut`));

describe.skipIf(!HAS_BROWSER)(`the memory list's summary${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-list-'));
    const memory = path.join(root, 'home', 'projects', DIR, 'memory');
    await fs.mkdir(path.join(memory, 'team'), { recursive: true });
    const gone = Array.from({ length: 20 }, (_, i) => `gone_${i}.md`);
    // team_cut.md is past the cut through MEMORY.md's team/ pointer: Claude Code 2.1.332 does not load team/MEMORY.md.
    await fs.writeFile(path.join(memory, 'MEMORY.md'), index(['cut_a.md', ...gone, 'cut_b.md', 'team/team_cut.md']));
    for (const f of ['kept', 'cut_a', 'cut_b']) await fs.writeFile(path.join(memory, `${f}.md`), topic(f, 'project', `About ${f}.`));
    await fs.writeFile(path.join(memory, 'team', 'MEMORY.md'), index(['team_cut.md']));
    await fs.writeFile(path.join(memory, 'team', 'team_cut.md'), topic('team_cut', 'reference', 'Where the dashboards are.'));
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

  it('counts the memories past the cut, as the rows marked "cut" show them', async () => {
    const list = page.getByRole('listbox');
    await list.getByText('team_cut', { exact: true }).waitFor();
    const summary = page.locator('.list-count');
    await expect.poll(() => summary.textContent()).toContain('4 memories');
    // cut_a, cut_b and team_cut: three rows are marked "cut"; the twenty pointers to files that are gone are not memories.
    expect(await summary.textContent()).toContain('3 past the index cut');
    expect(errors).toEqual([]);
  });

  it("says what its search reads when nothing matches: a word only in a memory's text finds nothing", async () => {
    const search = page.getByRole('searchbox', { name: 'Search memories' });
    await search.fill('dashboards');
    await page.getByText('No memory matches these filters (the search reads names, descriptions and file names, not the text inside).').waitFor();
    await search.fill('team_cut');
    await page.getByRole('listbox').getByText('team_cut', { exact: true }).waitFor();
    await search.fill('');
  });
});
