/**
 * Where the `start` scenario's time goes: the scenario's home (bench/corpus.ts, 200 projects,
 * 10,000 memories, the scan cache warm), the built headless host started in a fresh Node process
 * and opened in headless Chromium, `rounds` times; each round's steps read from the page's own
 * navigation and resource timings and the host's printed URL, all in milliseconds from the spawn on
 * the clock both sides share — and the host's CPU time (user + system, from /proc, so Linux only)
 * as the page got its list, all threads and its JavaScript thread alone. The empty page's start (the scenario's floor) is timed between rounds.
 * Not a scenario: no ratio is judged, nothing is written to bench/results.json. Needs `npm run build`.
 *
 *   npx tsx --expose-gc bench/profile-start.ts [rounds]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser } from '../e2e/support/browser.js';
import { SERVE, startHost } from '../e2e/support/host.js';
import { openScanCache } from '../src/main/memdir/scan-cache-file.js';
import { scanHome } from '../src/main/memdir/scan-home.js';
import { writeHome } from './corpus.js';
import { median, settle } from './lib.js';
import { emptyPageStart } from './scenarios/start.js';

declare const performance: {
  timeOrigin: number;
  getEntriesByName(name: string): { startTime: number }[];
  getEntriesByType(type: string): { name: string; startTime: number; responseEnd: number; requestStart?: number }[];
};

/** The steps of one start, in the order they happen. */
const STEPS = [
  ['listening', 'the host printed its URL (listening)'],
  ['html', 'the page’s HTML received'],
  ['script', 'its entry script received'],
  ['assets', 'its last first-screen file received'],
  ['asked', 'its first API call sent'],
  ['answered', 'its last API answer before the paint received'],
  ['painted', 'the dashboard painted with its rows'],
] as const;
type Step = (typeof STEPS)[number][0];

/**
 * CPU milliseconds (user + system) a process has used so far, from /proc — all its threads, or with
 * `mainThread` its JavaScript thread alone (the rest is V8's compiler and GC helpers, libuv's pool); null elsewhere.
 */
function cpuMs(pid: number | undefined, mainThread = false): number | null {
  try {
    // Fields after the command name, which may hold spaces and ") " itself: it ends at the last
    // ") ". State is field 3, utime 14, stime 15, in clock ticks: USER_HZ, 100 on Linux (`getconf CLK_TCK`).
    const stat = fs.readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

async function oneStart(browser: Browser, home: string, dataDir: string): Promise<Record<Step | 'hostCpu' | 'hostThreadCpu', number>> {
  const started = Date.now();
  const host = await startHost(['--home', home, '--port', '0', '--data-dir', dataDir]);
  const listening = Date.now() - started;
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  try {
    const page = await context.newPage();
    let hostCpu = NaN;
    let hostThreadCpu = NaN;
    // Read as the list's answer reaches the page, before the services that start after it add theirs (approximately: the event arrives a moment later).
    page.on('response', (response) => {
      if (response.url().endsWith('/api/call') && response.request().postData()?.includes('"projects.list"')) {
        hostCpu = cpuMs(host.process.pid) ?? NaN;
        hostThreadCpu = cpuMs(host.process.pid, true) ?? NaN;
      }
    });
    await page.goto(host.url);
    await page.waitForFunction(() => performance.getEntriesByName('memdir:dashboard-painted').length > 0, undefined, { timeout: 120_000 });
    const seen = await page.evaluate(() => {
      const origin = performance.timeOrigin;
      const painted = performance.getEntriesByName('memdir:dashboard-painted')[0]!.startTime;
      const nav = performance.getEntriesByType('navigation')[0]!;
      const resources = performance.getEntriesByType('resource').filter((r) => r.startTime < painted);
      const calls = resources.filter((r) => r.name.endsWith('/api/call'));
      const firstCall = Math.min(...calls.map((r) => r.startTime));
      const assets = resources.filter((r) => r.name.includes('/assets/') && r.startTime < firstCall);
      const entry = assets.find((r) => /\/assets\/index-[^/]*\.js$/.test(r.name));
      return {
        html: origin + nav.responseEnd,
        script: origin + (entry?.responseEnd ?? NaN),
        assets: origin + Math.max(...assets.map((r) => r.responseEnd)),
        asked: origin + firstCall,
        answered: origin + Math.max(...calls.map((r) => r.responseEnd).filter((t) => t <= painted)),
        painted: origin + painted,
      };
    });
    const since = (t: number) => t - started;
    return {
      listening,
      html: since(seen.html),
      script: since(seen.script),
      assets: since(seen.assets),
      asked: since(seen.asked),
      answered: since(seen.answered),
      painted: since(seen.painted),
      hostCpu,
      hostThreadCpu,
    };
  } finally {
    await context.close();
    await host.stop();
  }
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 7);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`The number of rounds must be a whole number of 1 or more, not "${process.argv[2]}".`);
  if (!HAS_BROWSER) throw new Error(MISSING_BROWSER);
  if (!fs.existsSync(SERVE)) throw new Error(`${SERVE} is missing: run \`npm run build\` first.`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-profile-start-'));
  const browser = await launchBrowser();
  try {
    const built = writeHome(root, { projects: 200, memoriesPerProject: 50, teamEvery: 10 });
    const dataDir = path.join(root, 'data');
    // The cache as an earlier run of the app leaves it, as the scenario writes it.
    const opened = openScanCache(dataDir, built.home, { now: () => Date.now() + 60_000 });
    await scanHome(built.home, { cache: opened.cache, env: {} });
    if (!(await opened.save())) throw new Error('the scan cache was not written');
    // Warm-up of each, untimed.
    await emptyPageStart(browser);
    await oneStart(browser, built.home, dataDir);
    const runs: Record<Step | 'hostCpu' | 'hostThreadCpu', number>[] = [];
    const empty: number[] = [];
    for (let i = 0; i < rounds; i++) {
      settle();
      empty.push(await emptyPageStart(browser));
      settle();
      runs.push(await oneStart(browser, built.home, dataDir));
    }
    const load = os.loadavg().map((x) => x.toFixed(2));
    console.log(`${built.memories} memories in 200 projects, warm scan cache; ${rounds} rounds; load average ${load.join(' ')}`);
    console.log('median ms from the spawn   (each round)');
    let before = 0;
    for (const [step, words] of STEPS) {
      const at = median(runs.map((r) => r[step]));
      console.log(`${at.toFixed(0).padStart(6)}  +${(at - before).toFixed(0).padStart(4)}  ${words}   (${runs.map((r) => r[step].toFixed(0)).join(', ')})`);
      before = at;
    }
    console.log(`host CPU by the list's answer: ${median(runs.map((r) => r.hostCpu)).toFixed(0)} ms   (${runs.map((r) => r.hostCpu.toFixed(0)).join(', ')})`);
    console.log(
      `  of which its JavaScript thread: ${median(runs.map((r) => r.hostThreadCpu)).toFixed(0)} ms   (${runs.map((r) => r.hostThreadCpu.toFixed(0)).join(', ')})`,
    );
    console.log(`empty page painted (the floor): ${median(empty).toFixed(0)} ms   (${empty.map((x) => x.toFixed(0)).join(', ')})`);
  } finally {
    await browser.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// What went wrong, as its sentence (no stack: a wrong argument or a missing build is not a crash).
await main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exitCode = 1;
});
