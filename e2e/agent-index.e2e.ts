/**
 * "What the agent sees" in the index view, in real Chromium against the real headless host: the
 * text Claude Code will load at the next session start (cut, with its warning), and a warning
 * when the newest transcript recorded a different injection (R-INDEX).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIndexAsClaudeCode } from '../src/shared/index-load.js';
import { sanitizeDirName } from '../src/shared/sanitize.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const FIXTURES = path.resolve(__dirname, '../test/fixtures/claude-code-index');

/** A project whose newest transcript recorded `injected` as the index Claude Code 2.1.332 loaded. */
async function project(home: string, dir: string, cwd: string, index: string, injected: string, write: (record: object) => string = (r) => JSON.stringify(r)) {
  const folder = path.join(home, 'projects', dir);
  await fs.mkdir(path.join(folder, 'memory'), { recursive: true });
  await fs.writeFile(path.join(folder, 'memory', 'MEMORY.md'), index);
  // The attachment line as Claude Code 2.1.332 wrote it, with this project's content.
  const record = JSON.parse(await fs.readFile(path.join(FIXTURES, 'instructions-attachment.jsonl'), 'utf8'));
  record.cwd = cwd;
  record.attachment.files[0].content = injected;
  await fs.writeFile(path.join(folder, '7c1d2e3f-0000-4000-8000-000000000001.jsonl'), `${write(record)}\n`);
}

