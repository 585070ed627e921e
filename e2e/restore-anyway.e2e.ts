/**
 * Putting back what Claude Code wrote over, kindly, in real Chromium against the real host and the
 * demo workspace: History's restore of a deleted memory whose name Claude Code wrote a new memory
 * under since — refused, naming it, with "Restore as …-restored.md" (both kept) and "Restore anyway"
 * (the newer one stays in history); the Dream tab's refusal banner when a memory changed since the
 * dream, naming it, whose "Revert anyway" goes on and keeps the changed text in history.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import { type Host, artifact } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`restore and revert anyway${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const memory = () => path.join(root, 'data', 'demo', 'claude-home', 'projects', '-demo-checkout-service', 'memory');
  const read = (file: string) => fs.readFile(path.join(memory(), file), 'utf8');
  const open = async (tab: string) => {
    await page.evaluate(`location.hash = '#/p/-demo-checkout-service/${tab}'`);
  };
  const closeNotices = async () => {
    const notices = page.getByRole('button', { name: 'Dismiss' });
    while ((await notices.count()) > 0) await notices.first().click();
  };
  const history = () => page.getByRole('list', { name: 'History' });
  // Claude Code's new memory under the old name.
  const theirs = (file: string) =>
    `---\nname: Written again\ndescription: Claude Code's new memory under the old name\ntype: reference\n---\n\nClaude Code wrote ${file} again.\n`;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-restore-anyway-'));
    await fs.mkdir(path.join(root, 'data'), { recursive: true });
    await fs.writeFile(path.join(root, 'data', 'settings.json'), JSON.stringify({ model: { provider: 'offline' } }));
    ({ host, browser, page } = await openApp(['--home', path.join(root, 'none'), '--port', '0', '--data-dir', path.join(root, 'data')], errors));
    await page.getByRole('button', { name: 'Open demo workspace' }).first().click();
    await page.getByRole('button', { name: '/demo/checkout-service' }).waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** `file` deleted (History records it), then Claude Code writes a new memory under its name; its Restore in Deleted memories, refused: the notice. */
  const restoreOverClaudeCode = async (file: string) => {
    await closeNotices();
    await open('memories');
    await fs.rm(path.join(memory(), file));
    await open('history');
    const restore = page.getByRole('button', { name: `Restore ${file}`, exact: true });
    await restore.waitFor();
    await fs.writeFile(path.join(memory(), file), theirs(file));
    await restore.click();
    const refused = page.getByRole('alert').filter({ hasText: `Nothing was restored: ${file} holds another memory now ("Written again"` });
    await refused.waitFor();
    return refused;
  };

  it('History: a restore over a memory Claude Code wrote since is refused, naming it; "Restore as" keeps both', async () => {
    const refused = await restoreOverClaudeCode('reference_grafana.md');
    await page.screenshot({ path: artifact('restore-01-refused.png') });
    await refused.getByRole('button', { name: 'Restore as reference_grafana-restored.md' }).click();
    await page.getByRole('status').filter({ hasText: 'Restored reference_grafana.md as reference_grafana-restored.md.' }).waitFor();
    expect(await read('reference_grafana.md')).toBe(theirs('reference_grafana.md'));
    expect(await read('reference_grafana-restored.md')).toContain('p99 latency panel is the one on-call watches.');
  });

  it('History: "Restore anyway" puts the old memory back and says the newer one stays in history, where it is', async () => {
    const refused = await restoreOverClaudeCode('user_role.md');
    await refused.getByRole('button', { name: 'Restore anyway' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Restored user_role\.md anyway: what was there stays in history \(Undo puts it back\)\./ })
      .waitFor();
    const restored = await read('user_role.md');
    expect(restored).toContain('name: User role');
    expect(restored).not.toContain('Claude Code wrote');
    // Claude Code's memory is in history: the outside change that wrote it, with its text. The list
    // shows the restore first once it is read again (the outside change is recorded just before it);
    // until then the first outside entry is an older one (the clean-clone CI clicked that one).
    await history()
      .getByRole('button')
      .filter({ hasText: /Restored user_role\.md/ })
      .first()
      .waitFor();
    await history()
      .getByRole('button')
      .filter({ hasText: /outside Memdir/ })
      .first()
      .click();
    await page.getByRole('region', { name: 'Changes to user_role.md' }).getByText('Claude Code wrote user_role.md again.').first().waitFor();
    await page.screenshot({ path: artifact('restore-02-anyway.png') });
  });

  it('Dream: a memory changed since the dream stops Revert with a banner naming it; "Revert anyway" goes on and the changed text stays in history', async () => {
    await closeNotices();
    await open('dream');
    await page.getByRole('button', { name: 'Dream now' }).click();
    const dreams = page.getByRole('list', { name: 'Dreams' });
    await expect.poll(() => dreams.getByRole('button').first().textContent(), { timeout: 60_000 }).toMatch(/completed/);
    const incident = path.join(memory(), 'project_payment_incident.md');
    const added = 'Claude Code added: retries are back on since the fix shipped.';
    await fs.writeFile(incident, `${await fs.readFile(incident, 'utf8')}${added}\n`);
    await page.getByRole('button', { name: 'Revert this dream' }).click();
    const banner = page.getByRole('alert').filter({ hasText: 'Memories changed since this dream, so nothing was reverted' });
    await banner.getByText(/^project_payment_incident\.md: it was changed since the dream .*nothing was reverted/).waitFor();
    expect(await fs.readFile(incident, 'utf8')).toContain(added);
    await page.screenshot({ path: artifact('restore-03-dream-refused.png') });
    await banner.getByRole('button', { name: 'Revert anyway (overwrite them)' }).click();
    await page.getByText(/^Reverted just now: /).waitFor();
    expect(await fs.readFile(incident, 'utf8')).toContain('doubled some charges yesterday');
    expect(await fs.readFile(incident, 'utf8')).not.toContain(added);
    await expect.poll(() => dreams.getByRole('button').first().textContent()).toMatch(/reverted/);
    // The revert's Undo (through History's one undo) brings the dream back, and the tab says so: Revert is offered again.
    await page
      .getByRole('status')
      .filter({ hasText: /^Reverted: \d+ files put back\./ })
      .getByRole('button', { name: 'Undo' })
      .click();
    await page.getByRole('button', { name: 'Revert this dream' }).waitFor();
    await expect.poll(() => dreams.getByRole('button').first().textContent()).not.toMatch(/reverted/);
    expect(await page.getByText('Memories changed since this dream, so nothing was reverted').count()).toBe(0);
    expect(await fs.readFile(incident, 'utf8')).not.toContain('doubled some charges yesterday');
    // The changed text is in history: the outside change that added it.
    await open('history');
    await history()
      .getByRole('button')
      .filter({ hasText: /outside Memdir/ })
      .first()
      .click();
    await page.getByRole('region', { name: 'Changes to project_payment_incident.md' }).getByText(added).first().waitFor();
    expect(errors).toEqual([]);
  });
});
