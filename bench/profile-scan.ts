/**
 * Where a cold scan's time goes: the `scan` scenario's home (bench/corpus.ts, 10,000 memories in
 * 200 projects), a cold scan timed beside the `readFileSync` floor as the scenario times them,
 * then run `rounds` times alone under the V8 CPU profiler (started in-process, so building the
 * home, the floor and compiling the code are left out) and the profile's self time summed by
 * function, per scan. Not a scenario: no
 * ratio is judged, nothing is written to bench/results.json.
 *
 *   npx tsx --expose-gc bench/profile-scan.ts [rounds] [top]
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { HomeScanCache, scanHome } from '../src/main/memdir/scan-home.js';
import { writeHome } from './corpus.js';
import { settle } from './lib.js';
import { readEverything } from './scenarios/scan.js';
import { type Profile, selfTimes } from './cpu-profile.js';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 9);
  const top = Number(process.argv[3] ?? 30);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-profile-scan-'));
  try {
    const { home, memories } = writeHome(root, { projects: 200, memoriesPerProject: 50, teamEvery: 10 });
    // Warm the code and the page cache alike, untimed.
    readEverything(home);
    await scanHome(home, { cache: new HomeScanCache(), env: {} });
    // Timed without the profiler, alternating as the scenario does.
    const floor: number[] = [];
    const scan: number[] = [];
    for (let i = 0; i < rounds; i++) {
      settle();
      let start = performance.now();
      readEverything(home);
      floor.push(performance.now() - start);
      settle();
      start = performance.now();
      await scanHome(home, { cache: new HomeScanCache(), env: {} });
      scan.push(performance.now() - start);
    }
    // Then each alone under the profiler: the floor's system calls beside the scan's.
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    const profiled = async (run: () => unknown): Promise<Map<string, number>> => {
      await session.post('Profiler.start');
      for (let i = 0; i < rounds; i++) {
        settle();
        await run();
      }
      const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
      return selfTimes(profile);
    };
    const floorTimes = await profiled(() => readEverything(home));
    const scanTimes = await profiled(() => scanHome(home, { cache: new HomeScanCache(), env: {} }));
    session.disconnect();
    const ratio = median(scan) / median(floor);
    console.log(
      `${memories} memories, ${rounds} rounds: readFileSync floor ${median(floor).toFixed(1)} ms, cold scan ${median(scan).toFixed(1)} ms (${ratio.toFixed(2)}x)`,
    );
    console.log(`self time per round under the profiler (which slows both), top ${top} of the cold scan, the floor's beside:`);
    console.log(`${'scan'.padStart(8)}   ${'floor'.padStart(8)}`);
    const times = [...scanTimes].sort((a, b) => b[1] - a[1]).slice(0, top);
    const ms = (value: number | undefined) => (value === undefined ? '' : `${(value / rounds).toFixed(1)} ms`).padStart(8);
    for (const [name, value] of times) console.log(`${ms(value)}   ${ms(floorTimes.get(name))}  ${name}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
