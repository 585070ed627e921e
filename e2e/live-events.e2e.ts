/**
 * The page shows what is on disk even when main's events could not reach it: a memory another
 * program writes while the page starts, before its event stream is subscribed, or while the
 * stream is down (the host restarted), shows without a reload. In real Chromium against an
 * in-process host whose AppContext watches the home, as the desktop app's does.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppContext } from '../src/main/app/app-context.js';
import { createAppDispatcher } from '../src/main/api/index.js';
import { type RunningHost, startHost } from '../src/main/shell/host/host-server.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';

requireBrowser();

const STATIC_DIR = path.resolve(import.meta.dirname, '../out/renderer');
const DIR = '-work-app';

describe.skipIf(!HAS_BROWSER)(`events the page missed${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let browser: Browser;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A home with one project of one memory, opened with its watcher on, and a page. */
  async function openApp(): Promise<{ ctx: AppContext; memoryDir: string; page: Page; root: string }> {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-live-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const memoryDir = path.join(root, 'home', 'projects', DIR, 'memory');
    await fs.mkdir(memoryDir, { recursive: true });
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Style](feedback_style.md) — tabs\n');
    await fs.writeFile(path.join(memoryDir, 'feedback_style.md'), '---\nname: Style\ndescription: tabs\ntype: feedback\n---\nTabs.\n');
    const ctx = await AppContext.create({ homeFlag: path.join(root, 'home'), dataDir: path.join(root, 'data'), env: {}, watch: true });
    cleanups.push(() => ctx.close());
    const page = await browser.newPage();
    cleanups.push(() => page.close());
    return { ctx, memoryDir, page, root };
  }

  function serve(ctx: AppContext, port = 0, token?: string): Promise<RunningHost> {
    return startHost({ dispatcher: createAppDispatcher(ctx), staticDir: STATIC_DIR, port, ...(token ? { token } : {}) });
  }

  /** Another program writes a second memory (in one rename, as an editor saves); resolves once the app has published it. */
  async function writeMemoryElsewhere(ctx: AppContext, root: string, memoryDir: string): Promise<void> {
    const published = new Promise<void>((resolve) => {
      const stop = ctx.events.subscribe((event) => {
        if (event.type === 'projects-changed' && event.dirs.includes(DIR)) {
          stop();
          resolve();
        }
      });
    });
    const draft = path.join(root, 'draft.md');
    await fs.writeFile(draft, '---\nname: Tests\ndescription: run them\ntype: feedback\n---\nRun the tests.\n');
    await fs.rename(draft, path.join(memoryDir, 'feedback_tests.md'));
    await published;
  }

  const privateCount = (page: Page, count: number) => page.getByRole('table', { name: 'Projects' }).getByText(`${count} private`).waitFor();

  /**
   * The page open at `hash` shows what `before` waits for; the host goes down, another program
   * writes a memory (and `whileDown` sees the page), the host comes back on the same port and
   * token: `after` must show it.
   */
  async function acrossARestart(
    hash: string,
    before: (page: Page) => Promise<void>,
    after: (page: Page) => Promise<void>,
    whileDown: (page: Page) => Promise<void> = async () => undefined,
  ): Promise<void> {
    const { ctx, memoryDir, page, root } = await openApp();
    const host = await serve(ctx);
    let again: RunningHost | null = null;
    cleanups.push(async () => {
      await again?.close();
      await host.close();
    });
    await page.goto(`${host.url}${hash}`);
    await before(page);
    await host.close();
    // The watcher sees the write and publishes it, to no one: the page's stream is down.
    await writeMemoryElsewhere(ctx, root, memoryDir);
    await whileDown(page);
    again = await serve(ctx, host.port, host.token);
    await after(page);
  }

  const memories = (page: Page) => page.getByRole('listbox', { name: 'Memories' });

  it('shows a memory written while the host was down once it is back, without a reload', async () => {
    await acrossARestart(
      '',
      (page) => privateCount(page, 1),
      (page) => privateCount(page, 2),
    );
  });

  it('shows a memory written while the host was down in the project open on the page, once it is back', async () => {
    await acrossARestart(
      `#/p/${DIR}/memories`,
      (page) => memories(page).getByText('Style', { exact: true }).waitFor(),
      (page) => memories(page).getByText('Tests', { exact: true }).waitFor(),
    );
  });

  const notAnswering = (page: Page) => page.getByRole('status').getByText('Memdir is not answering — reconnecting…');

  it('says Memdir is not answering while the host is down, and no more once it is back', async () => {
    await acrossARestart(
      '',
      (page) => privateCount(page, 1),
      async (page) => {
        await notAnswering(page).waitFor({ state: 'hidden' });
        await privateCount(page, 2);
      },
      (page) => notAnswering(page).waitFor(),
    );
  });

  it('says a page left open from an earlier run must be opened again from the new link, and stops asking', async () => {
    const { ctx, page } = await openApp();
    const host = await serve(ctx);
    let again: RunningHost | null = null;
    cleanups.push(async () => {
      await again?.close();
      await host.close();
    });
    let streamAsks = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/events') streamAsks++;
    });
    await page.goto(host.url);
    await privateCount(page, 1);
    // A memory open in the editor, edited while Memdir is down: the draft cannot be kept, said in Memdir's words, not the browser's.
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    await memories(page).getByText('Style', { exact: true }).click();
    const description = page.getByLabel('Description', { exact: false });
    await description.waitFor();
    await host.close();
    await description.fill('Typed while Memdir was down');
    const unkept = page.getByText(/^Your draft could not be kept: Memdir did not answer/);
    await unkept.waitFor();
    expect(await unkept.textContent()).toBe(
      'Your draft could not be kept: Memdir did not answer: it may have stopped. Is it still running? It is still in the editor.',
    );
    // Memdir started again on the same port: a new run, a new token.
    again = await serve(ctx, host.port, `${host.token}-next`);
    await page
      .getByRole('status')
      .getByText(
        'This page belongs to an earlier run of Memdir: open the link Memdir printed when it started. Drafts Memdir kept are there; an edit it said it could not keep is only on this page, so copy it first.',
        { exact: true },
      )
      .waitFor();
    const asked = streamAsks;
    // The stream asked again each second before; three seconds later it has not asked once.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(streamAsks).toBe(asked);
    // What it read stays on the page, under the one sentence (no "wrong token" beside it).
    await description.waitFor();
    expect(await page.getByText('Missing or wrong token').count()).toBe(0);
  });

  it('goes to the dashboard of the home the host came back with', async () => {
    const { ctx, page, root } = await openApp();
    const host = await serve(ctx);
    let again: RunningHost | null = null;
    let other: AppContext | null = null;
    cleanups.push(async () => {
      await again?.close();
      await other?.close();
      await host.close();
    });
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    await memories(page).getByText('Style', { exact: true }).waitFor();
    await host.close();
    // Started again with another --home, on the same port and token (a tab kept across a restart).
    const otherMemory = path.join(root, 'other-home', 'projects', '-work-other', 'memory');
    await fs.mkdir(otherMemory, { recursive: true });
    for (const name of ['role', 'team', 'tools'])
      await fs.writeFile(path.join(otherMemory, `user_${name}.md`), `---\nname: ${name}\ndescription: about ${name}\ntype: user\n---\n${name}.\n`);
    other = await AppContext.create({ homeFlag: path.join(root, 'other-home'), dataDir: path.join(root, 'data-other'), env: {} });
    again = await serve(other, host.port, host.token);
    await privateCount(page, 3);
    expect(new URL(page.url()).hash).toBe('#/');
  });

  it('shows a memory written after the page read the open project but before its event stream was subscribed', async () => {
    const { ctx, memoryDir, page, root } = await openApp();
    const host = await serve(ctx);
    cleanups.push(() => host.close());
    // The page's stream request is held in the browser until the memory is written: a slow
    // start, as if the stream's request waited behind the page's scripts.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let streamAsked!: (callsBefore: number) => void;
    const asked = new Promise<number>((resolve) => (streamAsked = resolve));
    const calls: Request[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/call') calls.push(request);
    });
    await page.route('**/api/events', async (route) => {
      streamAsked(calls.length);
      await held;
      await route.continue();
    });
    // The project's own page: its memories are read once as it opens (projects.get), and then
    // only when an event says the project changed.
    await page.goto(`${host.url}#/p/${DIR}/memories`);
    // A page that read before it subscribed (its first calls left before the stream's request)
    // reads the project while the stream waits: the memory is written after that answer, so only
    // the event can show it. A page that subscribes first reads nothing until the stream is live.
    if ((await asked) > 0) {
      const readsProject = (request: Request) => (request.postDataJSON() as { name?: string } | null)?.name === 'projects.get';
      await (calls.find(readsProject) ?? (await page.waitForRequest(readsProject))).response();
    }
    await writeMemoryElsewhere(ctx, root, memoryDir);
    release();
    await page.getByRole('listbox', { name: 'Memories' }).getByText('Tests', { exact: true }).waitFor();
  });
});
