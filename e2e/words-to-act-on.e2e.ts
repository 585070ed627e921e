/**
 * Words a person can act on, in real Chromium at a laptop's 1024×700 (session 38, GUI review): a
 * secret refused on save is placed where the editor shows it (the body's line, not the file's), the
 * Health list names each problem kind in words (the JSON keeps its code), the Dream tab says which
 * setting to edit and shows no server flag name or raw ISO time, and a recall that asks nothing
 * does not say which model it asked.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const TOPIC = `---\nname: Deploy steps\ndescription: How we deploy the checkout service on Fridays\ntype: project\n---\n\nFirst build.\nThen ship.\n`;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/;

describe.skipIf(!HAS_BROWSER)(`words a person can act on${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-words-'));
    memory = path.join(root, 'home', 'projects', '-work-words', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'deploy.md'), TOPIC);
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Deploy steps](deploy.md) — how we deploy\n- [Gone](gone.md) — a file that is not there\n');
    // A dream two days ago: the sessions gate counts sessions since then.
    await fs.writeFile(path.join(memory, '.consolidate-lock'), '');
    const twoDaysAgo = new Date(Date.now() - 48 * 3600_000);
    await fs.utimes(path.join(memory, '.consolidate-lock'), twoDaysAgo, twoDaysAgo);
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('a secret refused on save is placed at the line of the body the editor shows', async () => {
    await page.goto(`${host.url}#/p/-work-words/memories/private/deploy.md`);
    const editor = page.getByRole('form', { name: 'Edit deploy.md' });
    const body = editor.getByLabel('Memory body');
    await body.click({ timeout: 20_000 });
    await page.keyboard.press('Control+End');
    const token = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`;
    await page.keyboard.type(`token ${token}`);
    const bodyLine = (await editor.locator('.cm-line').allTextContents()).findIndex((l) => l.includes('ghp_')) + 1;
    const fileLine = TOPIC.split('\n').length; // the body's last (empty) line, now holding the token
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    const refusal = page.getByRole('alertdialog', { name: 'Secret warning' });
    await refusal.waitFor();
    await page.screenshot({ path: artifact('words-secret.png') });
    const text = (await refusal.textContent()) ?? '';
    expect(text).toContain(`at line ${bodyLine} of its body (line ${fileLine} of the file)`);
    expect(fileLine).not.toBe(bodyLine);
  });

  it('Health names each problem kind in words, not its code', async () => {
    await page.goto(`${host.url}#/p/-work-words/health`);
    const list = page.getByRole('list', { name: 'Problems' });
    await list
      .getByText(/gone\.md/)
      .first()
      .waitFor({ timeout: 20_000 });
    await page.screenshot({ path: artifact('words-health.png') });
    const badges = await list.locator('.badge').allTextContents();
    expect(badges.length).toBeGreaterThan(0);
    for (const b of badges) expect(b).not.toMatch(/^[a-z]+(-[a-z]+)+$/);
    expect(badges).toContain('missing file');
  });

  it('Dream tab says which setting to edit, with no server flag name and no raw ISO time', async () => {
    await page.goto(`${host.url}#/p/-work-words/dream`);
    const gates = page.getByRole('region', { name: 'Dream gates' });
    await gates.getByRole('table', { name: 'Gates' }).waitFor({ timeout: 20_000 });
    // A second look uses the cached session count ("counted at …").
    await page.goto(`${host.url}#/p/-work-words/memories`);
    await page.goto(`${host.url}#/p/-work-words/dream`);
    await gates.getByRole('table', { name: 'Gates' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => gates.getByTestId('claude-code-dream').textContent()).toMatch(/Claude Code itself/);
    await page.screenshot({ path: artifact('words-dream.png') });
    const text = (await gates.textContent()) ?? '';
    expect(text).not.toMatch(/tengu_/);
    expect(text).not.toMatch(ISO);
    expect(text).toMatch(/Auto-dream is not set[^.]*autoDreamEnabled: true in Claude Code's settings\.json/);
  });

  it('a recall that asks nothing does not name a model it did not ask', async () => {
    await page.goto(`${host.url}#/p/-work-words/recall`);
    await page.getByLabel('Query', { exact: true }).fill('deploy');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const cc = page.getByRole('region', { name: 'Claude Code would load' });
    await cc.getByText('does not ask').waitFor({ timeout: 20_000 });
    await page.screenshot({ path: artifact('words-recall.png') });
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toMatch(/claude-(sonnet|haiku|opus)/);
    expect(text).not.toMatch(/topic files offered/);
    expect(text).not.toMatch(/this recall asks/);
  });
});
