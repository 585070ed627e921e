/**
 * Kills during team sync: a client editing team files and syncing after each edit
 * (bench/kill/sync-worker.ts) against a real sync server on loopback, SIGKILLed at random
 * moments. After each kill, as on a next start: every team file holds a content written whole;
 * `team status` (inspect) lists as pending exactly the files that differ from the server; and a
 * sync then puts every last edit on the server — none lost — leaving nothing pending.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkAfterKill, sha256 } from '../../src/main/history/test-support/crash-check.js';
import { AlertCenter } from '../../src/main/team/alert-center.js';
import { ConnectionStore } from '../../src/main/team/connections.js';
import { TeamSync } from '../../src/main/team/team-sync.js';
import { makeClient, serverEntries, startTestServer } from '../../src/main/team/test-support/team-fixture.js';
import { openSqliteStore } from '../../src/server/sqlite-store.js';
import { type KillTally, type Worker, bundleWorker, emptyTally, note, releaseAndKill, startWorker } from './harness.js';

export async function killSync(kills: number, random: () => number): Promise<KillTally> {
  const tally = emptyTally();
  const bundle = await bundleWorker('bench/kill/sync-worker.ts');
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-kill-sync-')));
  const store = await openSqliteStore(path.join(root, 'team.sqlite'));
  const server = await startTestServer(store, 1);
  const token = server.tokens[0]!;
  const client = await makeClient(root, 'kill', server, token);
  const connection = (await new ConnectionStore(client.dataDir).forMemoryDir(client.memoryDir))!;
  const logPath = path.join(root, 'edits.log');
  await fs.writeFile(logPath, '');
  const args = [client.dataDir, client.memoryDir, token, logPath];
  try {
    let next: Promise<Worker> = startWorker(bundle, args);
    for (let i = 0; i < kills; i++) {
      const worker = await next;
      const ended = await releaseAndKill(worker, 20 + random() * 400, { group: random() < 0.3 });
      if (ended === 'killed') tally.kills++;
      else note(tally, 'crashes', `the syncing client died on its own: ${worker.stderr().slice(0, 300)}`);
      next = startWorker(bundle, args);
      try {
        const check = await checkAfterKill(client.teamDir, await fs.readFile(logPath, 'utf8'));
        for (const file of check.torn) if (file.endsWith('.md')) note(tally, 'losses', `after kill ${i}, team/${file} holds content never written whole`);
        for (const file of check.vanished) note(tally, 'losses', `after kill ${i}, team/${file} vanished`);
        // A next start: the team client opened afresh from what is on disk, as `memdir team status` does.
        const sync = await TeamSync.open({ connection, token, dataDir: client.dataDir, dir: connection.dir, alerts: new AlertCenter(client.dataDir) });
        // Its status, before it talks to the server: every file that differs from the server is
        // listed as waiting to be pushed. (One the server already has may be listed too, when the
        // kill fell between the push and the saving of its answer: the safe side, counted apart.)
        const local = await client.files();
        const remote = await serverEntries(server.url, server.team, token);
        const differs = new Set(Object.keys(local).filter((key) => remote[key] !== local[key]));
        const pending = new Set((await sync.inspect()).waiting.filter((w) => w.reason === 'pending').map((w) => w.key));
        for (const key of differs)
          if (!pending.has(key)) note(tally, 'untruthful', `after kill ${i}, team/${key} differs from the server but status does not list it as pending`);
        for (const key of pending) if (!differs.has(key)) tally.conservative++;
        // The next sync puts every last edit on the server.
        const report = await sync.sync();
        if (report.error) note(tally, 'crashes', `after kill ${i}, the next sync failed: ${report.error.message}`);
        const after = await serverEntries(server.url, server.team, token);
        for (const [key, text] of Object.entries(await client.files())) {
          if (after[key] !== text) note(tally, 'losses', `after kill ${i}, the last edit of team/${key} (${sha256(text).slice(0, 8)}) is not on the server`);
        }
        const left = (await sync.inspect()).waiting;
        if (left.length > 0)
          note(tally, 'untruthful', `after kill ${i} and a sync, status still lists ${left.map((w) => `${w.key} (${w.reason})`).join(', ')}`);
      } catch (error) {
        note(tally, 'crashes', `after kill ${i}, the next start failed: ${(error as Error).message.split('\n')[0]}`);
      }
    }
    (await next).child.kill('SIGKILL');
  } finally {
    await server.server.close();
    await store.close();
    await fs.rm(root, { recursive: true, force: true });
  }
  return tally;
}
