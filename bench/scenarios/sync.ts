/**
 * `sync`: team sync must cost nothing when nothing changed (issue 7). A real server on
 * loopback (SQLite, its own process) and a client with 5,000 team files, all already on the server:
 *   (a) a no-op sync — a conditional GET answered 304, one readdir and one lstat per file, the
 *       hashes from the stat-keyed cache — against a stat-all baseline in the same run (a bare
 *       readdir + lstat of every file, the least any change detection must do): target ≤ 1.5;
 *   (b) bytes hashed during those no-op syncs, counted by the hash cache: target 0;
 *   (c) one file edited → keys in the PUT that follows, counted on the wire: exactly 1.
 * The server runs as its own process (`memdir server`), as it does for real.
 * The files are realistic memories (bench/corpus.ts), dated a minute back, as files in a real team
 * folder are: one written in the last two seconds is hashed once more by design (racily clean,
 * see hash-cache.ts). A memory the secret scanner holds back stays waiting, as it would for real.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RequestRecord } from '../../src/main/team/team-client.js';
import { generateMemory, loadCorpus } from '../corpus.js';
import { type Scenario, compare, spreadNote } from '../lib.js';
import { openBenchSync, startBenchServer, statAll } from '../team-server.js';

const FILES = 5_000;
const ROUNDS = 15;

export const syncScenario: Scenario = {
  name: 'sync',
  description: `no-op team sync of ${FILES.toLocaleString('en')} files vs a stat-all baseline; one changed file → one key uploaded`,
  async run(log) {
    const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-sync-'));
    const server = await startBenchServer(root, ['bench']);
    try {
      const memoryDir = path.join(root, 'home', 'projects', '-work-bench', 'memory');
      const teamDir = path.join(memoryDir, 'team');
      await fsp.mkdir(teamDir, { recursive: true });
      const old = new Date(Date.now() - 60_000);
      const corpus = loadCorpus();
      for (let i = 0; i < FILES; i++) {
        const m = generateMemory(corpus, 7, i);
        const file = path.join(teamDir, m.file);
        fs.writeFileSync(file, m.text);
        fs.utimesSync(file, old, old);
      }
      const dataDir = path.join(root, 'data');
      const requests: RequestRecord[] = [];
      const sync = await openBenchSync(server, 'bench', memoryDir, dataDir, (r) => requests.push(r));

      const first = await sync.sync();
      const uploadable = FILES - first.waiting.length;
      if (first.error || first.push.uploaded.length !== uploadable)
        throw new Error(`the initial upload failed: ${first.error?.message ?? `${first.push.uploaded.length} of ${uploadable} uploaded`}`);
      log(
        `uploaded ${first.push.uploaded.length} files in ${first.push.attempts} PUTs (${Math.round(first.durationMs)} ms, ${first.filesHashed} files hashed once); ${first.waiting.length} held back (${[...new Set(first.waiting.map((w) => w.reason))].join(', ') || 'none'})`,
      );

      let bytesHashed = 0;
      let filesHashed = 0;
      let notNoop = 0;
      const noop = async (): Promise<void> => {
        const report = await sync.sync();
        bytesHashed += report.bytesHashed;
        filesHashed += report.filesHashed;
        if (report.error || report.pull.status !== 304 || report.push.uploaded.length > 0 || report.push.attempts > 0) notNoop++;
      };
      const counted = requests.length;
      const timing = await compare(ROUNDS, () => statAll(teamDir), noop);
      const { baselineMs, subjectMs, ratio } = timing;
      const noopRequests = requests.slice(counted);
      if (notNoop > 0) throw new Error(`${notNoop} of the no-op syncs did more than a 304 and a look at the folder`);
      log(`no-op sync ÷ stat-all: ${spreadNote(timing)}; every sync one GET → 304 with ${noopRequests.reduce((n, r) => n + r.bytesIn, 0)} body bytes`);

      // One edit → exactly one key goes up.
      const key = first.push.uploaded[1234]!;
      const edited = path.join(teamDir, key);
      fs.appendFileSync(edited, 'Update: the review was moved to next sprint.\n');
      const before = requests.length;
      const changed = await sync.sync();
      const puts = requests.slice(before).filter((r) => r.method === 'PUT');
      const keysUploaded = puts.reduce((n, r) => n + (r.keys ?? 0), 0);
      if (changed.error) throw new Error(`the one-file sync failed: ${changed.error.message}`);
      if (keysUploaded !== 1 || changed.push.uploaded.join() !== key)
        throw new Error(`one changed file uploaded ${keysUploaded} keys (${changed.push.uploaded.join(', ')})`);
      log(`one changed file: ${puts.length} PUT carrying ${keysUploaded} key, ${changed.filesHashed} file hashed (${changed.bytesHashed} bytes)`);

      return {
        ratios: {
          'no-op sync ÷ stat-all': {
            value: ratio,
            target: 1.5,
            better: 'lower',
            note: `${FILES} files: 304 + readdir + lstat each, hashes from the cache; per round ${timing.spread[0].toFixed(2)}–${timing.spread[1].toFixed(2)}, CPU time ${timing.cpuRatio.toFixed(2)}`,
          },
          'bytes hashed by no-op syncs': { value: bytesHashed, target: 0, better: 'lower' },
          'keys uploaded after one edit': { value: keysUploaded, target: 1, better: 'lower', note: 'asserted to be exactly 1' },
        },
        figures: {
          files: FILES,
          noopSyncMs: subjectMs,
          statAllMs: baselineMs,
          noopFilesHashed: filesHashed,
          noopRequestsPerSync: noopRequests.length / (ROUNDS + 1),
          oneEditPuts: puts.length,
          oneEditBytesHashed: changed.bytesHashed,
          initialUploadMs: first.durationMs,
        },
      };
    } finally {
      await server.stop();
      await fsp.rm(root, { recursive: true, force: true });
    }
  },
};
