/**
 * One meaning of "cut" in the app (index-cut.ts), in real Chromium against the real headless host:
 * MEMORY.md has 24 pointers below its cut — three to memories (one on a `- See […](…)` line), twenty
 * to files that do not exist, and a repeat of a memory loaded higher up — and the team index names
 * one more memory where its cut would fall, which is unlisted, not cut: Claude Code 2.1.332 does not
 * load team/MEMORY.md. The dashboard's badge, the memory list, the load meter, the MEMORY.md tab,
 * Health's over-limit sentence and the recall tab count 3 memories past the cut and say the missing
 * files apart; Make room says 24 pointers in its header, its button and its result.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layOutCutHome } from '../src/main/memdir/test-support/cut-home.js';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import type { Host } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

const DIR = '-work-physics';
const FACTS = '3 memories past the cut · 20 pointers to missing files';

describe.skipIf(!HAS_BROWSER)(`"cut" in the app${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const open = async (tab: string) => {
    await page.evaluate(`location.hash = '#/p/${DIR}/${tab}'`);
  };

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-cut-'));
    memory = path.join(root, 'home', 'projects', DIR, 'memory');
    await layOutCutHome(memory);
    ({ host, browser, page } = await openApp(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')], errors, {
      ANTHROPIC_API_KEY: '',
    }));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("the dashboard's badge and the memory list count the memories past the cut, private and team", async () => {
    const row = page.locator('tr', { hasText: 'physics' });
    const badge = row.locator('.badge.error', { hasText: 'cut' });
    await badge.waitFor();
    expect(await badge.textContent()).toBe('3 cut');
    expect(await badge.getAttribute('title')).toContain(FACTS);
    await open('memories');
    const summary = page.locator('.list-count');
    await expect.poll(() => summary.textContent()).toContain('5 memories');
    expect(await summary.textContent()).toContain('3 past the index cut');
  });

  it('the MEMORY.md tab and its load meter say the memories and the missing files apart', async () => {
    await open('index');
    await page.getByText('✂ Cut from line 201').waitFor();
    expect(await page.locator('.gauge-cut').textContent()).toBe(`✂ Cut from line 201 (${FACTS}): 224 lines (limit: 200)`);
    const line = page.getByRole('separator').filter({ hasText: 'The agent never sees anything below this line' });
    expect(await line.textContent()).toBe(`✂ The agent never sees anything below this line: 24 pointers (${FACTS})`);
  });

  it("Health's over-limit sentence counts the memories, and the missing files apart", async () => {
    await open('health');
    // One, for MEMORY.md: team/MEMORY.md, which Claude Code does not load, cuts nothing; team_cut is unlisted.
    const problems = page.getByRole('list', { name: 'Problems' });
    const overLimit = problems.locator('li', { hasText: 'index too long' });
    await expect.poll(() => overLimit.count()).toBe(1);
    expect(await overLimit.textContent()).toContain(
      'so 3 memories are never seen at session start (20 of the 24 pointers below the cut name files that do not exist).',
    );
    expect(await problems.locator('li', { hasText: 'team/team_cut.md is listed only in team/MEMORY.md' }).count()).toBe(1);
  });

  it('the recall tab names the memories past the cut, not the files that are gone', async () => {
    await open('recall');
    await page.getByLabel('Query', { exact: true }).fill('lab book');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const always = page.getByRole('heading', { name: 'Always loaded: MEMORY.md' }).locator('xpath=..');
    await always.waitFor({ timeout: 30_000 });
    expect(await always.locator('p').textContent()).toBe(
      '1 pointers reach the agent at every session start; never seen: 3 memories past the cut (cut_a.md, cut_b.md, cut_c.md) · 20 pointers to missing files.',
    );
  });

  it('Make room says the same 24 pointers in its header, its button and its result', async () => {
    await open('index');
    await page.getByRole('button', { name: 'Make room…' }).click();
    const room = page.getByRole('region', { name: 'Make room' });
    const loaded = room.getByLabel('Loaded part after your choices');
    await loaded.getByText(`Now: 224 lines, 8,462 characters; below the cut: 24 pointers (${FACTS})`).waitFor();
    // The `- See […](cut_c.md)` line is a pointer below the cut too: the button drops it with the rest.
    await room.getByRole('button', { name: 'Drop the 24 pointers below the cut' }).click();
    expect(await room.getByLabel('Choice for line 223', { exact: true }).inputValue()).toBe('drop');
    await loaded.getByText('Fits: everything reaches the agent').waitFor();
    await room.getByRole('button', { name: 'Apply 24 choices' }).click();
    await page.getByText(/^Made room: 24 pointers were below the cut, now none\. MEMORY\.md: 199 of 200 lines/).waitFor();
    const after = await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8');
    expect(after).not.toContain('cut_c.md');
    expect(after).toContain('- [Kept](kept.md) — reaches the agent');
    // The memories stay on disk: recall still finds them by their descriptions.
    await fs.access(path.join(memory, 'cut_c.md'));
    expect(errors).toEqual([]);
  });
});
