/**
 * `sync`: team sync must cost nothing when nothing changed (issue 7). A real server on
 * loopback (SQLite, its own process) and a client with 5,000 team files, all already on the server:
 *   (a) a no-op sync — a conditional GET answered 304, one readdir and one lstat per file, the
 *       hashes from the stat-keyed cache — against a stat-all baseline in the same run (a bare
 *       readdir + lstat of every file, the least any change detection must do): target ≤ 1.5;
 *   (b) bytes hashed during those no-op syncs, counted by the hash cache: target 0;
 *   (c) one file edited → keys in the PUT that follows, counted on the wire: exactly 1.
 * The server runs as its own process (`memdir server`), as it does for real.
 * The files are dated a minute back, as files in a real team folder are: one written in the
 * last two seconds is hashed once more by design (racily clean, see hash-cache.ts).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTeam, issueToken } from '../../src/server/admin.js';
import { openSqliteStore } from '../../src/server/sqlite-store.js';
import { ConnectionStore } from '../../src/main/team/connections.js';
import type { RequestRecord } from '../../src/main/team/team-client.js';
import { TeamSync } from '../../src/main/team/team-sync.js';
import { startServerProcess } from '../../src/server/test-support/server-process.js';
import { type Scenario, compare } from '../lib.js';

const FILES = 5_000;
const MEMDIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/memdir.ts');
const ROUNDS = 15;

function memory(i: number): string {
  return `---\nname: Decision ${i}\ndescription: What the team decided about topic ${i}\ntype: project\n---\n\nWe chose option ${i % 7} for topic ${i} after the review on 2026-0${(i % 9) + 1}-1${i % 10}.\nOwner: team-${i % 13}. See the design doc for the alternatives that were rejected.\n`;
}

/** The baseline: list the folder and lstat every file, nothing else (the same calls the listing makes). */
function statAll(dir: string): number {
  let n = 0;
  const base = dir + path.sep;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const st = fs.lstatSync(base + entry.name, { throwIfNoEntry: false });
    if (st?.isFile()) n++;
  }
  return n;
}

export const syncScenario: Scenario = {
  name: 'sync',
  description: `no-op team sync of ${FILES.toLocaleString('en')} files vs a stat-all baseline; one changed file → one key uploaded`,
  async run(log) {
    const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-sync-'));
    const db = path.join(root, 'team.sqlite');
    const store = await openSqliteStore(db);
    await createTeam(store, 'bench');
    const { token } = await issueToken(store, 'bench', 'bench');
    await store.close();
    const server = await startServerProcess(['--import', 'tsx', MEMDIR], db, { rate: 100_000 });
    try {
      const memoryDir = path.join(root, 'home', 'projects', '-work-bench', 'memory');
      const teamDir = path.join(memoryDir, 'team');
      await fsp.mkdir(teamDir, { recursive: true });
      const old = new Date(Date.now() - 60_000);
      for (let i = 0; i < FILES; i++) {
        const file = path.join(teamDir, `project_${String(i).padStart(5, '0')}.md`);
        fs.writeFileSync(file, memory(i));
        fs.utimesSync(file, old, old);
      }
      const dataDir = path.join(root, 'data');
      const connection = await new ConnectionStore(dataDir).save({ memoryDir, dir: '-work-bench', server: server.url, team: 'bench', member: 'bench', tokenId: token.slice(4, 20), connectedAt: new Date().toISOString(), pullIntervalSec: 60 });
      const requests: RequestRecord[] = [];
      const sync = await TeamSync.open({ connection, token, dataDir, onRequest: (r) => requests.push(r) });

      const first = await sync.sync();
      if (first.error || first.push.uploaded.length !== FILES) throw new Error(`the initial upload failed: ${first.error?.message ?? `${first.push.uploaded.length} of ${FILES} uploaded`}`);
      log(`uploaded ${FILES} files in ${first.push.attempts} PUTs (${Math.round(first.durationMs)} ms, ${first.filesHashed} files hashed once)`);

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
      const { baselineMs, subjectMs, ratio } = await compare(ROUNDS, async () => statAll(teamDir), noop);
      const noopRequests = requests.slice(counted);
      if (notNoop > 0) throw new Error(`${notNoop} of the no-op syncs did more than a 304 and a look at the folder`);
      log(`no-op sync: ${subjectMs.toFixed(1)} ms (median of ${ROUNDS}); stat-all: ${baselineMs.toFixed(1)} ms; every sync one GET → 304 with ${noopRequests.reduce((n, r) => n + r.bytesIn, 0)} body bytes`);

      // One edit → exactly one key goes up.
      const edited = path.join(teamDir, 'project_01234.md');
      fs.appendFileSync(edited, 'Update: the review was moved to next sprint.\n');
      const before = requests.length;
      const changed = await sync.sync();
      const puts = requests.slice(before).filter((r) => r.method === 'PUT');
      const keysUploaded = puts.reduce((n, r) => n + (r.keys ?? 0), 0);
      if (changed.error) throw new Error(`the one-file sync failed: ${changed.error.message}`);
      if (keysUploaded !== 1 || changed.push.uploaded.join() !== 'project_01234.md') throw new Error(`one changed file uploaded ${keysUploaded} keys (${changed.push.uploaded.join(', ')})`);
      log(`one changed file: ${puts.length} PUT carrying ${keysUploaded} key, ${changed.filesHashed} file hashed (${changed.bytesHashed} bytes)`);

      return {
        ratios: {
          'no-op sync ÷ stat-all': { value: ratio, target: 1.5, better: 'lower', note: `${FILES} files: 304 + readdir + lstat each, hashes from the cache` },
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
