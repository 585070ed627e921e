/**
 * `scale`: how the costs grow from 1,000 to 10,000 to 100,000 realistic memories (bench/corpus.ts;
 * 50 per project, so 20 to 2,000 projects, every tenth with team memory). At each size:
 *   - cold scan ÷ reading every file it reads with readFileSync (the scan scenario's floor);
 *   - the recall index built over every memory (one ranker: the worst case, one huge project)
 *     and a query on it, in CPU microseconds per memory;
 *   - a no-op team sync of a team folder holding a tenth of the memories ÷ lstat of its files.
 * Target: cost per memory flat — each figure at 10k and 100k within 1.3× of its value at 1k
 * (scan and sync as ratios to their same-run floor, in CPU time so that the load of a shared
 * machine, which changes over the minutes between sizes, does not decide; recall per memory) —
 * and at most 400 MB RSS for a process of the built app that scans 100,000 memories and answers
 * a recall query in a project. The worst case, one recall index over
 * all 100,000 memories, is measured for the record.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LocalRanker, type RankableMemory } from '../../src/main/recall/local-ranker.js';
import { HomeScanCache, scanHome } from '../../src/main/memdir/scan-home.js';
import { generateMemory, loadCorpus, writeHome } from '../corpus.js';
import { type Ratio, type Scenario, compare, median, settle } from '../lib.js';
import { openBenchSync, startBenchServer, statAll } from '../team-server.js';
import { readEverything } from './scan.js';
import { loadLabelledSet } from './recall.js';

const SIZES = [1_000, 10_000, 100_000];
const PER_PROJECT = 50;
const FLAT = 1.3;
const RSS_LIMIT_MB = 400;
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

interface SizeResult {
  memories: number;
  scanRatio: number;
  scanCpuRatio: number;
  scanMs: number;
  floorMs: number;
  buildUsPerMemory: number;
  queryUsPerMemory: number;
  queryMs: number;
  syncRatio: number;
  syncCpuRatio: number;
  syncMs: number;
  teamFiles: number;
}

function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * Peak RSS of a fresh Node process running the built app code (out/), alone: it scans the home
 * and answers a recall query the way the app does (one ranker for the queried project). With `oneRanker`, the worst case instead: every memory
 * of the home in one recall index, as if it were a single project.
 */
