/**
 * A newcomer's first day: Memdir started before Claude Code's first session, on a home that is
 * not there yet. The page says so, and Claude Code's first memory — home, projects/, the
 * project's folder and memory/ made in one go, with the bytes 2.1.332 writes — shows on the
 * open page without a reload.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

/** How long a change made outside may take to show on a loaded machine (as newcomer.e2e.ts). */
const LIVE = 20_000;

/** A memory as Claude Code 2.1.332 writes it (its frontmatter layout, recorded in a first-day run). */
const FEEDBACK_TABS = `---
name: tabs-not-spaces
description: "The user wants tabs, never spaces, in Go files"
metadata:
  node_type: memory
  type: feedback
  originSessionId: e0fe69dd-f2e3-4f48-a5fd-face5c699b80
  modified: 2026-12-07T06:57:24.277Z
---

Use tabs in Go files.

**Why:** gofmt.
`;

describe.skipIf(!HAS_BROWSER)(`a first session of Claude Code while Memdir runs${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let host: Host;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-first-'));
    // Not even the folder above the home is there yet.
    home = path.join(root, 'later', 'claude');
    host = await startHost(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('says the home is not there yet, then lists the first memory Claude Code writes, without a reload', async () => {
    await page.goto(host.url);
    await expect.poll(() => page.getByRole('heading', { name: 'No Claude Code home found' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Claude Code makes it at its first session').isVisible()).toBe(true);

    const memory = path.join(home, 'projects', '-work-app', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'feedback_tabs.md'), FEEDBACK_TABS);
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Tabs not spaces](feedback_tabs.md) — tabs in Go files\n');

    await expect.poll(() => page.getByRole('table', { name: 'Projects' }).locator('tbody tr').count(), { timeout: LIVE }).toBe(1);
  });
});
