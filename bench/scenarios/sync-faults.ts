/**
 * `sync-faults` (issue 15): 10 clients × 200 edits each, syncing through the fault-injecting
 * proxy (drops mid-body, 500/503/429 with Retry-After, delays, duplicates, replays) to a real
 * server on loopback — on SQLite and on PostgreSQL (a throwaway cluster). Every edit is then
 * looked for, edit by edit: on the server, kept as a conflict, pending — or lost. Target: 0 lost
 * on both stores. (A correctness run: its "ratio" is the count of lost edits.)
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/server/open-store.js';
import { postgresAvailability, startEphemeralPostgres } from '../../src/server/test-support/postgres.js';
import { startFaultProxy } from '../../src/main/team/test-support/fault-proxy.js';
import { startTestServer } from '../../src/main/team/test-support/team-fixture.js';
import { describeLedger, runTeamLoad } from '../../src/main/team/test-support/team-load.js';
import type { Scenario, ScenarioResult } from '../lib.js';

const CLIENTS = 10;
/** Three or four edits per client and round: 64 rounds make about 200 edits per client. */
const ROUNDS = 64;
const RATE = 0.25;

export const syncFaultsScenario: Scenario = {
  name: 'sync-faults',
  description: `${CLIENTS} clients × ~200 edits each through a fault-injecting proxy, on SQLite and PostgreSQL: edits lost must be 0`,
  async run(log) {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-faults-')));
    const result: ScenarioResult = { ratios: {}, figures: {} };
    const pg = postgresAvailability();
    const cluster = pg.available ? await startEphemeralPostgres() : null;
    if (!cluster) log(`PostgreSQL skipped: ${(pg as { reason: string }).reason}`);
    try {
      for (const kind of cluster ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
        const store = await openStore(kind === 'sqlite' ? path.join(root, 'faults.sqlite') : await cluster!.createDatabase());
        const server = await startTestServer(store, CLIENTS);
        const proxy = await startFaultProxy(server.url, { rate: RATE, seed: 15 });
        const started = performance.now();
        try {
          const ledger = await runTeamLoad({
            root: path.join(root, kind),
            urls: [proxy.url],
            truthUrl: server.url,
            team: server.team,
            tokens: server.tokens,
            clients: CLIENTS,
            rounds: ROUNDS,
            clientOptions: { retry: { attempts: 6, baseMs: 5, maxMs: 60 }, timeoutMs: 10_000 },
            onRound: () => {
              proxy.rate = RATE;
            },
            onSettle: () => {
              proxy.rate = 0;
            },
          });
          const seconds = (performance.now() - started) / 1000;
          log(describeLedger(`[${kind}]`, ledger));
          log(`[${kind}] faults injected: ${JSON.stringify(proxy.counts)} in ${seconds.toFixed(1)} s`);
          result.ratios[`edits lost [${kind}]`] = { value: ledger.lost.length, target: 0, better: 'lower', note: `${ledger.edits} edits counted one by one` };
          Object.assign(result.figures, {
            [`${kind} edits`]: ledger.edits,
            [`${kind} on server`]: ledger.onServer,
            [`${kind} kept as conflicts`]: ledger.conflict,
            [`${kind} pending`]: ledger.pending,
            [`${kind} faults`]: Object.entries(proxy.counts)
              .filter(([k]) => k !== 'requests')
              .reduce((n, [, v]) => n + v, 0),
            [`${kind} requests`]: proxy.counts.requests,
            [`${kind} converged`]: ledger.converged ? 'yes' : 'no',
            [`${kind} seconds`]: seconds,
          });
        } finally {
          await proxy.close();
          await server.server.close();
          await store.close();
        }
      }
    } finally {
      await cluster?.stop();
      await fs.rm(root, { recursive: true, force: true });
    }
    return result;
  },
};
