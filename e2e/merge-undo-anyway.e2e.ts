/**
 * A merge's Undo on the dashboard, in real Chromium against the real headless host, when the
 * person edited since the MEMORY.md line the merge wrote: the undo is refused in a sentence naming
 * MEMORY.md and the memory, and offers "Undo anyway" (as History's undo does, through the same
 * service as `memdir merge undo --overwrite-changed`); undone anyway, the line goes, the panel says
 * so, and no empty MEMORY.md is left where there was none.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMemories, addSession, git, makeRepo, topic } from '../src/main/relink/test-support/moved-project.js';
import { sanitizeDirName } from '../src/shared/sanitize.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

/** A merge or an undo scans, writes and records history: more than a click's worth of time. */
const SLOW = { timeout: 15_000, interval: 100 };

describe.skipIf(!HAS_BROWSER)(`a merge's undo anyway${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const memoryOf = (p: string) => path.join(home, 'projects', sanitizeDirName(p), 'memory');
  const tree = async (dir: string) => (await fs.readdir(dir).catch(() => [])).sort();

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-merge-undo-')));
    home = path.join(root, 'home');
    host = await startHost(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('refuses the undo naming the edited MEMORY.md line, offers Undo anyway, and that takes the line away and says so', async () => {
    // Two clones of one repository: one with a memory and its MEMORY.md line, the other with a memory and no MEMORY.md.
    const a = path.join(root, 'a', 'shop');
    const b = path.join(root, 'b', 'shop');
    await makeRepo(a);
    await fs.mkdir(path.dirname(b), { recursive: true });
    git(root, 'clone', '-q', a, b);
    git(b, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop.git');
    await addSession(home, a);
    await addSession(home, b, '0b0e3f5c-3333-4333-8333-333333333333');
    await addMemories(home, a, { 'MEMORY.md': '- [SQL](sql.md) — by hand\n', 'sql.md': topic('SQL', 'feedback', 'by hand') });
    await addMemories(home, b, { 'mine.md': topic('Mine', 'user', 'mine') });
    // The folder changed last is the one merged into (the dashboard's order): b, whose memory is newer.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const f of ['MEMORY.md', 'sql.md']) await fs.utimes(path.join(memoryOf(a), f), hourAgo, hourAgo);
    const before = { a: await tree(memoryOf(a)), b: await tree(memoryOf(b)) };

    await page.goto(host.url);
    const group = page.getByRole('region', { name: 'One project in several places' });
    await group.waitFor();
    const merge = group.getByRole('button', { name: /^Merge / });
    expect(await merge.textContent()).toBe(`Merge ${a} into ${b}…`);
    const [from, into] = [a, b];
    await merge.click();
    await page.getByRole('region', { name: 'Merge preview' }).getByRole('button', { name: 'Merge', exact: true }).click();
    const result = page.getByRole('region', { name: 'Merge result' });
    await expect.poll(() => result.textContent(), SLOW).toContain('Merged:');

    // The person edits the merge's line by hand.
    const index = path.join(memoryOf(into), 'MEMORY.md');
    await fs.writeFile(index, (await fs.readFile(index, 'utf8')).replace('by hand', 'by hand, edited by me'));
    const merged = { from: await tree(memoryOf(from)), into: await tree(memoryOf(into)) };

    await result.getByRole('button', { name: 'Undo merge' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Nothing was undone' });
    await refusal.waitFor();
    const said = (await refusal.textContent()) ?? '';
    expect(said).toContain(`${index} (the line for sql.md)`);
    // The app offers the choice as a button, not the CLI's flag.
    expect(said).not.toContain('--overwrite-changed');
    expect(await fs.readFile(index, 'utf8')).toContain('by hand, edited by me');
    expect({ from: await tree(memoryOf(from)), into: await tree(memoryOf(into)) }).toEqual(merged);
    await page.screenshot({ path: artifact('merge-undo-refused.png'), fullPage: true });

    await refusal.getByRole('button', { name: 'Undo anyway' }).click();
    await expect.poll(() => result.textContent(), SLOW).toContain('Undone');
    expect(await result.textContent()).toContain(`In ${memoryOf(into)}: MEMORY.md's line for sql.md was edited since`);
    expect({ a: await tree(memoryOf(a)), b: await tree(memoryOf(b)) }).toEqual(before);
    await page.screenshot({ path: artifact('merge-undo-anyway.png'), fullPage: true });
  });
});
