/**
 * The main views at a laptop's 1024×700 (session 39, GUI review), in real Chromium against the
 * real headless host and a real sync server: nothing a user reads or presses is past the right
 * edge, cut, or behind a scroll they cannot see. The dashboard's Team and Dream columns sat past
 * the right edge: a long project path, one unbreakable word, made the table wider than the page.
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
const topic = (name: string, type: string, body = 'Body.') =>
  `---\nname: ${name}\ndescription: ${name}, in a few more words than the name\ntype: ${type}\n---\n\n${body}\n`;
// Project folders as Claude Code names them from real checkouts (the GUI review's home): long
// words that do not break at a hyphen ("owner__repo").
const LONG = '-work-benzabonanza__QuantumFurnace.jl';
const LONGER = '-work-PinKushin__Tf2DemoSalvage';
const SHORT = '-work-albert821107__life_manage';
const TEAM_FILE = 'project_deploys_to_the_shared_staging_cluster_of_the_checkout_service_and_its_rollback_plan.md';

/** Each element of `selector` that ends past the visible edge of the page's scroll box, or is cut, and whether the page scrolls sideways. */
async function outside(page: Page, selector: string): Promise<string[]> {
  return page.locator('.content').evaluate((content, sel) => {
    const out: string[] = [];
    const edge = content.getBoundingClientRect().left + content.clientWidth;
    for (const el of content.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const what = `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
      if (r.right > edge + 0.5) out.push(`${what} ends at ${Math.round(r.right)} px, past the visible edge at ${Math.round(edge)} px`);
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${what} is cut: ${el.scrollWidth} px of text in ${el.clientWidth} px`);
    }
    if (content.scrollWidth > content.clientWidth + 1) out.push(`the page scrolls sideways: ${content.scrollWidth} px in ${content.clientWidth} px`);
    return out;
  }, selector);
}

