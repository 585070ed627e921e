/**
 * One rule for what an index lists (shared/index-state.ts), in real Chromium against the real
 * headless host, on a project whose two indexes are both over the limit (test-support/cut-home.ts,
 * layOutListingHome): team_a.md is loaded through MEMORY.md, team_b.md is named only below
 * MEMORY.md's cut, team_c.md and team_d.md only in team/MEMORY.md — which Claude Code 2.1.332 does
 * not load — and aside.md and later.md only by a cross-reference in a hook. The dashboard's badge,
 * the memory list's rows, the team MEMORY.md tab and Health say the same as `memdir scan` and
 * `lint` (src/cli/cut-counts.test.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layOutListingHome } from '../src/main/memdir/test-support/cut-home.js';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import type { Host } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

const DIR = '-work-listing';

describe.skipIf(!HAS_BROWSER)(`what an index lists, in the app${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const open = async (tab: string) => {
    await page.evaluate(`location.hash = '#/p/${DIR}/${tab}'`);
  };

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-listing-'));
    await layOutListingHome(path.join(root, 'home', 'projects', DIR, 'memory'));
    ({ host, browser, page } = await openApp(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')], errors, {
      ANTHROPIC_API_KEY: '',
    }));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("the dashboard's badge and the memory list's rows say the same: 3 past the cut, the two team/MEMORY.md alone lists unlisted", async () => {
    const badge = page.locator('tr', { hasText: 'listing' }).locator('.badge.error', { hasText: 'cut' });
    await badge.waitFor();
    expect(await badge.textContent()).toBe('3 cut');
    await open('memories');
    const summary = page.locator('.list-count');
    await expect.poll(() => summary.textContent()).toContain('8 memories');
    expect(await summary.textContent()).toContain('3 past the index cut');
    const list = page.getByRole('listbox', { name: 'Memories' });
    const marks = async (name: string) => {
      const row = list.getByRole('option', { name, exact: true });
      expect(await row.count()).toBe(1);
      return (await row.locator('.badge').allTextContents()).join(' ');
    };
    expect(await list.locator('.badge', { hasText: 'unlisted' }).count()).toBe(2);
    // Named only by a cross-reference: aside.md on a loaded line, later.md below the cut.
    expect(await marks('aside')).toBe('');
    expect(await marks('later')).toBe('cut');
    // Loaded through MEMORY.md; named only below MEMORY.md's cut; listed in team/MEMORY.md only (Health's orphan).
    expect(await marks('team_a, team')).toBe('');
    expect(await marks('team_b, team')).toBe('cut');
    expect(await marks('team_c, team')).toBe('unlisted 1 problem');
    expect(await marks('team_d, team')).toBe('unlisted 1 problem');
  });

  it('the team MEMORY.md tab says Claude Code does not load it (no meter, no cut, no Make room); Health warns of MEMORY.md alone', async () => {
    await open('index');
    await page.getByLabel('Which index').selectOption('team');
    await expect.poll(() => page.getByRole('status', { name: 'Index not loaded' }).textContent()).toContain('Claude Code 2.1.332 does not load team/MEMORY.md');
    await page.getByRole('list', { name: 'MEMORY.md lines' }).getByText('- [Team D](team_d.md) — below both cuts').waitFor();
    expect(await page.getByRole('separator').filter({ hasText: 'The agent never sees anything below this line' }).count()).toBe(0);
    expect(await page.getByLabel(/^Index load:/).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Make room…' }).count()).toBe(0);
    await open('health');
    const problems = page.getByRole('list', { name: 'Problems' });
    const overLimit = problems.locator('li', { hasText: 'index too long' });
    await expect.poll(() => overLimit.count()).toBe(1);
    expect(await overLimit.textContent()).toContain('so 2 memories are never seen at session start.');
    const orphans = problems.locator('li', { hasText: 'listed only in team/MEMORY.md, which Claude Code 2.1.332 does not load' });
    expect(await orphans.count()).toBe(2);
    expect(errors).toEqual([]);
  });

  it("Health's fix for a team memory listed only in team/MEMORY.md points at it from MEMORY.md as team/x.md (here below the cut, as it says), and Undo takes it back", async () => {
    const memory = path.join(root, 'home', 'projects', DIR, 'memory');
    const before = await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8');
    const teamBefore = await fs.readFile(path.join(memory, 'team', 'MEMORY.md'), 'utf8');
    await open('health');
    const problems = page.getByRole('list', { name: 'Problems' });
    const orphan = problems.locator('li', { hasText: 'team/team_c.md is listed only in team/MEMORY.md' });
    // MEMORY.md is past its limit: the button says where the pointer would land.
    await orphan.getByText('Its pointer would land below the cut: Claude Code would never load it.').waitFor();
    const fix = orphan.getByRole('button', { name: /^Fix: team\/team_c\.md is listed only in team\/MEMORY\.md/ });
    expect(await fix.textContent()).toBe('Add below the cut');
    await fix.click();
    await page.getByText(/^Fixed 1 problem\. MEMORY\.md/).waitFor();
    expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toMatch(/\n- \[team_c\]\(team\/team_c\.md\) — [^\n]+\n/);
    expect(await fs.readFile(path.join(memory, 'team', 'MEMORY.md'), 'utf8')).toBe(teamBefore);
    await expect.poll(() => problems.locator('li', { hasText: 'listed only in team/MEMORY.md' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('status').filter({ hasText: 'Undone.' }).first().waitFor();
    expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toBe(before);
    await expect.poll(() => problems.locator('li', { hasText: 'listed only in team/MEMORY.md' }).count()).toBe(2);
    expect(errors).toEqual([]);
  });
});
