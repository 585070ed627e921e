/**
 * `start`: from starting the process to the dashboard's first frame painted with its projects,
 * over 200 projects of realistic memories (bench/corpus.ts), with the scan cache warm in the
 * data dir — the built headless host (out/) in a fresh Node process, opened in headless Chromium
 * in a fresh browser context. The floor, in the same run and the same browser: a fresh Node
 * process serving an empty page, and that page's first paint. Target ≤ 2. The same start with no
 * cache (a data dir of its own) is measured for the record.
 *
 * Both times run from just before the spawn to the paint, on the wall clock both sides share
 * (`performance.timeOrigin` + the mark in the page); the page's mark is taken two animation
 * frames after the rows render (see Dashboard.tsx): the first frame painted with the rows a screen
 * shows. Every project's row must be in the page right after it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser } from '../../e2e/support/browser.js';
import { SERVE, startHost } from '../../e2e/support/host.js';
import { openScanCache } from '../../src/main/memdir/scan-cache-file.js';
import { scanHome } from '../../src/main/memdir/scan-home.js';
import { writeHome } from '../corpus.js';
import { type Scenario, median, settle } from '../lib.js';

declare const performance: {
  timeOrigin: number;
  getEntriesByName(name: string): { startTime: number }[];
  getEntriesByType(type: string): { name: string; startTime: number }[];
};
declare const document: { querySelectorAll(selector: string): { length: number } };

const PROJECTS = 200;
const PER_PROJECT = 50;
const ROUNDS = 7;
const TARGET = 2;

/** A plain Node process serving an empty page: the floor of "start a process, paint a page". */
function startEmptyServer(): Promise<{ url: string; child: ChildProcess }> {
  const code = `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'text/html'); s.end('<!doctype html><title>empty</title><p>empty</p>'); }).listen(0, '127.0.0.1', function () { console.log('running at http://127.0.0.1:' + this.address().port + '/'); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      out += d;
      const match = /running at (\S+)/.exec(out);
      if (match) resolve({ url: match[1]!, child });
    });
    child.once('exit', (status) => reject(new Error(`the empty server exited with ${status}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Milliseconds from `started` (epoch) to the page's first contentful paint. */
export async function emptyPageStart(browser: Browser): Promise<number> {
  const started = Date.now();
  const server = await startEmptyServer();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => performance.getEntriesByType('paint').some((e) => e.name === 'first-contentful-paint'));
    const painted = await page.evaluate(
      () => performance.timeOrigin + performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')!.startTime,
    );
    return painted - started;
  } finally {
    await context.close();
    await stop(server.child);
  }
}

/** Milliseconds from starting the host to the dashboard painted with its project rows. */
async function dashboardStart(browser: Browser, home: string, dataDir: string): Promise<number> {
  const started = Date.now();
  const host = await startHost(['--home', home, '--port', '0', '--data-dir', dataDir]);
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  try {
    const page = await context.newPage();
    await page.goto(host.url);
    await page.waitForFunction(() => performance.getEntriesByName('memdir:dashboard-painted').length > 0, undefined, { timeout: 120_000 });
    // The first frame holds the rows a screen shows; the first page of 50 follows right after it, the rest behind "Show more" (Dashboard.tsx).
    const rows = 'table[aria-label="Projects"] tbody tr';
    const page1 = Math.min(50, PROJECTS);
    await page
      .waitForFunction(([selector, n]) => document.querySelectorAll(selector).length >= n, [rows, page1] as const, { timeout: 30_000 })
      .catch(() => undefined);
    const shown = await page.locator(rows).count();
    if (shown !== page1) throw new Error(`the dashboard shows ${shown} projects, expected the first page of ${page1} (of ${PROJECTS})`);
    const painted = await page.evaluate(() => performance.timeOrigin + performance.getEntriesByName('memdir:dashboard-painted')[0]!.startTime);
    return painted - started;
  } finally {
    await context.close();
    await host.stop();
  }
}

export const startScenario: Scenario = {
  name: 'start',
  description: `process start → dashboard painted over ${PROJECTS} projects (warm scan cache) vs process start → an empty page painted`,
  async run(log) {
    if (!HAS_BROWSER) throw new Error(MISSING_BROWSER);
    if (!fs.existsSync(SERVE)) throw new Error(`${SERVE} is missing: run \`npm run build\` first.`);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-bench-start-'));
    const browser = await launchBrowser();
    try {
      const built = writeHome(root, { projects: PROJECTS, memoriesPerProject: PER_PROJECT, teamEvery: 10 });
      log(`built ${built.memories} memories in ${PROJECTS} projects`);
      // The cache as an earlier run of the app leaves it (the app writes the same file).
      const dataDir = path.join(root, 'data');
      const opened = openScanCache(dataDir, built.home, { now: () => Date.now() + 60_000 });
      await scanHome(built.home, { cache: opened.cache, env: {} });
      if (!(await opened.save())) throw new Error('the scan cache was not written');

      // Warm-up of each, untimed: the OS has the binaries and files cached, as for a user.
      await emptyPageStart(browser);
      await dashboardStart(browser, built.home, dataDir);
      const empty: number[] = [];
      const warm: number[] = [];
      const per: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        settle();
        const e = await emptyPageStart(browser);
        settle();
        const w = await dashboardStart(browser, built.home, dataDir);
        empty.push(e);
        warm.push(w);
        per.push(w / e);
      }
      const cold: number[] = [];
      for (let round = 0; round < 3; round++) cold.push(await dashboardStart(browser, built.home, fs.mkdtempSync(path.join(root, 'cold-data-'))));
      log(`empty page painted after (ms): ${empty.map((x) => x.toFixed(0)).join(', ')}`);
      log(`dashboard painted after, warm cache (ms): ${warm.map((x) => x.toFixed(0)).join(', ')}`);
      log(`dashboard painted after, no cache (ms): ${cold.map((x) => x.toFixed(0)).join(', ')}`);
      const ratio = median(per);
      return {
        ratios: {
          'start → dashboard painted (warm cache) ÷ start → empty page painted': {
            value: ratio,
            target: TARGET,
            better: 'lower',
            note: `per round ${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)}`,
          },
        },
        figures: {
          projects: PROJECTS,
          memories: built.memories,
          'empty page ms (median)': median(empty),
          'dashboard, warm cache ms (median)': median(warm),
          'dashboard, no cache ms (median)': median(cold),
          'no cache ÷ empty page': median(cold) / median(empty),
        },
      };
    } finally {
      await browser.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