describe.skipIf(!HAS_BROWSER)(`the main views at a laptop's 1024 px${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let server: ServerProcess;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const memoryOf = (dir: string) => path.join(home, 'projects', dir, 'memory');

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-laptop-')));
    home = path.join(root, 'home');
    const data = path.join(root, 'data');
    for (const dir of [LONG, LONGER, SHORT]) {
      const memory = memoryOf(dir);
      await fs.mkdir(path.join(memory, 'team'), { recursive: true });
      const files = ['user', 'feedback', 'project', 'reference'].map((t) => [`${t}_one.md`, topic(`A ${t} memory of ${dir.slice(-12)}`, t)] as const);
      for (const [f, text] of files) await fs.writeFile(path.join(memory, f), text);
      // The first one's index is past the cut (the Index column's widest state: meter, lines, "N cut").
      const extra = dir === LONG ? Array.from({ length: 230 }, (_, i) => `- [Note ${i}](note_${i}.md) — note ${i}\n`).join('') : '';
      await fs.writeFile(path.join(memory, 'MEMORY.md'), files.map(([f]) => `- [${f}](${f}) — ${f}\n`).join('') + extra);
      if (dir === LONG) for (let i = 0; i < 230; i++) await fs.writeFile(path.join(memory, `note_${i}.md`), topic(`Note ${i}`, 'project'));
      // The same long-named team file in each, different in each: the second to connect keeps a conflict.
      await fs.writeFile(path.join(memory, 'team', TEAM_FILE), topic(`Deploys of ${dir.slice(-12)}`, 'project', 'No deploys on Fridays.'));
      await fs.writeFile(path.join(memory, 'team', 'MEMORY.md'), `- [Deploys](${TEAM_FILE}) — when we ship\n`);
    }
    // Two of the three share their team memory through a real sync server (the Team column's states).
    const db = path.join(root, 'server', 'team-sync.sqlite');
    server = await startServerProcess([MEMDIR], db, { rate: 1000, timeoutMs: 20_000 });
    await run(process.execPath, [MEMDIR, 'server', 'admin', 'create-team', 'platform-payments-and-checkout', '--db', db]);
    const { stdout } = await run(process.execPath, [
      MEMDIR,
      'server',
      'admin',
      'issue-token',
      'platform-payments-and-checkout',
      '--member',
      'annika',
      '--db',
      db,
      '--json',
    ]);
    const token = (JSON.parse(stdout) as { token: string }).token;
    for (const dir of [LONG, LONGER]) {
      await run(
        process.execPath,
        [
          MEMDIR,
          'team',
          'connect',
          '--project',
          dir,
          '--home',
          home,
          '--server',
          server.url,
          '--team',
          'platform-payments-and-checkout',
          '--token',
          token,
          '--json',
        ],
        { env: { ...process.env, MEMDIR_DATA_DIR: data } },
      ).catch((e: { code?: number }) => {
        if (e.code !== 1) throw e;
      });
    }
    host = await startHost(['--home', home, '--port', '0', '--data-dir', data]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('the dashboard shows every column, each project whole, at 1024 px and at 1360 px', async () => {
    for (const width of [1024, 1360]) {
      await page.setViewportSize({ width, height: 700 });
      await page.goto(host.url);
      const table = page.getByRole('table', { name: 'Projects' });
      await table.getByText('synced', { exact: true }).first().waitFor({ timeout: 20_000 });
      await table.getByText('local only').waitFor();
      await table.scrollIntoViewIfNeeded();
      await page.screenshot({ path: artifact(`laptop-dashboard-${width}.png`) });
      const grid = 'table[aria-label="Projects"]';
      expect(await outside(page, `${grid} th, ${grid} tr > td:last-child, ${grid} td button`), `at ${width} px`).toEqual([]);
      // Each project's name is there to read whole, wrapped only where it reads on ("-work-" /
      // "benzabonanza__" / "QuantumFurnace.jl"), never inside one of those parts.
      for (const dir of [LONG, LONGER, SHORT]) {
        const name = table.getByRole('button', { name: dir, exact: true });
        expect(await name.isVisible()).toBe(true);
        const split = await name.evaluate((b) =>
          [...b.childNodes]
            .filter((n) => n.nodeType === 3)
            .filter((n) => {
              const range = b.ownerDocument.createRange();
              range.selectNodeContents(n);
              return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
            })
            .map((n) => n.textContent),
        );
        expect(split, `${dir} at ${width} px: parts broken across lines`).toEqual([]);
      }
    }
    expect(errors).toEqual([]);
  });

  it("at 200 % zoom (a 1024 px window's 512 CSS px): the Team sync tab's rows and the project's name are whole", async () => {
    // Zoom in Chromium is a narrower CSS viewport drawn at twice the pixels: the page a user at 200 % reads.
    const zoomed = await browser.newPage({ viewport: { width: 512, height: 350 }, deviceScaleFactor: 2 });
    zoomed.on('pageerror', (e) => errors.push(e.message));
    try {
      await zoomed.goto(`${host.url}#/p/${LONGER}/team`);
      await zoomed.getByRole('region', { name: 'Sync state' }).waitFor({ timeout: 20_000 });
      await zoomed.screenshot({ path: artifact('zoom200-team.png') });
      expect(await outside(zoomed, '.view-head h1, .team-sync button, .team-sync td, .team-sync code, .team-sync [role="region"] *')).toEqual([]);
    } finally {
      await zoomed.close();
    }
    expect(errors).toEqual([]);
  });

  it('Team sync: a conflict on a file with a long name keeps its Resolve button in the window', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(`${host.url}#/p/${LONGER}/team`);
    const conflicts = page.getByRole('table', { name: 'Conflicts to resolve' });
    const resolve = conflicts.getByRole('button', { name: 'Resolve…' });
    await resolve.waitFor({ timeout: 20_000 });
    await conflicts.scrollIntoViewIfNeeded();
    await page.screenshot({ path: artifact('laptop-team-conflicts.png') });
    const table = 'table[aria-label="Conflicts to resolve"]';
    expect(await outside(page, `${table} td, ${table} button`)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a memory with a long file name: the editor shows the name whole, History's Restore is in reach", async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    const file = 'project_deploys_to_the_shared_staging_cluster_of_the_checkout_service.md';
    await page.goto(`${host.url}#/p/${SHORT}/history`);
    await page.getByRole('heading', { name: SHORT }).waitFor({ timeout: 20_000 });
    // Claude Code writes a memory with a long file name while the app is open.
    await fs.writeFile(path.join(memoryOf(SHORT), file), topic('Deploys to the shared staging cluster', 'project', 'No deploys on Fridays.'));
    const diff = page.getByRole('region', { name: `Changes to ${file}` });
    const restore = diff.getByRole('button', { name: 'Restore this version' });
    // The newest entry is the one that records it — once History has it: under load an older outside change may
    // still be the newest when the list first shows (the clean-clone CI opened that one and waited in vain).
    for (let tries = 0; ; tries++) {
      await page.getByText('Changes made outside Memdir').first().click({ timeout: 20_000 });
      if (
        await restore.waitFor({ timeout: 3_000 }).then(
          () => true,
          () => tries >= 8,
        )
      )
        break;
    }
    await restore.waitFor();
    await page.screenshot({ path: artifact('laptop-history.png') });
    const reach = await diff.evaluate((box) => {
      const edge = box.getBoundingClientRect().left + box.clientWidth;
      return [...box.querySelectorAll('header > *')].map((el) => ({
        text: (el.textContent ?? '').slice(0, 30),
        inReach: el.getBoundingClientRect().right <= edge + 0.5,
      }));
    });
    for (const r of reach) expect(r, `"${r.text}" of the diff's head is within the box, not behind its sideways scroll`).toMatchObject({ inReach: true });

    await page.goto(`${host.url}#/p/${SHORT}/memories/private/${file}`);
    const title = page.locator('.editor-head h2');
    await title.getByText(file).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: artifact('laptop-editor.png') });
    const head = await page.locator('.editor').evaluate((editor) => {
      const h2 = editor.querySelector('.editor-head h2')!;
      return {
        right: h2.getBoundingClientRect().right,
        edge: editor.getBoundingClientRect().left + editor.clientWidth,
        cut: h2.scrollWidth > h2.clientWidth + 1,
      };
    });
    expect(head.cut, 'the file name is cut').toBe(false);
    expect(head.right, "the file name ends inside the editor's box").toBeLessThanOrEqual(head.edge + 0.5);
    expect(await outside(page, '.editor-head h2, .editor-head button, .editor .problems li')).toEqual([]);
    expect(errors).toEqual([]);
  });
});
