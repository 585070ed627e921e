/**
 * The memory list's row at a laptop's 1024×700 (session 38, GUI review): a long title keeps at
 * least half its row when the row also carries badges ("unlisted", "1 problem"), and every badge
 * stays whole — the title was cut to "gra…" (50 px of a 289 px row) beside its badges.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`the memory list row${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let host: Host;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-list-row-'));
    const memory = path.join(root, 'home', 'projects', '-work-rows', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, 'deploy.md'), '---\nname: Deploy steps\ndescription: How we deploy\ntype: project\n---\n\nShip.\n');
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Deploy steps](deploy.md) — how we deploy\n');
    // Not in MEMORY.md, and a long name: its row carries badges ("unlisted", "1 problem").
    await fs.writeFile(
      path.join(memory, 'rollback.md'),
      '---\nname: Rolling back the checkout service after a failed Friday deploy\ndescription: What to undo first when the Friday deploy of the checkout service fails\ntype: feedback\n---\n\nUndo the migration.\n',
    );
    // A team memory with the same badges: its row also says "team" (session 39: the description got "De…").
    await fs.mkdir(path.join(memory, 'team'), { recursive: true });
    await fs.writeFile(path.join(memory, 'team', 'MEMORY.md'), '');
    await fs.writeFile(
      path.join(memory, 'team', 'release.md'),
      '---\nname: Release train\ndescription: Describes when the release train leaves and who signs off\ntype: feedback\n---\n\nTuesdays.\n',
    );
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('a long title keeps half its row beside badges, and every badge stays whole', async () => {
    await page.goto(`${host.url}#/p/-work-rows/memories`);
    const list = page.getByRole('listbox', { name: 'Memories' });
    const row = list.getByRole('option', { name: /^Rolling back/ });
    await row.locator('.badge', { hasText: 'unlisted' }).waitFor({ timeout: 20_000 });
    await row.locator('.badge', { hasText: /problem/ }).waitFor();
    await page.screenshot({ path: artifact('memory-list-row.png') });
    const m = await row.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const name = el.querySelector('.memory-name')!.getBoundingClientRect();
      const badges = [...el.querySelectorAll('.badge, .chip')].map((b) => {
        const r = b.getBoundingClientRect();
        return {
          text: b.textContent,
          whole:
            b.scrollWidth <= b.clientWidth + 1 &&
            r.left >= box.left - 0.5 &&
            r.right <= box.right + 0.5 &&
            r.top >= box.top - 0.5 &&
            r.bottom <= box.bottom + 0.5,
        };
      });
      return { row: box.width, name: name.width, pick: el.querySelector('.pick')!.getBoundingClientRect().width, badges };
    });
    // The title is truncated only by the row's own width, not squeezed by its badges.
    expect(m.name).toBeGreaterThanOrEqual(m.row / 2);
    // …and does not squeeze the pick box beside it either.
    expect(m.pick).toBeGreaterThanOrEqual(15.5);
    expect(m.badges.map((b) => b.text)).toEqual(expect.arrayContaining(['unlisted', '1 problem']));
    for (const b of m.badges) expect(b, `badge "${b.text}" is whole and inside its row`).toMatchObject({ whole: true });
    // The fixed row height the virtual list relies on holds.
    expect(Math.round(await row.evaluate((el) => el.getBoundingClientRect().height))).toBe(56);
  });

  it("a team memory's row keeps a readable share for its description beside team, unlisted and 1 problem", async () => {
    await page.goto(`${host.url}#/p/-work-rows/memories`);
    const list = page.getByRole('listbox', { name: 'Memories' });
    const team = list.getByRole('option', { name: 'Release train, team' });
    await team.locator('.badge', { hasText: 'unlisted' }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: artifact('memory-list-row-team.png') });
    const m = await team.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return {
        row: box.width,
        desc: el.querySelector('.memory-desc')!.getBoundingClientRect().width,
        name: el.querySelector('.memory-name')!.getBoundingClientRect().width,
        marks: [...el.querySelectorAll('.badge, .chip')].map((b) => {
          const r = b.getBoundingClientRect();
          return {
            text: b.textContent,
            whole:
              b.scrollWidth <= b.clientWidth + 1 &&
              r.left >= box.left - 0.5 &&
              r.right <= box.right + 0.5 &&
              r.top >= box.top - 0.5 &&
              r.bottom <= box.bottom + 0.5,
          };
        }),
      };
    });
    const own = {
      desc: await list.getByRole('option', { name: /^Rolling back/ }).evaluate((el) => el.querySelector('.memory-desc')!.getBoundingClientRect().width),
    };
    expect(m.marks.map((b) => b.text)).toEqual(expect.arrayContaining(['team', 'feedback', 'unlisted', '1 problem']));
    for (const b of m.marks) expect(b, `"${b.text}" is whole and inside its row`).toMatchObject({ whole: true });
    // Being a team memory costs the description nothing: it gets what a personal row with the same
    // badges gets, and at least a fifth of the row ("Describes w…", not "De…": 22 px before).
    expect(m.desc, `description ${m.desc} px of a ${m.row} px row`).toBeGreaterThanOrEqual(m.row / 5);
    expect(m.desc).toBeGreaterThanOrEqual(own.desc - 1);
    expect(m.name).toBeGreaterThanOrEqual(m.row / 2);
    expect(Math.round(await team.evaluate((el) => el.getBoundingClientRect().height))).toBe(56);
  });
});
