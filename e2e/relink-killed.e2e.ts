/**
 * A merge's undo killed between its two folders, in real Chromium against the real headless host:
 * the host's start puts it back whole (the merge stands, in both folders, as before the undo), and
 * the dashboard says so in one sentence where merge results show — once.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanHome } from '../src/main/memdir/index.js';
import { listMergeRecords, mergeProjects, readMergeRecord } from '../src/main/relink/index.js';
import { undoKilledBetweenFolders } from '../src/main/relink/test-support/killed-turn.js';
import { addMemories, readTree, topic, twoClones } from '../src/main/relink/test-support/moved-project.js';
import { sanitizeDirName } from '../src/shared/sanitize.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const SLOW = { timeout: 15_000, interval: 100 };

describe.skipIf(!HAS_BROWSER)(`a merge killed half-way${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host | undefined;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-relink-killed-')));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('puts back at the start an undo killed between the folders, and says so above the merge results', async () => {
    const home = path.join(root, 'home');
    const dataDir = path.join(root, 'data');
    const { a, b } = await twoClones(root, home);
    const aMemory = await addMemories(home, a, { 'MEMORY.md': '- [A](a.md) — a\n', 'a.md': topic('A', 'user', 'a') });
    const bMemory = await addMemories(home, b, { 'MEMORY.md': '- [B](b.md) — b\n', 'b.md': topic('B', 'user', 'b') });
    await scanHome(home, { dataDir });
    const record = await mergeProjects({ home, dataDir }, sanitizeDirName(a), sanitizeDirName(b));
    const merged = { a: await readTree(aMemory), b: await readTree(bMemory) };
    // Killed after undoing the merge in the first folder, before the second.
    await undoKilledBetweenFolders(dataDir, (await readMergeRecord(dataDir, record.id))!);
    expect({ a: await readTree(aMemory), b: await readTree(bMemory) }).not.toEqual(merged);

    host = await startHost(['--home', home, '--port', '0', '--data-dir', dataDir]);
    await page.goto(host.url);
    const result = page.getByRole('region', { name: 'Merge result' });
    await expect.poll(() => result.textContent(), SLOW).toContain(`Memdir was stopped while undoing merge ${record.id}`);
    expect(await result.textContent()).toContain(`so merge ${record.id} stands as it was before`);
    expect({ a: await readTree(aMemory), b: await readTree(bMemory) }).toEqual(merged);
    expect((await listMergeRecords(dataDir)).map((r) => r.undone)).toEqual([null]);
    await page.screenshot({ path: artifact('relink-killed-put-back.png'), fullPage: true });
    // Said once: a reload has nothing more to tell.
    await page.reload();
    await expect.poll(() => page.locator('.identity').first().textContent(), SLOW).toContain('github.com/acme/shop');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await page.getByRole('region', { name: 'Merge result' }).count()).toBe(0);
  });
});
