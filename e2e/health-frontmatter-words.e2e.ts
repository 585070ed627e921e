/**
 * Health's word for a memory without frontmatter (the most common problem in the 20 real memory
 * folders of shared/fixtures: log-style files with no `---` block) says what is wrong. It said
 * "unreadable header" — of a file that has no header at all, and whose text reads fine.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`Health, a memory without frontmatter${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-health-fm-'));
    const memory = path.join(root, 'home', 'projects', '-work-log', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Run log](run-log.md) — what each run found\n- [Plan](plan.md) — the plan\n');
    await fs.writeFile(path.join(memory, 'run-log.md'), '# Run log\n\n2026-12-01: all green.\n');
    await fs.writeFile(path.join(memory, 'plan.md'), '---\nname: "plan:" prefix means propose\ndescription: x\ntype: feedback\n---\nPlan first.\n');
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('names the kind as missing or broken frontmatter, not an unreadable header', async () => {
    const page = await browser.newPage();
    await page.goto(`${host.url}#/p/-work-log/health`);
    const list = page.getByRole('list', { name: 'Problems' });
    await list.getByText(/run-log\.md has no frontmatter/).waitFor({ timeout: 20_000 });
    await list.getByText(/plan\.md has frontmatter that is not valid YAML/).waitFor();
    const badges = await list.locator('.badge').allTextContents();
    expect(badges).not.toContain('unreadable header');
    expect(badges.filter((b) => b === 'frontmatter missing or broken')).toHaveLength(2);
    await page.close();
  });
});
