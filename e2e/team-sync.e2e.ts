/**
 * Two machines share a team memory (issue 7): a sync server started with the built
 * `memdir server`, two app instances (two headless hosts, two homes, two data dirs) in real
 * Chromium. Both connect from the Team sync tab; an edit made on both sides becomes a
 * conflict on the second, which is resolved in the merge editor and reaches the first; a
 * secret written into the team folder is held back, shown in Alerts, and redacted there.
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
const topic = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}, shared with the team\ntype: project\n---\n\n${body}\n`;
// A fake Slack bot token, the shape the scanner knows.
const SLACK_TOKEN = ['xoxb', '2048675309', '4096123456', 'Q7vR2mX9kL4pT7wNc3bY6hJ1'].join('-');
// A fake GitHub token of real shape.
const GITHUB_TOKEN = ['ghp_', 'Vb3Nq8Wx', 'Kd2Lr7Tz', 'Pm5Hc9Ys', 'Fj4Ga1Ue', 'o6Ri'].join('');

describe.skipIf(!HAS_BROWSER)(`team sync between two machines${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let server: ServerProcess;
  let tokens: string[];
  let browser: Browser;
  const hosts: Host[] = [];
  const pages: Page[] = [];
  const errors: string[] = [];
  const teamDir = (m: 'a' | 'b') => path.join(root, m, 'home', 'projects', '-work-app', 'memory', 'team');

  /** What the server holds now, read with a member's token. */
  async function onServer(key: string): Promise<string | undefined> {
    const r = await fetch(`${server.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${tokens[0]}` } });
    return ((await r.json()) as { entries: Record<string, { content: string }> }).entries[key]?.content;
  }

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-team-')));
    const db = path.join(root, 'server', 'team-sync.sqlite');
    // Step 1 of the README's guide: a server, a team, a token per member.
    // The server creates its store; admin commands only open one that is there.
    server = await startServerProcess([MEMDIR], db, { rate: 1000, timeoutMs: 20_000 });
    await run(process.execPath, [MEMDIR, 'server', 'admin', 'create-team', 'platform', '--db', db]);
    tokens = [];
    for (const member of ['ann', 'bob']) {
      const { stdout } = await run(process.execPath, [MEMDIR, 'server', 'admin', 'issue-token', 'platform', '--member', member, '--db', db, '--json']);
      tokens.push((JSON.parse(stdout) as { token: string }).token);
    }

    for (const m of ['a', 'b'] as const) {
      const memory = path.join(root, m, 'home', 'projects', '-work-app', 'memory');
      await fs.mkdir(path.join(memory, 'team'), { recursive: true });
      await fs.writeFile(path.join(memory, 'MEMORY.md'), '');
    }
    await fs.writeFile(path.join(teamDir('a'), 'MEMORY.md'), '- [Deploys](project_deploys.md) — when we ship\n');
    await fs.writeFile(path.join(teamDir('a'), 'project_deploys.md'), topic('Deploys', 'No deploys on Fridays.'));

    browser = await launchBrowser();
    for (const m of ['a', 'b'] as const) {
      const host = await startHost(['--home', path.join(root, m, 'home'), '--port', '0', '--data-dir', path.join(root, m, 'data')]);
      hosts.push(host);
      const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
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

  async function connect(page: Page, host: Host, token: string): Promise<void> {
    await page.goto(host.url);
    await page.getByRole('button', { name: '-work-app' }).first().click();
    await page.getByRole('button', { name: 'Team sync', exact: true }).click();
    const form = page.getByRole('form', { name: 'Connect to a sync server' });
    await form.getByLabel('Server URL', { exact: true }).fill(server.url);
    await form.getByLabel('Team', { exact: true }).fill('platform');
    await form.getByLabel('Token', { exact: true }).fill(token);
    await form.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('region', { name: 'Sync state' }).waitFor({ timeout: 20_000 });
  }

  it('connects both machines from the Team sync tab: the first pushes its team memory, the second pulls it', async () => {
    const [a, b] = pages as [Page, Page];
    await connect(a, hosts[0]!, tokens[0]!);
    await expect.poll(() => a.locator('[data-state]').first().getAttribute('data-state'), { timeout: 20_000 }).toBe('synced');
    expect(await a.getByRole('region', { name: 'Sync state' }).textContent()).toContain('you are ann');
    expect(await onServer('project_deploys.md')).toContain('No deploys on Fridays.');

    await connect(b, hosts[1]!, tokens[1]!);
    await expect.poll(() => b.locator('[data-state]').first().getAttribute('data-state'), { timeout: 20_000 }).toBe('synced');
    expect(await fs.readFile(path.join(teamDir('b'), 'project_deploys.md'), 'utf8')).toContain('No deploys on Fridays.');
    // The dashboard's Team column shows it.
    await b.getByRole('button', { name: 'Projects', exact: true }).click();
    await expect.poll(() => b.locator('.team-cell').first().textContent()).toMatch(/^synced/);
  });

  it('refuses to delete a team memory the server holds, in the editor, saying how to retire it; nothing is deleted', async () => {
    const [a] = pages as [Page, Page];
    const memory = path.dirname(teamDir('a'));
    const before = {
      file: await fs.readFile(path.join(teamDir('a'), 'project_deploys.md'), 'utf8'),
      teamIndex: await fs.readFile(path.join(teamDir('a'), 'MEMORY.md'), 'utf8'),
      index: await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8'),
    };
    await a.getByRole('button', { name: 'Projects', exact: true }).click();
    await a.getByRole('button', { name: '-work-app' }).first().click();
    await a.getByRole('button', { name: 'Memories', exact: true }).click();
    await a.locator('[data-file="project_deploys.md"][data-scope="team"]').click();
    const form = a.getByRole('form', { name: 'Edit project_deploys.md' });
    await form.waitFor();
    await form.getByRole('button', { name: 'Delete' }).click();
    await a.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    const refusal = a.getByRole('alert').filter({ hasText: 'team/project_deploys.md is already shared with the team' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(
      'the next sync would bring it back, without its index lines. Instead, retire it (Retire in the app, or `memdir team retire team/project_deploys.md`)',
    );
    // Nothing went: the file, both indexes, its row; no "Deleted" toast.
    expect(await fs.readFile(path.join(teamDir('a'), 'project_deploys.md'), 'utf8')).toBe(before.file);
    expect(await fs.readFile(path.join(teamDir('a'), 'MEMORY.md'), 'utf8')).toBe(before.teamIndex);
    expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toBe(before.index);
    expect(await a.getByRole('status').filter({ hasText: 'Deleted project_deploys.md' }).count()).toBe(0);
    expect(await a.locator('[data-file="project_deploys.md"][data-scope="team"]').count()).toBe(1);
    expect(await onServer('project_deploys.md')).toBe(before.file);
    await a.screenshot({ path: artifact('team-delete-refused.png') });

    // The refusal's "Retire instead" retires it: 0 bytes, both pointers gone, its row gone, and the server gets it empty.
    await refusal.getByRole('button', { name: 'Retire instead' }).click();
    const toast = a.getByRole('status').filter({ hasText: 'Retired team/project_deploys.md' });
    await toast.waitFor();
    expect(await fs.readFile(path.join(teamDir('a'), 'project_deploys.md'), 'utf8')).toBe('');
    expect(await fs.readFile(path.join(teamDir('a'), 'MEMORY.md'), 'utf8')).not.toContain('project_deploys.md');
    expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).not.toContain('project_deploys.md');
    await expect.poll(() => a.locator('[data-file="project_deploys.md"][data-scope="team"]').count()).toBe(0);
    await expect.poll(() => onServer('project_deploys.md'), { timeout: 20_000 }).toBe('');
    await a.screenshot({ path: artifact('team-retired.png') });
    // One Undo brings the text, both indexes and the row back, and the next sync shares that.
    await toast.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => fs.readFile(path.join(teamDir('a'), 'project_deploys.md'), 'utf8')).toBe(before.file);
    // The undo writes the file, then the indexes: each is waited for.
    await expect.poll(() => fs.readFile(path.join(teamDir('a'), 'MEMORY.md'), 'utf8')).toBe(before.teamIndex);
    await expect.poll(() => fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toBe(before.index);
    await expect.poll(() => a.locator('[data-file="project_deploys.md"][data-scope="team"]').count()).toBe(1);
    await expect.poll(() => onServer('project_deploys.md'), { timeout: 20_000 }).toBe(before.file);
    // Back where the next test expects ann: her Team sync tab.
    await a.getByRole('button', { name: 'Team sync', exact: true }).click();
  });

  it('an edit on both machines becomes a conflict on the second; the merge editor resolves it and it reaches the first', async () => {
    const [a, b] = pages as [Page, Page];
    // ann edits and her app pushes it by itself (watcher → debounced sync).
    await fs.writeFile(path.join(teamDir('a'), 'project_deploys.md'), topic('Deploys', 'No deploys on Fridays.\nNone on public holidays either.'));
    await expect.poll(() => onServer('project_deploys.md'), { timeout: 20_000 }).toContain('public holidays');
    // bob, who has not pulled that yet, edits the same file.
    await fs.writeFile(path.join(teamDir('b'), 'project_deploys.md'), topic('Deploys', 'No deploys on Fridays.\nRollbacks need two reviewers.'));
    await b.getByRole('button', { name: '-work-app' }).first().click();
    await b.getByRole('button', { name: 'Team sync', exact: true }).click();
    const conflicts = b.getByRole('table', { name: 'Conflicts to resolve' });
    await conflicts.locator('tr[data-key="project_deploys.md"]').waitFor({ timeout: 20_000 });
    // Server wins on disk; bob's edit is kept, not lost.
    expect(await fs.readFile(path.join(teamDir('b'), 'project_deploys.md'), 'utf8')).toContain('public holidays');
    await conflicts.getByRole('button', { name: 'Resolve…' }).click();
    const merge = b.getByRole('region', { name: 'Resolve team/project_deploys.md' });
    await merge.getByRole('region', { name: "The team's version (on disk now)" }).getByText('None on public holidays either.').waitFor();
    await merge.getByRole('region', { name: 'Your version (kept)' }).getByText('Rollbacks need two reviewers.').waitFor();
    // Where bob's version is in History, as History names it (the change, and when): never a bare revision id.
    const subtitle = merge.locator('span.muted.small').first();
    await expect.poll(() => subtitle.textContent()).toMatch(/ · in History with “[^”]+” \((just now|.+ ago)\)/);
    expect(await subtitle.textContent()).not.toMatch(/\b[0-9a-f]{7,}\b/);
    // The proposed result holds both sides' lines.
    const result = merge.getByLabel('Merged result');
    await expect.poll(() => result.textContent()).toContain('Rollbacks need two reviewers.');
    expect(await result.textContent()).toContain('None on public holidays either.');
    // The two lines stand for one overlap: marked in the result, and said above it.
    await merge
      .getByRole('note')
      .getByText(/One place where the versions overlap holds both sides, marked below \(lines \d+–\d+\)/)
      .waitFor();
    expect(await result.locator('.merge-overlap').count()).toBe(2);
    await b.screenshot({ path: artifact('10-team-sync-conflict.png'), fullPage: true });
    await merge.getByRole('button', { name: 'Save merge' }).click();
    await b.getByText('Saved and pushed project_deploys.md.').waitFor({ timeout: 20_000 });
    await expect.poll(() => b.getByRole('table', { name: 'Conflicts to resolve' }).count()).toBe(0);
    const merged = await onServer('project_deploys.md');
    expect(merged).toContain('None on public holidays either.');
    expect(merged).toContain('Rollbacks need two reviewers.');

    // ann syncs and has the merge.
    await a.getByRole('button', { name: 'Sync now' }).click();
    await expect.poll(() => fs.readFile(path.join(teamDir('a'), 'project_deploys.md'), 'utf8'), { timeout: 20_000 }).toBe(merged);
    await b.screenshot({ path: artifact('11-team-sync-resolved.png'), fullPage: true });
  });

  it('holds back a file with a secret, shows it in Alerts with a badge, and redacts it there', async () => {
    const b = pages[1]!;
    await fs.writeFile(
      path.join(teamDir('b'), 'reference_slack.md'),
      `---\nname: Slack bot\ndescription: Where the deploy bot posts\ntype: reference\n---\n\nThe bot posts to #deploys with ${SLACK_TOKEN}.\n`,
    );
    const badge = b.getByRole('navigation', { name: 'Main' }).getByLabel('1 open');
    await badge.waitFor({ timeout: 20_000 });
    expect(await onServer('reference_slack.md')).toBeUndefined();
    await b
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: /^Alerts/ })
      .click();
    const findings = b.getByRole('table', { name: 'Findings in team/reference_slack.md' });
    await findings.waitFor();
    expect(await findings.textContent()).toMatch(/Slack/);
    expect(await findings.textContent()).not.toContain(SLACK_TOKEN);
    await b.screenshot({ path: artifact('12-alerts.png'), fullPage: true });
    await findings.getByRole('button', { name: 'Redact' }).click();
    await b.getByText(/^Redacted: team\/reference_slack\.md can be shared now/).waitFor();
    expect(await fs.readFile(path.join(teamDir('b'), 'reference_slack.md'), 'utf8')).toContain('with [REDACTED].');
    await expect.poll(() => onServer('reference_slack.md'), { timeout: 20_000 }).toContain('[REDACTED]');
    await expect.poll(() => badge.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a secret in a file name shows "in its name" and is renamed away (undoable), not "redacted"', async () => {
    const b = pages[1]!;
    const named = `reference_${SLACK_TOKEN}.md`;
    await fs.writeFile(path.join(teamDir('b'), named), topic('Bot', 'The deploy bot is named after its token.'));
    const badge = b.getByRole('navigation', { name: 'Main' }).getByLabel('1 open');
    await badge.waitFor({ timeout: 20_000 });
    // The file is named with the token in its name masked, in the table and in the toast.
    const findings = b.getByRole('table', { name: /^Findings in team\/reference_xoxb/ });
    await findings.waitFor();
    expect(await findings.getByRole('cell', { name: 'in its name' }).count()).toBe(1);
    expect(await findings.getByRole('button', { name: 'Redact' }).count()).toBe(0);
    await findings.getByRole('button', { name: 'Rename…' }).click();
    await findings.getByLabel('New file name').fill('reference_bot.md');
    await findings.getByRole('button', { name: 'Rename', exact: true }).click();
    await b.getByText(/^Renamed team\/reference_xoxb.* to team\/reference_bot\.md; the next sync checks it/).waitFor();
    expect(await b.locator('body').textContent()).not.toContain(SLACK_TOKEN);
    expect(await fs.readFile(path.join(teamDir('b'), 'reference_bot.md'), 'utf8')).toContain('named after its token');
    await expect(fs.stat(path.join(teamDir('b'), named))).rejects.toThrow();
    await expect.poll(() => onServer('reference_bot.md'), { timeout: 20_000 }).toContain('named after its token');
    await expect.poll(() => badge.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a "user" memory in the team folder is held back, flagged in Health, and moved to private there (undoable)', async () => {
    const b = pages[1]!;
    const memory = path.dirname(teamDir('b'));
    await fs.writeFile(
      path.join(teamDir('b'), 'user_me.md'),
      '---\nname: Me\ndescription: Who I am\ntype: user\n---\n\nI am a senior engineer, prefer terse answers.\n',
    );
    await b.goto(hosts[1]!.url);
    await b.getByRole('button', { name: '-work-app' }).first().click();
    await b.getByRole('button', { name: 'Health' }).click();
    const problem = b.getByRole('listitem').filter({ hasText: 'personal memory in team' });
    await problem.waitFor({ timeout: 20_000 });
    expect(await problem.textContent()).toMatch(/team\/user_me\.md.*"user" memory in the team folder/);
    expect(await onServer('user_me.md')).toBeUndefined();
    await problem.getByRole('button', { name: 'Move to private' }).click();
    const toast = b.getByRole('status').filter({ hasText: 'Moved user_me.md to the private memory.' });
    await toast.waitFor();
    expect(await fs.readFile(path.join(memory, 'user_me.md'), 'utf8')).toContain('prefer terse answers');
    await expect(fs.stat(path.join(teamDir('b'), 'user_me.md'))).rejects.toThrow();
    await expect.poll(() => problem.count()).toBe(0);
    await toast.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => fs.readFile(path.join(teamDir('b'), 'user_me.md'), 'utf8').catch(() => null)).toContain('prefer terse answers');
    await problem.waitFor();
    expect(await onServer('user_me.md')).toBeUndefined();
    expect(errors).toEqual([]);
  });
  it('a merge that would hold a secret is asked about in the merge editor, masked; saved anyway on purpose, and no page shows the token', async () => {
    const b = pages[1]!;
    await fs.writeFile(path.join(teamDir('a'), 'project_oncall.md'), topic('On call', 'Page the on-call first.'));
    await expect.poll(() => onServer('project_oncall.md'), { timeout: 20_000 }).toContain('Page the on-call first.');
    await b.goto(hosts[1]!.url);
    await b.getByRole('button', { name: '-work-app' }).first().click();
    await b.getByRole('button', { name: 'Team sync', exact: true }).click();
    await b.getByRole('button', { name: 'Sync now' }).click();
    await expect.poll(() => fs.readFile(path.join(teamDir('b'), 'project_oncall.md'), 'utf8').catch(() => ''), { timeout: 20_000 }).toContain('Page the');
    // Both edit it: ann's goes up first, bob's becomes a conflict.
    await fs.writeFile(path.join(teamDir('a'), 'project_oncall.md'), topic('On call', 'Page the on-call first.\nThen the team lead.'));
    await expect.poll(() => onServer('project_oncall.md'), { timeout: 20_000 }).toContain('team lead');
    await fs.writeFile(path.join(teamDir('b'), 'project_oncall.md'), topic('On call', 'Page the on-call first.\nNever at night.'));
    const conflicts = b.getByRole('table', { name: 'Conflicts to resolve' });
    await conflicts.locator('tr[data-key="project_oncall.md"]').waitFor({ timeout: 20_000 });
    await conflicts.locator('tr[data-key="project_oncall.md"]').getByRole('button', { name: 'Resolve…' }).click();
    const merge = b.getByRole('region', { name: 'Resolve team/project_oncall.md' });
    const result = merge.getByLabel('Merged result');
    await expect.poll(() => result.textContent()).toContain('Never at night.');
    // A token pasted into the merge: refused, asked about in the editor, the merge as edited kept.
    await result.click();
    await b.keyboard.press('ControlOrMeta+End');
    await b.keyboard.type(`\nThe pager key is ${GITHUB_TOKEN}`);
    await merge.getByRole('button', { name: 'Save merge' }).click();
    const ask = merge.getByRole('alertdialog', { name: 'Secret warning' });
    await ask
      .getByText(
        /team\/project_oncall\.md would hold a GitHub token \(ghp_\*+\) at line \d+(?: of its body \(line \d+ of the file\))? \[fingerprint [0-9a-f]{16}\]/,
      )
      .waitFor();
    expect(await ask.textContent()).not.toContain(GITHUB_TOKEN);
    expect(await fs.readFile(path.join(teamDir('b'), 'project_oncall.md'), 'utf8')).not.toContain(GITHUB_TOKEN);
    // Keep editing: nothing saved, the merge is still there as edited; asked again on the next save.
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    await expect.poll(() => ask.count()).toBe(0);
    expect(await result.textContent()).toContain('The pager key is');
    await merge.getByRole('button', { name: 'Save merge' }).click();
    await ask.getByRole('button', { name: 'Save anyway, with this secret' }).click();
    await expect.poll(() => fs.readFile(path.join(teamDir('b'), 'project_oncall.md'), 'utf8'), { timeout: 20_000 }).toContain(GITHUB_TOKEN);
    await expect.poll(() => b.getByRole('table', { name: 'Conflicts to resolve' }).count()).toBe(0);
    // Saved here on purpose, it is still not shared: held back, named in Alerts — masked on every page.
    expect(await onServer('project_oncall.md')).not.toContain(GITHUB_TOKEN);
    expect(await b.locator('body').textContent()).not.toContain(GITHUB_TOKEN);
    await b
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: /^Alerts/ })
      .click();
    await b.getByRole('table', { name: 'Findings in team/project_oncall.md' }).waitFor({ timeout: 20_000 });
    expect(await b.locator('body').textContent()).not.toContain(GITHUB_TOKEN);
    expect(errors).toEqual([]);
  });

  it('offers Retire only for a team memory the server holds: one never pushed is simply deleted, and a bulk delete offers Retire for the held ones it left', async () => {
    const [a] = pages as [Page, Page];
    // Held back for its secret: never pushed, so the server does not hold it.
    await fs.writeFile(path.join(teamDir('a'), 'project_pager.md'), topic('Pager', `The pager bot posts with ${SLACK_TOKEN}.`));
    await a.getByRole('button', { name: 'Projects', exact: true }).click();
    await a.getByRole('button', { name: '-work-app' }).first().click();
    await a.getByRole('button', { name: 'Memories', exact: true }).click();
    const row = (file: string) => a.locator(`[data-file="${file}"][data-scope="team"]`);
    await row('project_deploys.md').click();
    const held = a.getByRole('form', { name: 'Edit project_deploys.md' });
    await held.waitFor();
    await held.getByRole('button', { name: 'Retire', exact: true }).waitFor();
    await row('project_pager.md').waitFor({ timeout: 20_000 });
    await row('project_pager.md').click();
    const local = a.getByRole('form', { name: 'Edit project_pager.md' });
    await local.waitFor();
    expect(await onServer('project_pager.md')).toBeUndefined();
    expect(await local.getByRole('button', { name: 'Retire', exact: true }).count()).toBe(0);
    await a.screenshot({ path: artifact('team-never-pushed.png') });
    await local.getByRole('button', { name: 'Delete' }).click();
    await a.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    await a.getByRole('status').filter({ hasText: 'Deleted project_pager.md' }).waitFor();
    await expect
      .poll(() =>
        fs.access(path.join(teamDir('a'), 'project_pager.md')).then(
          () => true,
          () => false,
        ),
      )
      .toBe(false);

    // A bulk delete leaves the held one as it was, and offers Retire for it: one click, one entry.
    await row('project_deploys.md').click({ modifiers: ['Control'] });
    const bar = a.getByRole('toolbar', { name: 'Selected memories' });
    await bar.getByText('1 memory selected').waitFor();
    await bar.getByRole('button', { name: 'Delete' }).click();
    await bar.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    const offer = a.getByRole('status').filter({ hasText: 'team/project_deploys.md is shared with the team (the sync server holds it): retire it instead' });
    await offer.waitFor();
    expect(await fs.readFile(path.join(teamDir('a'), 'project_deploys.md'), 'utf8')).toContain('No deploys on Fridays.');
    await a.screenshot({ path: artifact('team-bulk-retire-offered.png') });
    await offer.getByRole('button', { name: 'Retire instead' }).click();
    await a.getByRole('status').filter({ hasText: 'Retired 1 memory.' }).waitFor();
    expect(await fs.readFile(path.join(teamDir('a'), 'project_deploys.md'), 'utf8')).toBe('');
    await expect.poll(() => onServer('project_deploys.md'), { timeout: 20_000 }).toBe('');

    // One the server holds that grew past 1 MB here is not opened, but leaves the same way: its delete's refusal offers Retire.
    await fs.writeFile(path.join(teamDir('a'), 'project_big.md'), topic('Big', 'Soon to grow.'));
    await expect.poll(() => onServer('project_big.md'), { timeout: 20_000 }).toContain('Soon to grow.');
    await fs.writeFile(path.join(teamDir('a'), 'project_big.md'), topic('Big', 'x'.repeat(1_100_000)));
    await row('project_big.md')
      .getByText(/too large/)
      .waitFor({ timeout: 20_000 });
    await row('project_big.md').click();
    await a.getByRole('alert').filter({ hasText: 'too large' }).first().waitFor();
    await a.getByRole('button', { name: 'Delete', exact: true }).click();
    await a.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    const refusal = a.getByRole('alert').filter({ hasText: 'team/project_big.md is already shared with the team' });
    await refusal.waitFor();
    await a.screenshot({ path: artifact('team-too-large-retire.png') });
    await refusal.getByRole('button', { name: 'Retire instead' }).click();
    await a.getByRole('status').filter({ hasText: 'Retired team/project_big.md' }).waitFor();
    expect(await fs.readFile(path.join(teamDir('a'), 'project_big.md'), 'utf8')).toBe('');
    await expect.poll(() => onServer('project_big.md'), { timeout: 20_000 }).toBe('');
    expect(errors).toEqual([]);
  });
});
