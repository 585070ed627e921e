/**
 * A burst of team sync changes (syncs one after another: another window's "Sync now", the
 * scheduler's syncs while a teammate pushes) reads the open Team sync tab and the dashboard's
 * Team column once per burst, not once per `team-changed` event, in real Chromium against the
 * real headless host and a real sync server (the built `memdir server`); and the page ends on the
 * state of the last sync.
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
import { type Host, startHost } from './support/host.js';

requireBrowser();

const MEMDIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../out/cli/memdir.js');
const run = promisify(execFile);
const DIR = '-work-app';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!HAS_BROWSER)(`a burst of team sync changes${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let server: ServerProcess;
  let token: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  /** The page's calls to the host, by name, since `count` was last called. */
  let reads: Record<string, number> = {};
  const count = () => (reads = {});
  /** The last `lastPullAt` the page was answered by team.status. */
  let shownPull: string | null = null;

  /** A call to the host as another window makes it (its token, its API). */
  async function hostCall(name: string, input: unknown): Promise<unknown> {
    const url = new URL(host.url);
    const res = await fetch(`${url.origin}/api/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${url.searchParams.get('token')}` },
      body: JSON.stringify({ name, input }),
    });
    const body = (await res.json()) as { ok: boolean; result?: unknown; error?: { message: string } };
    if (!body.ok) throw new Error(body.error?.message ?? 'failed');
    return body.result;
  }

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-sync-storm-')));
    const db = path.join(root, 'server', 'team-sync.sqlite');
    server = await startServerProcess([MEMDIR], db, { rate: 1000, timeoutMs: 20_000 });
    await run(process.execPath, [MEMDIR, 'server', 'admin', 'create-team', 'platform', '--db', db]);
    const { stdout } = await run(process.execPath, [MEMDIR, 'server', 'admin', 'issue-token', 'platform', '--member', 'ann', '--db', db, '--json']);
    token = (JSON.parse(stdout) as { token: string }).token;
    const memory = path.join(root, 'home', 'projects', DIR, 'memory');
    await fs.mkdir(path.join(memory, 'team'), { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '');
    await fs.writeFile(path.join(memory, 'team', 'MEMORY.md'), '- [Deploys](project_deploys.md) — when we ship\n');
    await fs.writeFile(
      path.join(memory, 'team', 'project_deploys.md'),
      '---\nname: Deploys\ndescription: when we ship\ntype: project\n---\n\nNo deploys on Fridays.\n',
    );
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    await hostCall('team.connect', { dir: DIR, server: server.url, team: 'platform', token, allowHttp: true });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().endsWith('/api/call')) return;
      const name = (JSON.parse(r.postData() ?? '{}') as { name?: string }).name ?? '?';
      reads[name] = (reads[name] ?? 0) + 1;
    });
    page.on('response', async (r) => {
      if (!r.url().endsWith('/api/call') || (r.request().postDataJSON() as { name?: string } | null)?.name !== 'team.status') return;
      const body = (await r.json().catch(() => null)) as { result?: { lastPullAt: string | null } } | null;
      if (body?.result) shownPull = body.result.lastPullAt;
    });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** `n` syncs one after another, each its own team-changed event; returns the seconds it took. */
  async function burst(n: number): Promise<number> {
    const started = Date.now();
    for (let i = 0; i < n; i++) {
      await hostCall('team.sync', { dir: DIR });
      await sleep(150);
    }
    await sleep(2_000);
    return Math.ceil((Date.now() - started) / 1000);
  }

  it('reads the Team sync tab once per burst of syncs, and shows the last one', async () => {
    await page.goto(`${host.url}#/p/${DIR}/team`);
    await page.getByRole('region', { name: 'Sync state' }).waitFor({ timeout: 20_000 });
    await sleep(2_000);
    count();
    const seconds = await burst(20);
    expect(reads['team.status'] ?? 0, `team.status was read ${reads['team.status']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    const last = (await hostCall('team.status', { dir: DIR })) as { lastPullAt: string | null };
    await expect.poll(() => shownPull, { timeout: 5_000 }).toBe(last.lastPullAt);
    expect(errors).toEqual([]);
  });

  it("reads the dashboard's Team column once per burst of syncs", async () => {
    await page.goto(host.url);
    await expect.poll(() => page.locator('.team-cell').first().textContent()).toMatch(/^synced/);
    await sleep(2_000);
    count();
    const seconds = await burst(20);
    expect(reads['team.overview'] ?? 0, `team.overview was read ${reads['team.overview']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    expect(errors).toEqual([]);
  });
});