describe.skipIf(!HAS_BROWSER)(`what the agent sees${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  let offDir: string;
  let droppedDir: string;
  let offBuiltDir: string;
  const index = async () => fs.readFile(path.join(FIXTURES, 'fm-comment-220.md'), 'utf8');

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-agent-'));
    const home = path.join(root, 'home');
    const text = await index();
    // Stale: the last session got a 2-line index; the file has changed since.
    await project(home, '-work-stale', '/work/stale', text, '- [Entry 1](entry_001.md) — hook number 1\n- [Entry 2](entry_002.md) — hook number 2');
    // In step: the last session got exactly what Memdir predicts.
    await project(home, '-work-fresh', '/work/fresh', text, loadIndexAsClaudeCode(text, { version: '2.1.332' }).text);
    // The same record with a space after every colon and comma (one line still), and one that names no version.
    const spaced = (r: object) => JSON.stringify(r, null, 1).replace(/\n */g, ' ');
    await project(home, '-work-spaced', '/work/spaced', text, 'x', spaced);
    await project(home, '-work-unsaid', '/work/unsaid', text, 'x', (r) => JSON.stringify({ ...r, version: undefined }));
    // Auto memory off in the project's own settings: Claude Code 2.1.332 then injects no index.
    offDir = await fs.realpath(await fs.mkdtemp(path.join(root, 'off-')));
    await fs.mkdir(path.join(offDir, '.claude'));
    await fs.writeFile(path.join(offDir, '.claude', 'settings.json'), JSON.stringify({ autoMemoryEnabled: false }));
    await project(home, sanitizeDirName(offDir), offDir, text, 'x');
    // Memories but no MEMORY.md: Claude Code 2.1.332 writes one at the next session start (index-build.ts).
    await project(home, '-work-built', '/work/built', '', 'x');
    const built = path.join(home, 'projects', '-work-built', 'memory');
    await fs.rm(path.join(built, 'MEMORY.md'));
    for (const [file, hook, at] of [
      ['older.md', 'the older one', 1_767_225_600],
      ['newer.md', 'the newer one', 1_767_225_660],
    ] as const) {
      await fs.writeFile(path.join(built, file), `---\nname: ${file}\ndescription: ${hook}\ntype: project\n---\nBody.\n`);
      await fs.utimes(path.join(built, file), at, at);
    }
    // Memories but no MEMORY.md, and auto memory off in the project's settings: Claude Code 2.1.332 then writes none
    // (test/fixtures/claude-code-index/observed-built.json, memory-off-project).
    offBuiltDir = await fs.realpath(await fs.mkdtemp(path.join(root, 'off-built-')));
    await fs.mkdir(path.join(offBuiltDir, '.claude'));
    await fs.writeFile(path.join(offBuiltDir, '.claude', 'settings.json'), JSON.stringify({ autoMemoryEnabled: false }));
    await project(home, sanitizeDirName(offBuiltDir), offBuiltDir, '', 'x');
    const offBuilt = path.join(home, 'projects', sanitizeDirName(offBuiltDir), 'memory');
    await fs.rm(path.join(offBuilt, 'MEMORY.md'));
    await fs.writeFile(path.join(offBuilt, 'kept.md'), '---\nname: kept.md\ndescription: a memory\ntype: project\n---\nBody.\n');
    // The project's settings dropped whole by Claude Code's schema (a permission mode it does not know).
    droppedDir = await fs.realpath(await fs.mkdtemp(path.join(root, 'dropped-')));
    await fs.mkdir(path.join(droppedDir, '.claude'));
    await fs.writeFile(path.join(droppedDir, '.claude', 'settings.json'), JSON.stringify({ autoMemoryEnabled: false, permissions: { defaultMode: 'bogus' } }));
    await project(home, sanitizeDirName(droppedDir), droppedDir, text, 'x');
    host = await startHost(['--home', home, '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('shows the exact text of the next session start, and warns that the last session got another', async () => {
    await page.goto(host.url);
    await page.getByRole('button', { name: '/work/stale' }).click();
    await page.getByRole('button', { name: 'MEMORY.md' }).click();
    const sees = page.getByRole('region', { name: 'What the agent sees' });
    await sees.waitFor();
    const text = sees.getByLabel('Index text the agent gets');
    await expect.poll(() => text.textContent()).toBe(loadIndexAsClaudeCode(await index(), { version: '2.1.332' }).text);
    expect(await text.textContent()).toContain(
      '> WARNING: MEMORY.md is 220 lines (limit: 200). Only part of it was loaded: 20 of 220 lines were cut off, starting at line 201',
    );
    await expect.poll(() => sees.getByRole('status').textContent()).toContain('The last session was given a different index');
    await sees.getByText('What the last session was given').click();
    await expect.poll(() => sees.getByLabel('Index text the last session got').textContent()).toContain('- [Entry 2](entry_002.md)');
    // The frontmatter and the comment block are shown as stripped; entry 201 (file line 210) starts the cut.
    await expect.poll(() => page.locator('.index-lines li.hidden').count()).toBe(9);
    await expect.poll(() => page.locator('.index-lines li.cut').first().textContent()).toContain('entry_201.md');
    await page.screenshot({ path: artifact('agent-index-stale.png'), fullPage: true });
  });

  it('says nothing when the last session got what Memdir predicts', async () => {
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await page.getByRole('button', { name: '/work/fresh' }).click();
    await page.getByRole('button', { name: 'MEMORY.md' }).click();
    const sees = page.getByRole('region', { name: 'What the agent sees' });
    await sees.waitFor();
    await expect.poll(() => sees.getByLabel('Index text the agent gets').textContent()).toContain('Only part of it was loaded');
    expect(await sees.getByRole('status').count()).toBe(0);
  });

  it('names the Claude Code version of a transcript written with spaces, and says when the transcripts do not name one', async () => {
    for (const [cwd, words] of [
      ['/work/spaced', 'The index exactly as Claude Code 2.1.332 will load it'],
      ['/work/unsaid', 'The index exactly as Claude Code (version unknown: its transcripts do not say) will load it'],
    ] as const) {
      await page.getByRole('button', { name: 'Projects', exact: true }).click();
      await page.getByRole('button', { name: cwd }).click();
      await page.getByRole('button', { name: 'MEMORY.md' }).click();
      const sees = page.getByRole('region', { name: 'What the agent sees' });
      await sees.getByText(words).waitFor();
    }
  });

  it('with auto memory off says the index is not loaded and why, and shows no text as what the agent sees', async () => {
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await page.getByRole('button', { name: offDir }).click();
    await page.getByRole('button', { name: 'MEMORY.md' }).click();
    const sees = page.getByRole('region', { name: 'What the agent sees' });
    await sees.waitFor();
    const why = `Auto memory is off for this project ("autoMemoryEnabled": false in ${path.join(offDir, '.claude', 'settings.json')}), so Claude Code loads no MEMORY.md at session start`;
    await expect.poll(() => page.getByRole('status', { name: 'Index not loaded' }).textContent()).toContain(why);
    await expect.poll(() => sees.getByLabel('Index text the agent gets').textContent()).toBe('(nothing: auto memory is off)');
    expect(await page.getByText('Everything reaches the agent').count()).toBe(0);
    await expect.poll(() => page.getByLabel(/^Index load:/).textContent()).toContain('Not loaded: auto memory is off');
    await page.screenshot({ path: artifact('agent-index-off.png'), fullPage: true });
  });

  it('with memories but no MEMORY.md says Claude Code writes one, and shows the index it will write and load', async () => {
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await page.getByRole('button', { name: '/work/built' }).click();
    await page.getByRole('button', { name: 'MEMORY.md' }).click();
    await expect
      .poll(() => page.getByRole('status', { name: 'Index built by Claude Code' }).textContent())
      .toBe('There is no MEMORY.md: Claude Code 2.1.332 writes one at its next session start, listing 2 memories newest first, and loads it.');
    const sees = page.getByRole('region', { name: 'What the agent sees' });
    await expect
      .poll(() => sees.getByLabel('Index text the agent gets').textContent())
      .toBe('- [newer](newer.md) — the newer one\n- [older](older.md) — the older one');
    await sees.getByText('The index Claude Code 2.1.332 will write as MEMORY.md and load at the next session start.').waitFor();
    await page.screenshot({ path: artifact('agent-index-built.png'), fullPage: true });
  });

  // Saving the editor's text as typed into an empty editor wrote MEMORY.md with that line alone: Claude
  // Code then builds nothing, and every other memory stayed unlisted for the agent for good.
  it('Edit MEMORY.md with none there starts from the index Claude Code would write, so a save keeps every memory listed', async () => {
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await page.getByRole('button', { name: '/work/built' }).click();
    await page.getByRole('button', { name: 'MEMORY.md' }).click();
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).click();
    const cm = page.locator('.cm-content');
    await expect.poll(() => cm.innerText()).toMatch(/^- \[newer\]\(newer\.md\) — the newer one\n- \[older\]\(older\.md\) — the older one\n/);
    await cm.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('## Notes\n');
    await page.getByRole('button', { name: 'Save MEMORY.md' }).click();
    const file = path.join(root, 'home', 'projects', '-work-built', 'memory', 'MEMORY.md');
    await expect
      .poll(() => fs.readFile(file, 'utf8').catch(() => null))
      .toBe('- [newer](newer.md) — the newer one\n- [older](older.md) — the older one\n## Notes\n');
  });

  it('with auto memory off and no MEMORY.md, Edit MEMORY.md starts from nothing: Claude Code builds no index then', async () => {
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await page.getByRole('button', { name: offBuiltDir }).click();
    await page.getByRole('button', { name: 'MEMORY.md' }).click();
    await expect.poll(() => page.getByRole('status', { name: 'Index not loaded' }).textContent()).toContain('Auto memory is off for this project');
    expect(await page.getByRole('status', { name: 'Index built by Claude Code' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Edit MEMORY.md' }).click();
    const cm = page.locator('.cm-content');
    await cm.waitFor();
    // The editor shows no pointer of an index the client would never write.
    await expect.poll(() => cm.innerText()).not.toContain('kept.md');
    expect((await cm.innerText()).trim()).toBe('');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('says when Claude Code drops the settings file whole, as `memdir where` and `show` do', async () => {
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await page.getByRole('button', { name: droppedDir }).click();
    await page.getByRole('button', { name: 'MEMORY.md' }).click();
    const file = path.join(droppedDir, '.claude', 'settings.json');
    await expect.poll(() => page.getByRole('status', { name: 'Settings not applied' }).textContent()).toContain(file);
    await expect.poll(() => page.getByRole('status', { name: 'Settings not applied' }).textContent()).toContain('permissions.defaultMode');
    // Its "autoMemoryEnabled": false is not in force: the index loads.
    expect(await page.getByRole('status', { name: 'Index not loaded' }).count()).toBe(0);
  });
});
