/**
 * Health's "Fix all" across both scopes, in real Chromium against the real headless host: the
 * effect sentence previews the team's pointers on MEMORY.md as the private fixes leave it (the
 * order the button applies them), so the sentences add up, and a team orphan whose pointer would
 * then fall below the cut is held back before the click, not found held back after it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topic } from '../src/main/relink/test-support/moved-project.js';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import type { Host } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`Health's Fix all across both scopes${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-fix-all-'));
    memory = path.join(root, 'home', 'projects', '-work-fixall', 'memory');
    await fs.mkdir(path.join(memory, 'team'), { recursive: true });
    // 198 lines: the two private orphans fill MEMORY.md to 200, so the team orphan's pointer would be line 201.
    await fs.writeFile(path.join(memory, 'MEMORY.md'), Array.from({ length: 198 }, (_, i) => `- note ${i}`).join('\n') + '\n');
    await fs.writeFile(path.join(memory, 'a.md'), topic('a', 'feedback', 'A.'));
    await fs.writeFile(path.join(memory, 'b.md'), topic('b', 'feedback', 'B.'));
    await fs.writeFile(path.join(memory, 'team', 'oncall.md'), topic('oncall', 'project', 'Page the on-call first.'));
    ({ host, browser, page } = await openApp(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')], errors));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('says what applying in order does: the private pointers fill MEMORY.md, the team one is held back, and the click does just that', async () => {
    await page.getByRole('button', { name: '-work-fixall' }).first().click();
    await page.getByRole('button', { name: 'Health' }).click();
    const effect = page.getByLabel('Effect of the fixes');
    await effect.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => effect.textContent())
      .toMatch(
        /MEMORY\.md goes from 198 to 200 lines \([\d,]+ characters\); Claude Code loads at most 200 lines and 25,000 characters; everything reaches the agent\./,
      );
    expect(await effect.textContent()).toContain('MEMORY.md (team pointers) stays at 200 lines; everything reaches the agent.');
    await page.getByRole('note').filter({ hasText: '1 orphan is held back' }).waitFor();
    await page.getByRole('button', { name: 'Fix 2 safely' }).click();
    await page.getByRole('status').filter({ hasText: 'Fixed 2 problems.' }).waitFor();
    const lines = (await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).trimEnd().split('\n');
    expect([lines.length, lines.some((l) => l.includes('team/oncall.md'))]).toEqual([200, false]);
    expect(errors).toEqual([]);
  });

  it('Make room for the held-back team orphan opens Make room on MEMORY.md, where its pointer goes (team/MEMORY.md has no cut)', async () => {
    await page.getByRole('button', { name: 'Make room for 1…' }).click();
    await page.getByRole('region', { name: 'Make room' }).waitFor({ timeout: 10_000 });
    expect(await page.getByRole('combobox', { name: 'Which index' }).inputValue()).toBe('private');
    expect(errors).toEqual([]);
  });
});
