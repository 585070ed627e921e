/**
 * Personal sync between two of one user's machines (issue 18, item 5): a sync server started
 * with the built `memdir server`, a personal space and a token per machine made with `memdir
 * server admin`, two app instances (two homes, two data dirs, the project checked out at two
 * different paths) in real Chromium. The first sets the passphrase in Settings after the warning;
 * the second is refused a wrong one, then connects; both turn personal sync on in the project's
 * Team sync tab, and the first machine's private memory arrives on the second.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../src/server/test-support/server-process.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const MEMDIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../out/cli/memdir.js');
const run = promisify(execFile);
const PASSPHRASE = 'violet kettle under the stairs';
const SESSION = '0b7e3c52-7a1d-4c55-9f3e-1d2a3b4c5d6e';

describe.skipIf(!HAS_BROWSER)(`personal sync between two machines${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let server: ServerProcess;
  const tokens: Record<'a' | 'b', string> = { a: '', b: '' };
  let browser: Browser;
  const hosts: Host[] = [];
  const pages: Page[] = [];
  const errors: string[] = [];
  const dirs: Record<'a' | 'b', string> = { a: '', b: '' };
  const memory = (m: 'a' | 'b') => path.join(root, m, 'home', 'projects', dirs[m], 'memory');

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-personal-')));
    const db = path.join(root, 'server', 'sync.sqlite');
    // The server creates its store; admin commands only open one that is there.
    server = await startServerProcess([MEMDIR], db, { rate: 1000, timeoutMs: 20_000 });
    await run(process.execPath, [MEMDIR, 'server', 'admin', 'create-personal', 'ann', '--db', db]);
    for (const m of ['a', 'b'] as const) {
      const { stdout } = await run(process.execPath, [
        MEMDIR,
        'server',
        'admin',
        'issue-token',
        'ann',
        '--personal',
        '--member',
        `machine-${m}`,
        '--db',
        db,
        '--json',
      ]);
      tokens[m] = (JSON.parse(stdout) as { token: string }).token;
    }
    // One repository, checked out at two unrelated paths; a Claude Code session in each.
    const checkouts = { a: path.join(root, 'a', 'src', 'shop'), b: path.join(root, 'b', 'work', 'clones', 'shop-2') };
    const remotes = { a: 'git@github.com:ann/shop.git', b: 'https://github.com/ann/shop' };
    for (const m of ['a', 'b'] as const) {
      const repo = checkouts[m];
      await fs.mkdir(path.join(repo, '.git'), { recursive: true });
      await fs.writeFile(path.join(repo, '.git', 'config'), `[remote "origin"]\n\turl = ${remotes[m]}\n`);
      dirs[m] = repo.replace(/[^A-Za-z0-9]/g, '-');
      await fs.mkdir(memory(m), { recursive: true });
      await fs.writeFile(
        path.join(root, m, 'home', 'projects', dirs[m], `${SESSION}.jsonl`),
        `${JSON.stringify({ type: 'user', cwd: repo, sessionId: SESSION, message: { role: 'user', content: 'hi' } })}\n`,
      );
    }
    await fs.writeFile(path.join(memory('a'), 'MEMORY.md'), '- [Me](user_me.md) — who I am\n');
    await fs.writeFile(path.join(memory('a'), 'user_me.md'), '---\nname: Me\ndescription: Who I am\ntype: user\n---\n\nI prefer small pull requests.\n');

    browser = await launchBrowser();
    for (const m of ['a', 'b'] as const) {
      const host = await startHost(['--home', path.join(root, m, 'home'), '--port', '0', '--data-dir', path.join(root, m, 'data')]);
      hosts.push(host);
      const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
      page.on('pageerror', (e) => errors.push(`${m}: ${e.message}`));
      pages.push(page);
    }
  });
  afterAll(async () => {
    await browser?.close();
    for (const host of hosts) await host.stop();
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  async function fillConnect(page: Page, host: Host, token: string, passphrase: string): Promise<void> {
    await page.goto(`${host.url}#/settings`);
    const form = page.getByRole('form', { name: 'Connect to your personal space' });
    await form.waitFor({ timeout: 20_000 });
    await form.getByLabel('Personal server URL').fill(server.url);
    await form.getByLabel('Personal token').fill(token);
    await form.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  }

  async function turnOn(page: Page, host: Host, dir: string): Promise<void> {
    await page.goto(`${host.url}#/p/${encodeURIComponent(dir)}/team`);
    const panel = page.getByRole('region', { name: 'Personal sync' });
    await panel.getByText('remote github.com/ann/shop').waitFor({ timeout: 20_000 });
    await panel.getByRole('button', { name: 'Sync my private memory with my other machines' }).click();
    await expect.poll(() => panel.locator('[data-state]').first().getAttribute('data-state'), { timeout: 20_000 }).toBe('synced');
  }

  it('the first machine sets the passphrase after the warning and syncs the project', async () => {
    const a = pages[0]!;
    await fillConnect(a, hosts[0]!, tokens.a, PASSPHRASE);
    const form = a.getByRole('form', { name: 'Connect to your personal space' });
    // What losing it means is on screen before anything is sent.
    expect(await form.getByRole('note', { name: 'About the passphrase' }).textContent()).toContain('If you lose it, nobody can decrypt the synced copy');
    await form.getByRole('button', { name: 'Connect', exact: true }).click();
    const confirm = form.getByRole('alert', { name: 'Set the passphrase' });
    await confirm.waitFor({ timeout: 20_000 });
    const set = form.getByRole('button', { name: 'Set the passphrase and connect' });
    expect(await set.isDisabled()).toBe(true);
    await confirm.getByLabel('Passphrase again').fill(PASSPHRASE);
    await confirm.getByLabel('I understand').check();
    await a.screenshot({ path: artifact('20-personal-passphrase.png'), fullPage: true });
    await set.click();
    await a.getByLabel('Key fingerprint').waitFor({ timeout: 20_000 });
    await turnOn(a, hosts[0]!, dirs.a);
  });

  it('the second machine is refused a wrong passphrase, then connects and receives the memory at its own path', async () => {
    const b = pages[1]!;
    await fillConnect(b, hosts[1]!, tokens.b, 'violet kettle under the table');
    const form = b.getByRole('form', { name: 'Connect to your personal space' });
    await form.getByRole('button', { name: 'Connect', exact: true }).click();
    await form.getByText(/That passphrase does not open this personal space/).waitFor({ timeout: 20_000 });
    expect(await fs.readdir(path.join(root, 'b', 'data', 'personal')).catch(() => [])).toEqual([]);
    await form.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
    await form.getByRole('button', { name: 'Connect', exact: true }).click();
    await b.getByLabel('Key fingerprint').waitFor({ timeout: 20_000 });
    // The same key on both machines: the fingerprints a person would compare agree.
    const keyOfA = (JSON.parse(await fs.readFile(path.join(root, 'a', 'data', 'personal', 'account.json'), 'utf8')) as { keyId: string }).keyId;
    expect(await b.getByLabel('Key fingerprint').textContent()).toBe(keyOfA);
    await turnOn(b, hosts[1]!, dirs.b);
    expect(await fs.readFile(path.join(memory('b'), 'user_me.md'), 'utf8')).toContain('I prefer small pull requests.');
    await b.screenshot({ path: artifact('21-personal-synced.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it('a conflict resolved by "Take mine" or a merge says so with an Undo that puts the other machine\'s version back and opens the conflict again', async () => {
    const [a, b] = pages as [Page, Page];
    const file = path.join(memory('b'), 'user_me.md');
    const head = '---\nname: Me\ndescription: Who I am\ntype: user\n---\n\nI prefer small pull requests.\n';
    // The first machine's edit goes up first; the second machine's edit of the same line becomes a conflict there.
    await fs.writeFile(path.join(memory('a'), 'user_me.md'), `${head}Green tea.\n`);
    await a.getByRole('region', { name: 'Personal sync' }).getByRole('button', { name: 'Sync now' }).click();
    await a
      .getByRole('status')
      .filter({ hasText: /^Synced:/ })
      .first()
      .waitFor({ timeout: 20_000 });
    await fs.writeFile(file, `${head}Coffee.\n`);
    await b.goto(`${hosts[1]!.url}#/p/${encodeURIComponent(dirs.b)}/team`);
    const panel = b.getByRole('region', { name: 'Personal sync' });
    await panel.getByRole('button', { name: 'Sync now' }).click();
    const conflicts = panel.getByRole('table', { name: 'Personal sync conflicts' });
    await conflicts.locator('tr[data-key="user_me.md"]').waitFor({ timeout: 20_000 });
    const pulled = await fs.readFile(file, 'utf8');
    expect(pulled).toContain('Green tea.');
    const notices = b.getByRole('region', { name: 'Notifications' });

    for (const [take, button] of [
      ['mine', 'Take mine'],
      ['merge', 'Save merge'],
    ] as const) {
      await conflicts.locator('tr[data-key="user_me.md"]').getByRole('button', { name: 'Resolve…' }).click();
      await panel.getByRole('region', { name: 'Resolve user_me.md' }).getByRole('button', { name: button }).click();
      const toast = notices.getByRole('status').filter({ hasText: 'Saved user_me.md.' });
      await toast.waitFor({ timeout: 20_000 });
      await expect.poll(() => conflicts.count(), { timeout: 20_000 }).toBe(0);
      expect(await fs.readFile(file, 'utf8'), take).toContain('Coffee.');
      // Its Undo, as team sync's: the file as the pull left it, and the conflict open again to choose again.
      await toast.getByRole('button', { name: 'Undo' }).click();
      await notices.getByRole('status').filter({ hasText: 'The personal sync conflict on user_me.md is open again' }).waitFor({ timeout: 20_000 });
      expect(await fs.readFile(file, 'utf8'), take).toBe(pulled);
      await conflicts.locator('tr[data-key="user_me.md"]').waitFor({ timeout: 20_000 });
      while ((await notices.getByRole('button', { name: 'Dismiss' }).count()) > 0) await notices.getByRole('button', { name: 'Dismiss' }).first().click();
    }
    // Keeping the other machine's version, then its Undo: yours back on disk, and the conflict opened again
    // shows the other machine's version as its side (the sync's cached copy: not on disk now, and said so).
    await conflicts.locator('tr[data-key="user_me.md"]').getByRole('button', { name: 'Resolve…' }).click();
    await panel.getByRole('region', { name: 'Resolve user_me.md' }).getByRole('button', { name: "Take your other machine's" }).click();
    const kept = notices.getByRole('status').filter({ hasText: "Kept your other machine's version of user_me.md." });
    await kept.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => fs.readFile(file, 'utf8'), { timeout: 20_000 }).toContain('Coffee.');
    await conflicts.locator('tr[data-key="user_me.md"]').getByRole('button', { name: 'Resolve…' }).click();
    const editor = panel.getByRole('region', { name: 'Resolve user_me.md' });
    const theirs = editor.getByRole('region', { name: "Your other machine's version (as last synced; yours is on disk)" });
    await theirs.getByText('Green tea.').waitFor({ timeout: 20_000 });
    // The whole of the other machine's version, line by line — not the merge this machine pushed (it holds 'Coffee.' too).
    const shown = (await theirs.locator('.merge-line').allTextContents()).map((line) => (line === ' ' ? '' : line));
    expect(shown).toEqual(pulled.split('\n'));
    await editor.getByRole('region', { name: 'Your version (kept)' }).getByText('Coffee.').waitFor();
    await b.screenshot({ path: artifact('23-personal-resolution-undone.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it('a memory folder Claude Code syncs itself as the user\'s store shows as such in words, not as "."', async () => {
    const b = pages[1]!;
    await fs.writeFile(path.join(memory('b'), '.memory-sync'), '{"v":1,"partition":"/u"}');
    const panel = b.getByRole('region', { name: 'Personal sync' });
    await panel.getByRole('button', { name: 'Sync now' }).click();
    const row = panel.getByRole('table', { name: 'Not on your other machines yet' }).locator('tr[data-reason="claude-code-store"]');
    await row.waitFor({ timeout: 20_000 });
    expect(await row.locator('code').textContent()).toBe('the whole memory folder');
    expect(await row.textContent()).toContain('This memory folder is a folder Claude Code syncs itself');
    await b.screenshot({ path: artifact('22-personal-user-store.png'), fullPage: true });
    expect(errors).toEqual([]);
  });
});
