/**
 * Curation that respects the cut (issue 14), in real Chromium against the real host and the demo
 * workspace: Make room bringing an index past its limit under the cut (one entry, one Undo);
 * Health's orphan fix after a dream, which used to push the index back past the cut; the index
 * editor, which said everything reached the agent while lines of prose were cut; a duplicate
 * found, compared and merged; the editor warning about a memory that repeats another; the index
 * editor asking before a save that drops pointers, and that save's Undo.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexEntries, parseIndex } from '../src/shared/index-format.js';
import { loadIndexAsClaudeCode } from '../src/shared/index-load.js';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import { type Host, artifact } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`index room and duplicates${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const memoryOf = (project: string) => path.join(root, 'data', 'demo', 'claude-home', 'projects', project, 'memory');
  const indexOf = (project: string) => fs.readFile(path.join(memoryOf(project), 'MEMORY.md'), 'utf8');
  const open = async (dir: string, tab: string) => {
    await page.evaluate(`location.hash = '#/p/${dir}/${tab}'`);
  };
  // Notices would cover the pictures the README shows: close them before a screenshot.
  const closeNotices = async () => {
    const notices = page.getByRole('button', { name: 'Dismiss' });
    while ((await notices.count()) > 0) await notices.first().click();
  };

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-room-'));
    ({ host, browser, page } = await openApp(['--home', path.join(root, 'none'), '--port', '0', '--data-dir', path.join(root, 'data')], errors));
    await page.getByRole('button', { name: 'Open demo workspace' }).first().click();
    await page.getByRole('button', { name: '/demo/data-pipeline' }).waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('Make room brings an index past its limit under the cut, live, as one entry that one Undo takes back', async () => {
    const before = await indexOf('-demo-data-pipeline');
    expect(loadIndexAsClaudeCode(before)).toMatchObject({ lines: 215, truncated: true });
    await open('-demo-data-pipeline', 'health');
    const overLimit = page.getByRole('list', { name: 'Problems' }).locator('li', { hasText: 'index too long' });
    await overLimit.getByRole('button', { name: 'Make room…' }).click();
    const room = page.getByRole('region', { name: 'Make room' });
    await room.waitFor();
    const loaded = room.getByLabel('Loaded part after your choices');
    await loaded.getByText('Still cut from line 201: 15 pointers below it (15 memories past the cut) — 15 more lines to go').waitFor();
    // Merge five feeds into the first, shorten a hook, and drop the ten pointers still below the cut.
    for (let line = 2; line <= 6; line++) {
      await room.getByLabel(`Choice for line ${line}`, { exact: true }).selectOption('merge');
      await room.getByLabel(`Merge line ${line} into`, { exact: true }).selectOption('1');
    }
    await loaded.getByText(/Still cut from line 201: 10 pointers below it/).waitFor();
    await room.getByLabel('Choice for line 7', { exact: true }).selectOption('shorten');
    await room.getByLabel('New hook for line 7', { exact: true }).fill('feed 6');
    for (let line = 206; line <= 215; line++) await room.getByLabel(`Choice for line ${line}`, { exact: true }).selectOption('drop');
    await loaded.getByText('Fits: everything reaches the agent').waitFor();
    expect(await loaded.textContent()).toContain('After: 200 of 200 lines');
    await page.screenshot({ path: artifact('room-01-make-room.png') });
    await room.getByRole('button', { name: 'Apply 16 choices' }).click();
    // The result counts what the header counted: pointers below the cut, before and after.
    await page.getByText(/^Made room: 15 pointers were below the cut, now none\. MEMORY\.md: 200 of 200 lines/).waitFor();

    const after = await indexOf('-demo-data-pipeline');
    expect(loadIndexAsClaudeCode(after)).toMatchObject({ lines: 200, truncated: false });
    expect(after).toContain('- [Source 6](project_source_6.md) — feed 6\n');
    expect(await fs.readFile(path.join(memoryOf('-demo-data-pipeline'), 'project_source_0.md'), 'utf8')).toContain('Feed 5 arrives hourly');
    await expect(fs.access(path.join(memoryOf('-demo-data-pipeline'), 'project_source_1.md'))).rejects.toThrow();
    await page.getByRole('meter', { name: 'Lines' }).waitFor();
    expect(await page.getByRole('meter', { name: 'Lines' }).getAttribute('aria-valuenow')).toBe('200');
    await page.getByText('Everything reaches the agent', { exact: true }).waitFor();

    // One entry in history; its Undo brings every file back.
    await page.getByRole('button', { name: 'Undo' }).click();
    const undone = page.getByRole('status').filter({ hasText: 'Undone.' }).first();
    await undone.waitFor();
    // One line for the pointers it put back, not one per pointer (15 lines covered the Dream now button);
    // every one of them a click away.
    expect(await undone.locator('span').first().textContent()).toMatch(
      /^Undone\. Put back 15 pointers in MEMORY\.md \(10 past the cut, 5 pushing others past it\)\.$/,
    );
    expect((await undone.boundingBox())!.height).toBeLessThan(90);
    await undone.getByRole('button', { name: 'Show all 15' }).click();
    await undone.getByText(/^The pointer to project_source_1\.md is back at line 2 of MEMORY\.md, where it was\. It pushes /).waitFor();
    expect(await undone.getByRole('listitem').count()).toBe(15);
    await undone.getByRole('button', { name: 'Show less' }).click();
    expect(await indexOf('-demo-data-pipeline')).toBe(before);
    expect(await fs.readFile(path.join(memoryOf('-demo-data-pipeline'), 'project_source_1.md'), 'utf8')).toContain('Feed 1 arrives hourly');
  });

  it("Health's orphan fix after a dream stops at the cut and offers the rest as a choice", async () => {
    await open('-demo-data-pipeline', 'dream');
    await page.getByRole('button', { name: 'Dream now' }).click();
    await page.getByRole('list', { name: 'Dreams' }).getByRole('button').first().waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByRole('list', { name: 'Dreams' }).getByRole('button').first().textContent(), { timeout: 60_000 }).toMatch(/completed/);
    // The dream left pointers out to keep the index inside its limit, with room to spare.
    const pruned = loadIndexAsClaudeCode(await indexOf('-demo-data-pipeline'));
    expect(pruned.lines).toBeLessThanOrEqual(160);
    await open('-demo-data-pipeline', 'health');
    // One click on the safe fixes must not push the index back past the cut.
    await page.getByRole('button', { name: /^Fix (all )?\d+ safely$/ }).click();
    await page.getByText(/^Fixed \d+ problems\./).waitFor();
    const fixed = loadIndexAsClaudeCode(await indexOf('-demo-data-pipeline'));
    expect(fixed).toMatchObject({ lines: 200, truncated: false });
    // Whether Health had worked out the held-back orphans before the click or the service found them, the notice says so.
    await page
      .getByText(
        /^Fixed 40 problems\.( 15 orphans were held back: their pointers would fall below the cut\.)? MEMORY\.md: 200 of 200 lines, [\d,]+ of 25,000 characters; all of it reaches the agent\./,
      )
      .waitFor();
    await expect.poll(() => page.getByRole('list', { name: 'Problems' }).locator('li', { hasText: 'index too long' }).count(), { timeout: 10_000 }).toBe(0);
    await page.getByText(/15 orphans are held back/).waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: 'project_source_214.md' })
      .getByText('Its pointer would land below the cut: Claude Code would never load it.')
      .waitFor();
    await page.screenshot({ path: artifact('room-02-health-held-back.png') });
    // The pictures: tokens and cost per dream, and the project's timeline with the dream marked; a click opens it.
    await open('-demo-data-pipeline', 'dream');
    await page.getByRole('region', { name: 'Tokens and cost per dream' }).locator('canvas').first().waitFor();
    await open('-demo-data-pipeline', 'history');
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.locator('canvas').first().waitFor();
    await timeline
      .getByRole('list', { name: 'Dreams and syncs' })
      .getByRole('button', { name: /◆ Dream/ })
      .click();
    await page
      .locator('strong')
      .filter({ hasText: /^dream \d{8}-/ })
      .waitFor();
    await closeNotices();
    await page.screenshot({ path: artifact('room-05-timeline.png') });
    await open('-demo-data-pipeline', 'health');
    // The rest is a choice: make room first, or add them below the cut knowingly.
    await page.getByRole('button', { name: 'Make room for 15…' }).waitFor();
    await page.getByRole('button', { name: 'Add 15 below the cut anyway' }).click();
    await page.getByRole('list', { name: 'Problems' }).locator('li', { hasText: 'index too long' }).waitFor();
    expect(loadIndexAsClaudeCode(await indexOf('-demo-data-pipeline'))).toMatchObject({ lines: 215, truncated: true });
  });

  it('the index editor says what is cut when lines of prose fall past the limit, never that everything reaches the agent', async () => {
    // Written by another program: 230 lines of notes and no pointers at all.
    const notes = Array.from({ length: 230 }, (_, i) => `Note ${i + 1}: keep the nightly export under an hour.`).join('\n');
    await fs.mkdir(memoryOf('-demo-docs-site'), { recursive: true });
    await fs.writeFile(path.join(memoryOf('-demo-docs-site'), 'MEMORY.md'), `${notes}\n`);
    await open('-demo-docs-site', 'index');
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).click();
    const after = page.getByText(/^After saving:/);
    await expect.poll(() => after.textContent(), { timeout: 10_000 }).toMatch(/230/);
    expect(await after.textContent()).not.toContain('everything reaches the agent');
    expect(await after.textContent()).toContain('from line 201 on nothing reaches the agent (30 lines)');
    // Untouched, the editor follows the file when another program rewrites it.
    const more = Array.from({ length: 240 }, (_, i) => `Note ${i + 1}: keep the nightly export under an hour.`).join('\n');
    await fs.writeFile(path.join(memoryOf('-demo-docs-site'), 'MEMORY.md'), `${more}\n`);
    await expect.poll(() => after.textContent(), { timeout: 10_000 }).toContain('(40 lines)');
    await page.getByRole('button', { name: 'Cancel' }).click();
    // The meter says it too: red, with where the cut falls.
    await page.getByText(/Cut from line 201: 240 lines \(limit: 200\)/).waitFor();
    expect(await page.getByRole('meter', { name: 'Lines' }).getAttribute('aria-valuenow')).toBe('240');
  });

  it("the index editor keeps the file's BOM and CRLF line ends, and Ctrl+S saves it", async () => {
    await fs.mkdir(memoryOf('-demo-docs-site'), { recursive: true });
    await fs.writeFile(path.join(memoryOf('-demo-docs-site'), 'MEMORY.md'), '\uFEFF# Index\r\n- [Style](style.md) — house style\r\n');
    await open('-demo-docs-site', 'index');
    await page.getByRole('list', { name: 'MEMORY.md lines' }).getByText('# Index').waitFor();
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).click();
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('Note added');
    // Ctrl+S, with the focus in the editor: no button clicked.
    await page.keyboard.press('ControlOrMeta+S');
    await page.getByRole('status').filter({ hasText: 'Saved MEMORY.md.' }).first().waitFor();
    expect(await indexOf('-demo-docs-site')).toBe('\uFEFF# Index\r\n- [Style](style.md) — house style\r\nNote added');
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('finds a duplicate, shows both side by side, and merges them keeping both; the editor warns before a third is written', async () => {
    await open('-demo-checkout-service', 'health');
    const dups = page.getByRole('region', { name: 'Duplicate memories' });
    const pair = dups.getByRole('listitem', { name: 'Duplicates: feedback_tests.md and feedback_no_db_mocks.md' });
    await pair.getByRole('button', { name: 'Compare' }).click();
    await pair.getByRole('region', { name: 'Left: feedback_tests.md' }).waitFor();
    await pair.getByRole('region', { name: 'Right: feedback_no_db_mocks.md' }).waitFor();
    await closeNotices();
    await page.screenshot({ path: artifact('room-03-duplicates.png') });
    await pair.getByRole('button', { name: 'Keep feedback_tests.md, merge feedback_no_db_mocks.md into it' }).click();
    await page.getByText('Merged feedback_no_db_mocks.md into feedback_tests.md. It stays in history.').waitFor();
    await dups.getByText('No memory says what another already says.').waitFor();
    const memory = memoryOf('-demo-checkout-service');
    await expect(fs.access(path.join(memory, 'feedback_no_db_mocks.md'))).rejects.toThrow();
    const kept = await fs.readFile(path.join(memory, 'feedback_tests.md'), 'utf8');
    expect(kept).toContain('- `feedback_tests.md` — Do not mock the database in integration tests');
    expect(kept).toContain('- `feedback_no_db_mocks.md` — Do not mock the database in integration tests');
    expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).not.toContain('feedback_no_db_mocks.md');
    // One entry in history names both.
    await open('-demo-checkout-service', 'history');
    await page.getByText('Merge feedback_no_db_mocks.md into feedback_tests.md').first().waitFor();

    // A new memory that says it a third time is flagged while it is written.
    await open('-demo-checkout-service', 'memories');
    await page.getByRole('button', { name: 'New memory' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Real Postgres in tests');
    await page.getByLabel('Description', { exact: false }).fill('Integration tests must not mock the database');
    const warning = page.getByRole('status', { name: 'Repeats a memory' });
    await warning.getByText(/repeats/).waitFor();
    expect(await warning.textContent()).toContain('feedback_tests.md');
    await page.screenshot({ path: artifact('room-04-repeat-warning.png') });
    expect(errors).toEqual([]);
  });

  it('asks before a save of MEMORY.md that drops the pointers to memories that exist, and the toast of the save has an Undo that puts the index back', async () => {
    const project = '-demo-checkout-service';
    const before = await indexOf(project);
    const pointed: string[] = [];
    for (const e of indexEntries(parseIndex(before))) {
      if (
        await fs.access(path.join(memoryOf(project), e.file)).then(
          () => true,
          () => false,
        )
      )
        pointed.push(e.file);
    }
    expect(pointed.length).toBeGreaterThan(1);
    await open(project, 'index');
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).click();
    // Empty it as a user would: select everything, delete, save.
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await expect.poll(() => page.locator('.cm-content').textContent()).toBe('');
    await page.getByRole('button', { name: 'Save MEMORY.md' }).click();
    const ask = page.getByRole('group', { name: 'Confirm save' });
    await ask.getByText(`This save removes the pointers to ${pointed.length} memories`, { exact: false }).waitFor();
    expect(await indexOf(project)).toBe(before);
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    expect(await indexOf(project)).toBe(before);

    await page.getByRole('button', { name: 'Save MEMORY.md' }).click();
    await page.getByRole('group', { name: 'Confirm save' }).getByRole('button', { name: 'Save anyway' }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Saved MEMORY.md.' });
    await toast.waitFor();
    expect(await indexOf(project)).toBe('');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Undone\./ })
      .first()
      .waitFor();
    expect(await indexOf(project)).toBe(before);
    expect(errors).toEqual([]);
  });
});
