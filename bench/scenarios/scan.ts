/**
 * `scan`: 10,000 topic files in 200 projects. A cold full scan against a baseline that only
 * reads the same files with fs (target ≤ 1.5), and a rescan with nothing changed against the
 * same baseline (target ≤ 0.2: stats, no re-reads).
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HomeScanCache, scanHome } from '../../src/main/memdir/scan-home.js';
import { type Scenario, compare } from '../lib.js';

const PROJECTS = 200;
const PER_PROJECT = 50;

async function buildHome(root: string): Promise<{ home: string; dirs: string[] }> {
  const home = path.join(root, 'home');
  const dirs: string[] = [];
  for (let p = 0; p < PROJECTS; p++) {
    const dir = path.join(home, 'projects', `-work-project-${p}`, 'memory');
    dirs.push(dir);
    await fs.mkdir(dir, { recursive: true });
    const index: string[] = [];
    const types = ['user', 'feedback', 'project', 'reference'];
    for (let i = 0; i < PER_PROJECT; i++) {
      const type = types[i % 4]!;
      const file = `${type}_topic_${i}.md`;
      const zh = i % 5 === 0;
      const name = zh ? `记忆 ${p}-${i}` : `Topic ${p}-${i}`;
      const description = zh ? `项目 ${p} 的第 ${i} 条记忆：部署前先跑集成测试` : `Project ${p} fact ${i}: run the integration suite before deploying`;
      index.push(`- [${name}](${file}) — ${description}`);
      await fs.writeFile(path.join(dir, file), `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${'Body text of a typical memory, a few sentences long. '.repeat(6)}\n`);
    }
    await fs.writeFile(path.join(dir, 'MEMORY.md'), `${index.join('\n')}\n`);
  }
  return { home, dirs };
}

/** Bare fs: list each memory dir and read every file in it, with the same parallelism. */
async function readAll(dirs: string[]): Promise<number> {
  let bytes = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < dirs.length) {
        const dir = dirs[next++]!;
        const names = await fs.readdir(dir);
        let i = 0;
        await Promise.all(
          Array.from({ length: 32 }, async () => {
            while (i < names.length) {
              const name = names[i++]!;
              bytes += (await fs.readFile(path.join(dir, name))).length;
            }
          }),
        );
      }
    }),
  );
  return bytes;
}

function readAllSync(dirs: string[]): number {
  let bytes = 0;
  for (const dir of dirs) for (const name of fsSync.readdirSync(dir)) bytes += fsSync.readFileSync(path.join(dir, name)).length;
  return bytes;
}

export const scanScenario: Scenario = {
  name: 'scan',
  description: `${PROJECTS * PER_PROJECT} topic files in ${PROJECTS} projects`,
  async run(log) {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-scan-'));
    try {
      const { home, dirs } = await buildHome(root);
      log(`built ${PROJECTS * PER_PROJECT} files under ${root}`);
      const cold = await compare(7, () => readAll(dirs), () => scanHome(home, { cache: new HomeScanCache(), env: {} }));
      const cache = new HomeScanCache();
      await scanHome(home, { cache, env: {} });
      const warm = await compare(7, () => readAll(dirs), () => scanHome(home, { cache, env: {} }));
      // For the record: the same reads done synchronously, the way the scanner itself reads.
      const syncRead = await compare(3, async () => readAllSync(dirs), async () => readAllSync(dirs));
      const check = await scanHome(home, { cache, env: {} });
      const memories = check.projects.reduce((n, p) => n + p.memories.length, 0);
      if (memories !== PROJECTS * PER_PROJECT) throw new Error(`scan found ${memories} memories, expected ${PROJECTS * PER_PROJECT}`);
      return {
        ratios: {
          'cold scan / read-all baseline': { value: cold.ratio, target: 1.5, better: 'lower' },
          'unchanged rescan / read-all baseline': { value: warm.ratio, target: 0.2, better: 'lower' },
        },
        figures: {
          'baseline read-all ms': cold.baselineMs,
          'cold scan ms': cold.subjectMs,
          'baseline read-all ms (rescan round)': warm.baselineMs,
          'unchanged rescan ms': warm.subjectMs,
          'read-all with readFileSync ms (scanner reads this way)': syncRead.baselineMs,
          files: PROJECTS * PER_PROJECT,
        },
      };
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  },
};
