/**
 * Two memories whose names differ only by Unicode form, in real Chromium against the real
 * headless host: a decomposed `cafe\u0301.md` (macOS tools, archives, rsync) beside a composed
 * `caf\u00e9.md`. Linux keeps both; the one the user picked is the one opened, saved and deleted.
 * Each test checks the files on disk, not only the screen.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const DIR = '-work-cafe';
const NFD = 'cafe\u0301.md';
const NFC = 'caf\u00e9.md';
const TEAM_NFD = 're\u0301sume\u0301.md';
const topic = (description: string) => `---\nname: Café\ndescription: ${description}\ntype: reference\n---\nAbout ${description}.\n`;
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe.skipIf(!HAS_BROWSER)(`names that differ only by Unicode form${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const read = (file: string) => fs.readFile(path.join(memory, file), 'utf8');
  const names = async () => (await fs.readdir(memory)).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md').sort();
  const description = () => page.getByRole('textbox', { name: /^Description/ });
  const row = (file: string, scope = 'private') => page.locator(`[data-file="${file}"][data-scope="${scope}"]`);

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-nfd-'));
    memory = path.join(root, 'home', 'projects', DIR, 'memory');
    await fs.mkdir(path.join(memory, 'team'), { recursive: true });
    await fs.writeFile(path.join(memory, NFD), topic('nfd cafe'));
    await fs.writeFile(path.join(memory, NFC), topic('nfc cafe'));
    await fs.writeFile(path.join(memory, 'MEMORY.md'), `- [Café](${NFD}) — nfd cafe\n- [Café](${NFC}) — nfc cafe\n`);
    await fs.writeFile(path.join(memory, 'team', TEAM_NFD), topic('team resume'));
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    await row(NFD).waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('deletes the picked NFD memory, and leaves its NFC twin', async () => {
    await row(NFD).click();
    await eventually(() => description().inputValue()).toBe('nfd cafe');
    await page.locator('form.editor').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted' }).first().waitFor();
    await eventually(names).toEqual([NFC]);
    expect(await read(NFC)).toBe(topic('nfc cafe'));
    expect(await read('MEMORY.md')).toBe(`- [Café](${NFC}) — nfc cafe\n`);
  });

  it('opens and saves the picked NFD memory, and leaves its NFC twin', async () => {
    await fs.writeFile(path.join(memory, NFD), topic('nfd cafe'));
    await row(NFD).waitFor();
    await row(NFD).click();
    await eventually(() => description().inputValue()).toBe('nfd cafe');
    await description().fill('nfd edited');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Saved .*\.md\.$/).waitFor();
    expect(await read(NFD)).toContain('description: nfd edited');
    expect(await read(NFC)).toBe(topic('nfc cafe'));
  });

  it('opens a team memory whose name is only in NFD', async () => {
    await row(TEAM_NFD, 'team').click();
    await eventually(() => description().inputValue()).toBe('team resume');
    expect(errors).toEqual([]);
  });
});
