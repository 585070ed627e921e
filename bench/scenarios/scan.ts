/**
 * `scan`: 10,000 realistic memories (bench/corpus.ts) in 200 projects, each with a transcript,
 * every tenth with team memory. Three answers, each against the fastest plain synchronous way
 * to do the same I/O in the same run:
 *   - a cold scan (no cache anywhere) ÷ reading every file it reads with `readFileSync` after
 *     `readdirSync` of each directory (target ≤ 1.5);
 *   - a fresh process's scan of the unchanged home (the persisted cache loaded from Memdir's
 *     data dir, nothing in memory) ÷ `readdirSync` + `lstatSync` of every file (target ≤ 1.5).
 *     Measured in this process with a new cache object each round (loading the file is part of
 *     the time); the JIT and the OS page cache are warm for the floor and the scan alike;
 *   - a rescan with nothing changed (the in-memory cache warm) ÷ the same stat floor (≤ 1.5).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openScanCache } from '../../src/main/memdir/scan-cache-file.js';
import { HomeScanCache, scanHome } from '../../src/main/memdir/scan-home.js';
import type { HomeScan } from '../../src/shared/scan-types.js';
import { writeHome } from '../corpus.js';
import { type Scenario, compare, spreadNote } from '../lib.js';

const PROJECTS = 200;
const PER_PROJECT = 50;
const ROUNDS = 9;

/** Every file a cold scan reads: the listings, each memory file, the transcript holding the cwd. */
export function readEverything(home: string): number {
  let bytes = 0;
  const projects = path.join(home, 'projects');
  for (const dir of fs.readdirSync(projects)) {
    const projectDir = path.join(projects, dir);
    for (const name of fs.readdirSync(projectDir)) if (name.endsWith('.jsonl')) bytes += fs.readFileSync(path.join(projectDir, name)).length;
    bytes += readDir(path.join(projectDir, 'memory'));
  }
  return bytes;
}

function readDir(dir: string): number {
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) bytes += readDir(path.join(dir, entry.name));
    else bytes += fs.readFileSync(path.join(dir, entry.name)).length;
  }
  return bytes;
}

/** The least any change detection does: list every directory, `lstat` every file in it. */
export function statEverything(home: string): number {
  let files = 0;
  const projects = path.join(home, 'projects');
  for (const dir of fs.readdirSync(projects)) files += statDir(path.join(projects, dir, 'memory'));
  return files;
}

function statDir(dir: string): number {
  let files = 0;
  for (const name of fs.readdirSync(dir)) {
    const st = fs.lstatSync(path.join(dir, name));
    if (st.isDirectory()) files += statDir(path.join(dir, name));
    else files++;
  }
  return files;
}

export const scanScenario: Scenario = {
  name: 'scan',
  description: `${(PROJECTS * PER_PROJECT).toLocaleString('en')} realistic memories in ${PROJECTS} projects: cold scan, fresh-process scan of an unchanged home, rescan`,
  async run(log) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-bench-scan-'));
    try {
      const built = writeHome(root, { projects: PROJECTS, memoriesPerProject: PER_PROJECT, teamEvery: 10 });
      const { home } = built;
      log(`built ${built.memories} memories (${(built.bytes / 1e6).toFixed(1)} MB) under ${root}`);
      const env = {};

      const cold = await compare(
        ROUNDS,
        () => readEverything(home),
        () => scanHome(home, { cache: new HomeScanCache(), env }),
      );
      log(`cold scan ÷ readFileSync floor: ${spreadNote(cold)}`);

      const cache = new HomeScanCache();
      await scanHome(home, { cache, env });
      const rescan = await compare(
        ROUNDS * 2,
        () => statEverything(home),
        () => scanHome(home, { cache, env }),
      );
      log(`rescan ÷ lstat floor: ${spreadNote(rescan)}`);

      // A fresh process: the cache file written by an earlier one, nothing in memory.
      const dataDir = path.join(root, 'data');
      const first = openScanCache(dataDir, home);
      const expected = await scanHome(home, { cache: first.cache, env });
      if (!(await first.save())) throw new Error('the scan cache was not written');
      const cacheBytes = fs.statSync(path.join(dataDir, 'scan-cache', fs.readdirSync(path.join(dataDir, 'scan-cache'))[0]!)).size;
      let reused = 0;
      const fresh = await compare(
        ROUNDS * 2,
        () => statEverything(home),
        async () => {
          const opened = openScanCache(dataDir, home);
          if (!opened.loaded.loaded) throw new Error(`the scan cache was not loaded: ${opened.loaded.reason}`);
          await scanHome(home, { cache: opened.cache, env });
          // Directories still held as the file wrote them were answered from it, stats only.
          reused = opened.cache.stored.size;
        },
      );
      log(`fresh-process scan ÷ lstat floor: ${spreadNote(fresh)}; cache file ${(cacheBytes / 1e6).toFixed(1)} MB, ${reused} directories answered from it`);
      const again = openScanCache(dataDir, home);
      const warmResult = await scanHome(home, { cache: again.cache, env });
      // The moments identities were read (issue 18) differ between any two scans; everything else must not.
      const untimed = (scan: HomeScan) => JSON.stringify(scan, (key, value: unknown) => (key === 'readAt' ? null : value));
      if (untimed(warmResult) !== untimed(expected)) throw new Error('the fresh-process scan differs from the cold scan');
      if (reused < built.memoryDirs.length) throw new Error(`only ${reused} of ${built.memoryDirs.length} memory directories came from the cache file`);

      const check = await scanHome(home, { cache: new HomeScanCache(), env });
      const memories = check.projects.reduce((n, p) => n + p.memories.length + (p.team?.memories.length ?? 0), 0);
      if (memories !== built.memories) throw new Error(`scan found ${memories} memories, expected ${built.memories}`);
      const problems = check.projects.reduce((n, p) => n + p.problems.length + (p.team?.problems.length ?? 0), 0);
      return {
        ratios: {
          'cold scan ÷ readFileSync of the same files': {
            value: cold.ratio,
            target: 1.5,
            better: 'lower',
            note: `per round ${cold.spread[0].toFixed(2)}–${cold.spread[1].toFixed(2)}; CPU time ${cold.cpuRatio.toFixed(2)}`,
          },
          'fresh-process scan of the unchanged home ÷ lstat of every file': {
            value: fresh.ratio,
            target: 1.5,
            better: 'lower',
            note: `per round ${fresh.spread[0].toFixed(2)}–${fresh.spread[1].toFixed(2)}; CPU time ${fresh.cpuRatio.toFixed(2)}`,
          },
          'unchanged rescan ÷ lstat of every file': {
            value: rescan.ratio,
            target: 1.5,
            better: 'lower',
            note: `per round ${rescan.spread[0].toFixed(2)}–${rescan.spread[1].toFixed(2)}; CPU time ${rescan.cpuRatio.toFixed(2)}`,
          },
        },
        figures: {
          memories: built.memories,
          'MB on disk': built.bytes / 1e6,
          'problems reported': problems,
          'floor readFileSync ms': cold.baselineMs,
          'cold scan ms': cold.subjectMs,
          'floor lstat ms': rescan.baselineMs,
          'unchanged rescan ms': rescan.subjectMs,
          'floor lstat ms (fresh-process rounds)': fresh.baselineMs,
          'fresh-process scan ms': fresh.subjectMs,
          'cache file MB': cacheBytes / 1e6,
        },
      };
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