function peakRss(home: string, oneRanker: boolean): Promise<{ peakMb: number; memories: number }> {
  const out = (p: string) => JSON.stringify(pathToFileURL(path.join(repoRoot, 'out', p)).href);
  const code = `
    const { HomeScanCache, scanHome } = await import(${out('main/memdir/scan-home.js')});
    const { LocalRanker } = await import(${out('main/recall/local-ranker.js')});
    const scan = await scanHome(process.env.MEMDIR_BENCH_HOME, { cache: new HomeScanCache(), env: {} });
    const projects = scan.projects.map((p) => [...p.memories, ...(p.team?.memories ?? [])]);
    const docs = ${oneRanker ? "projects.flat().map((m, i) => ({ ...m, file: i + '/' + m.file }))" : 'projects[Math.floor(projects.length / 2)]'};
    const ranker = new LocalRanker();
    ranker.addAll(docs);
    ranker.search('deploy rollback 部署');
    process.stdout.write(JSON.stringify({ memories: projects.flat().length, maxRssKb: process.resourceUsage().maxRSS }));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      cwd: repoRoot,
      env: { ...process.env, MEMDIR_BENCH_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      if (status !== 0) return reject(new Error(`the child exited with ${status}: ${err}`));
      const r = JSON.parse(stdout) as { memories: number; maxRssKb: number };
      resolve({ peakMb: r.maxRssKb / 1024, memories: r.memories });
    });
  });
}

export const scaleScenario: Scenario = {
  name: 'scale',
  description: `scan, recall index and query, no-op team sync at ${SIZES.map((s) => s.toLocaleString('en')).join(', ')} realistic memories; RSS at the largest`,
  async run(log) {
    if (!fs.existsSync(path.join(repoRoot, 'out', 'main', 'memdir', 'scan-home.js')))
      throw new Error('out/ is missing: run `npm run build` first (the RSS is measured on the built app).');
    // The inputs first: a missing fixture must fail before the team server starts, not leave it running.
    const queries = loadLabelledSet().queries.map((q) => q.query);
    const corpus = loadCorpus();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-bench-scale-'));
    const server = await startBenchServer(
      root,
      SIZES.map((s) => `team-${s}`),
    );
    const results: SizeResult[] = [];
    let rss = { peakMb: 0, memories: 0 };
    let worst = { peakMb: 0, memories: 0 };
    try {
      for (const size of SIZES) {
        const sizeRoot = path.join(root, String(size));
        const built = writeHome(sizeRoot, { projects: size / PER_PROJECT, memoriesPerProject: PER_PROJECT, teamEvery: 10, seed: size });
        const rounds = size >= 100_000 ? 3 : size >= 10_000 ? 5 : 9;
        log(`${size}: built ${built.memories} memories (${(built.bytes / 1e6).toFixed(0)} MB) in ${built.projectDirs.length} projects`);

        const scan = await compare(
          rounds,
          () => readEverything(built.home),
          () => scanHome(built.home, { cache: new HomeScanCache(), env: {} }),
        );
        const result = await scanHome(built.home, { cache: new HomeScanCache(), env: {} });
        const all: RankableMemory[] = result.projects
          .flatMap((p) => [...p.memories, ...(p.team?.memories ?? [])])
          .map((m, i) => ({ ...m, file: `${i}/${m.file}` }));
        if (all.length !== size) throw new Error(`the scan found ${all.length} memories, expected ${size}`);

        const builds: number[] = [];
        let ranker = new LocalRanker();
        for (let r = 0; r < rounds; r++) {
          settle();
          builds.push(
            cpuMs(() => {
              ranker = new LocalRanker();
              ranker.addAll(all);
            }),
          );
        }
        const queryRounds: number[] = [];
        for (let r = 0; r < rounds; r++) {
          settle();
          queryRounds.push(cpuMs(() => queries.forEach((q) => ranker.search(q))) / queries.length);
        }

        // A team folder holding a tenth of the memories, all already on the server.
        const teamFiles = size / 10;
        const memoryDir = path.join(sizeRoot, 'team-home', 'projects', '-work-team', 'memory');
        const teamDir = path.join(memoryDir, 'team');
        fs.mkdirSync(teamDir, { recursive: true });
        const old = new Date(Date.now() - 60_000);
        for (let i = 0; i < teamFiles; i++) {
          const m = generateMemory(corpus, size + 1, i);
          fs.writeFileSync(path.join(teamDir, m.file), m.text);
          fs.utimesSync(path.join(teamDir, m.file), old, old);
        }
        const sync = await openBenchSync(server, `team-${size}`, memoryDir, path.join(sizeRoot, 'data'));
        const first = await sync.sync();
        if (first.error) throw new Error(`the initial team upload failed: ${first.error.message}`);
        const noop = await compare(
          rounds * 2,
          () => statAll(teamDir),
          async () => {
            const report = await sync.sync();
            if (report.error || report.pull.status !== 304 || report.push.attempts > 0 || report.bytesHashed > 0)
              throw new Error('a no-op sync did more than a 304 and a look at the folder');
          },
        );

        const r: SizeResult = {
          memories: size,
          scanRatio: scan.ratio,
          scanCpuRatio: scan.cpuRatio,
          scanMs: scan.subjectMs,
          floorMs: scan.baselineMs,
          buildUsPerMemory: (median(builds) * 1000) / size,
          queryMs: median(queryRounds),
          queryUsPerMemory: (median(queryRounds) * 1000) / size,
          syncRatio: noop.ratio,
          syncCpuRatio: noop.cpuRatio,
          syncMs: noop.subjectMs,
          teamFiles,
        };
        results.push(r);
        log(
          `${size}: scan ${r.scanMs.toFixed(0)} ms = ${r.scanRatio.toFixed(2)}× floor, ${r.scanCpuRatio.toFixed(2)}× in CPU time (${((r.scanMs * 1000) / size).toFixed(1)} µs/memory); recall build ${r.buildUsPerMemory.toFixed(1)} µs/memory, query ${r.queryMs.toFixed(2)} ms (${r.queryUsPerMemory.toFixed(4)} µs/memory); no-op sync of ${teamFiles} files ${r.syncMs.toFixed(1)} ms = ${r.syncRatio.toFixed(2)}× lstat, ${r.syncCpuRatio.toFixed(2)}× in CPU time`,
        );
        if (size === SIZES[SIZES.length - 1]) {
          rss = await peakRss(built.home, false);
          worst = await peakRss(built.home, true);
          log(
            `${size}: a process of the built app scanning them and recalling in a project peaks at ${rss.peakMb.toFixed(0)} MB RSS; with one recall index over all of them, ${worst.peakMb.toFixed(0)} MB`,
          );
        }
        fs.rmSync(sizeRoot, { recursive: true, force: true });
      }
    } finally {
      await server.stop();
      fs.rmSync(root, { recursive: true, force: true });
    }

    const base = results[0]!;
    const growth = (pick: (r: SizeResult) => number): number => Math.max(...results.slice(1).map((r) => pick(r) / pick(base)));
    const ratios: Record<string, Ratio> = {
      'scan ÷ floor (CPU time), growth 1k → 100k': {
        value: growth((r) => r.scanCpuRatio),
        target: FLAT,
        better: 'lower',
        note: results.map((r) => `${r.memories}: ${r.scanCpuRatio.toFixed(2)} (wall ${r.scanRatio.toFixed(2)})`).join(', '),
      },
      'recall index build per memory, growth': {
        value: growth((r) => r.buildUsPerMemory),
        target: FLAT,
        better: 'lower',
        note: results.map((r) => `${r.memories}: ${r.buildUsPerMemory.toFixed(1)} µs`).join(', '),
      },
      'recall query per memory, growth': {
        value: growth((r) => r.queryUsPerMemory),
        target: FLAT,
        better: 'lower',
        note: results.map((r) => `${r.memories}: ${r.queryMs.toFixed(2)} ms`).join(', '),
      },
      'no-op team sync ÷ lstat (CPU time), growth': {
        value: growth((r) => r.syncCpuRatio),
        target: FLAT,
        better: 'lower',
        note: results.map((r) => `${r.teamFiles} files: ${r.syncCpuRatio.toFixed(2)} (wall ${r.syncRatio.toFixed(2)})`).join(', '),
      },
      'RSS at 100k memories, MB': {
        value: rss.peakMb,
        target: RSS_LIMIT_MB,
        better: 'lower',
        note: `the built app scanning and recalling in a project; one recall index over all 100k: ${worst.peakMb.toFixed(0)} MB`,
      },
    };
    const figures: Record<string, number> = { 'RSS MB, one recall index over all 100k memories': worst.peakMb };
    for (const r of results) {
      figures[`${r.memories}: cold scan ms`] = r.scanMs;
      figures[`${r.memories}: floor ms`] = r.floorMs;
      figures[`${r.memories}: scan ÷ floor`] = r.scanRatio;
      figures[`${r.memories}: scan ÷ floor, CPU time`] = r.scanCpuRatio;
      figures[`${r.memories}: recall build µs per memory`] = r.buildUsPerMemory;
      figures[`${r.memories}: recall query ms`] = r.queryMs;
      figures[`${r.memories}: no-op sync ms (${r.teamFiles} team files)`] = r.syncMs;
      figures[`${r.memories}: no-op sync ÷ lstat`] = r.syncRatio;
    }
    return { ratios, figures };
  },
};
