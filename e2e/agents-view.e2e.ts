/**
 * The Agent memory view (R-AGENT) in real Chromium against the real headless host: a user-level
 * sub-agent with memory is listed with its memories and index under "user", and a second visit
 * shows the list again (the view reads it through its store).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { execFileSync } from 'node:child_process';
import { sanitizeDirName } from '../src/shared/sanitize.js';
import { addSession } from '../src/main/relink/test-support/moved-project.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`the Agent memory view${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let repo: string;
  let host: Host;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-agents-'));
    const home = path.join(root, 'home');
    await fs.mkdir(path.join(home, 'agents'), { recursive: true });
    await fs.writeFile(path.join(home, 'agents', 'reviewer.md'), '---\nname: reviewer\nmemory: user\ndescription: Reviews code\n---\nYou are a reviewer.\n');
    const memory = path.join(home, 'agent-memory', 'reviewer');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Naming](naming.md) — kebab-case files\n');
    await fs.writeFile(path.join(memory, 'naming.md'), '---\nname: Naming\ndescription: kebab-case files\ntype: feedback\n---\nFiles are kebab-case.\n');
    // A project whose sessions start at its root and in tools/, where its own agent keeps local memory.
    repo = path.join(root, 'shop');
    const tools = path.join(repo, 'tools');
    await fs.mkdir(path.join(tools, '.claude', 'agents'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: repo });
    await fs.writeFile(path.join(tools, '.claude', 'agents', 'fixer.md'), '---\nname: fixer\nmemory: local\ndescription: Fixes\n---\nYou fix.\n');
    const fixer = path.join(tools, '.claude', 'agent-memory-local', 'fixer');
    await fs.mkdir(fixer, { recursive: true });
    await fs.writeFile(path.join(fixer, 'MEMORY.md'), '- [Flaky](flaky.md) — the flaky test\n');
    await fs.writeFile(path.join(fixer, 'flaky.md'), '---\nname: Flaky\ndescription: the flaky test\ntype: project\n---\nRetry it once.\n');
    // A project agent whose MEMORY.md is a link (to a file in the repository): Claude Code 2.1.332 does not read it.
    await fs.mkdir(path.join(repo, '.claude', 'agents'), { recursive: true });
    await fs.writeFile(path.join(repo, '.claude', 'agents', 'linker.md'), '---\nname: linker\nmemory: project\ndescription: Links\n---\nYou link.\n');
    const linker = path.join(repo, '.claude', 'agent-memory', 'linker');
    await fs.mkdir(linker, { recursive: true });
    await fs.writeFile(path.join(repo, 'index.md'), '- [Shared](shared.md) — kept outside the folder\n');
    await fs.symlink(path.join(repo, 'index.md'), path.join(linker, 'MEMORY.md'));
    await addSession(home, repo, 'a');
    await addSession(home, tools, 'b');
    // A fixer launched by the session in tools/ was given its index: its transcript says so (as Claude Code 2.1.332 writes it).
    const snapshot = (await fs.readFile(path.resolve(__dirname, '../test/fixtures/claude-code-agent/prompt-snapshot.jsonl'), 'utf8'))
      .replace('$MEMORY_DIR', fixer)
      .replace('$INDEX', '- [Flaky](flaky.md) — the flaky test')
      .replace('$MARKER', 'M')
      .replace('$REPO', repo)
      .replace('2026-12-06T07:47:37.532Z', new Date(Date.now() - 3 * 3600_000).toISOString());
    const subagents = path.join(home, 'projects', sanitizeDirName(tools), 'b', 'subagents');
    await fs.mkdir(subagents, { recursive: true });
    await fs.writeFile(path.join(subagents, 'agent-a1.jsonl'), snapshot);
    await fs.mkdir(path.join(home, 'projects', sanitizeDirName(repo), 'memory'), { recursive: true });
    host = await startHost(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("lists a user-level agent's memory, and again on a second visit", async () => {
    await page.goto(`${host.url}#/agents`);
    const table = page.getByRole('table', { name: 'Agent memory' });
    const row = table.getByRole('row').filter({ hasText: 'reviewer' });
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('1 memory');
    expect(await page.getByRole('heading', { name: 'Agent memory' }).count()).toBe(1);
    expect(await page.getByText('user level (open a project to see its agents)').count()).toBe(1);
    await page.screenshot({ path: artifact('agents-view.png'), fullPage: true });

    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await table.waitFor({ state: 'detached' });
    await page.goto(`${host.url}#/agents`);
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('1 memory');
  });

  it('shows the agent memory of another directory the sessions start in, chosen above the table', async () => {
    await page.goto(`${host.url}#/agents/${encodeURIComponent(sanitizeDirName(repo))}`);
    const choice = page.getByLabel('Sessions started in');
    await choice.waitFor({ timeout: 20_000 });
    const table = page.getByRole('table', { name: 'Agent memory' });
    expect(await table.getByRole('row').filter({ hasText: 'fixer' }).count()).toBe(0);
    await choice.selectOption(path.join(repo, 'tools'));
    const row = table.getByRole('row').filter({ hasText: 'fixer' });
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('1 memory');
    // What its sub-agent was last given, read from the sub-agent's transcript.
    expect(await row.textContent()).toContain('last given to a sub-agent 3 hours ago');
  });

  it('says a project MEMORY.md that is a link is not read by Claude Code, instead of metering what it loads', async () => {
    await page.goto(`${host.url}#/agents/${encodeURIComponent(sanitizeDirName(repo))}`);
    const table = page.getByRole('table', { name: 'Agent memory' });
    const row = table.getByRole('row').filter({ hasText: 'linker' });
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('MEMORY.md not read by Claude Code');
    expect(await row.textContent()).not.toContain(`/200 lines`);
    const banner = page.locator('.banner.warning').filter({ hasText: 'Claude Code does not read the MEMORY.md of sub-agent "linker"' });
    expect(await banner.textContent()).toContain('it is a symbolic link, and in project memory only a plain file is read');
    await page.screenshot({ path: artifact('agents-view-not-read.png'), fullPage: true });
  });
});
