/**
 * `team-load` (issue 19): 20 clients, each on its own home, 10 rounds of parallel edits and
 * `team sync` — a line added to its own file, to its section of a file all 20 edit and of a file
 * about 8 edit, and now and then at the end of that file's log (the only edits that can overlap
 * in lines) — on one SQLite server and on two servers sharing one PostgreSQL (clients split
 * between them); then the same through the fault-injecting proxy (issue 15). Every edit is
 * looked for (server / conflict / pending / lost). Targets: 0 lost, ≥ 99% of edits to files
 * nobody else touched landed in their own round, 0 stale exits, 0 conflicts on edits that overlap
 * nobody — on both stores. Server-side commit time comes from the servers' own request log.
 * (A correctness-at-scale run: its ratios are shares and counts, its times absolute figures.)
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTeam, issueToken } from '../../src/server/admin.js';
import type { LogRecord } from '../../src/server/log.js';
import { openStore } from '../../src/server/open-store.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import type { TeamStore } from '../../src/server/store.js';
import { postgresAvailability, startEphemeralPostgres } from '../../src/server/test-support/postgres.js';
import { type FaultProxy, startFaultProxy } from '../../src/main/team/test-support/fault-proxy.js';
import { describeLedger, runTeamLoad } from '../../src/main/team/test-support/team-load.js';
import { type Scenario, type ScenarioResult, percentile } from '../lib.js';

const CLIENTS = 20;
const ROUNDS = 10;
const FAULT_RATE = 0.2;

interface Setup {
  label: string;
  db: () => Promise<string>;
  servers: number;
  faults: boolean;
}

export const teamLoadScenario: Scenario = {
  name: 'team-load',
  description: `${CLIENTS} clients × ${ROUNDS} rounds of parallel edits and syncs on SQLite and on two servers over PostgreSQL, clean and through faults: the edit-by-edit ledger`,
  async run(log) {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-team-load-')));
    const result: ScenarioResult = { ratios: {}, figures: {} };
    const pg = postgresAvailability();
    const cluster = pg.available ? await startEphemeralPostgres() : null;
    if (!cluster) log(`PostgreSQL skipped: ${(pg as { reason: string }).reason}`);
    let n = 0;
    const setups: Setup[] = [
      { label: 'sqlite', db: async () => path.join(root, `load-${++n}.sqlite`), servers: 1, faults: false },
      ...(cluster ? [{ label: 'postgres ×2 servers', db: () => cluster.createDatabase(), servers: 2, faults: false }] : []),
      { label: 'sqlite + faults', db: async () => path.join(root, `load-${++n}.sqlite`), servers: 1, faults: true },
      ...(cluster ? [{ label: 'postgres ×2 servers + faults', db: () => cluster.createDatabase(), servers: 2, faults: true }] : []),
    ];
    try {
      for (const setup of setups) {
        const db = await setup.db();
        const stores: TeamStore[] = [];
        const servers: RunningServer[] = [];
        const proxies: FaultProxy[] = [];
        const commits: number[] = [];
        const record = (r: LogRecord): void => {
          if (r.msg === 'request' && r.method === 'PUT' && r.route === '/v2/teams/:team/entries' && typeof r.ms === 'number') commits.push(r.ms);
        };
        try {
          for (let i = 0; i < setup.servers; i++) stores.push(await openStore(db));
          await createTeam(stores[0]!, 'load');
          const tokens: string[] = [];
          for (let i = 0; i < CLIENTS; i++) tokens.push((await issueToken(stores[0]!, 'load', `member-${i}`)).token);
          for (const store of stores)
            servers.push(await startServer({ store, port: 0, closeStore: false, log: record, limits: { rateLimit: { burst: 100_000, perSecond: 100_000 } } }));
          for (const [i, server] of servers.entries()) if (setup.faults) proxies.push(await startFaultProxy(server.url, { rate: 0, seed: 19 + i }));
          const started = performance.now();
          const ledger = await runTeamLoad({
            root: path.join(root, `run-${setups.indexOf(setup)}`),
            urls: setup.faults ? proxies.map((p) => p.url) : servers.map((s) => s.url),
            truthUrl: servers[0]!.url,
            team: 'load',
            tokens,
            clients: CLIENTS,
            rounds: ROUNDS,
            clientOptions: { retry: { attempts: 6, baseMs: 5, maxMs: 60 }, timeoutMs: 10_000 },
            onRound: () => {
              for (const p of proxies) p.rate = FAULT_RATE;
            },
            onSettle: () => {
              for (const p of proxies) p.rate = 0;
            },
          });
          const seconds = (performance.now() - started) / 1000;
          log(describeLedger(`[${setup.label}]`, ledger));
          if (proxies.length) log(`[${setup.label}] faults injected: ${JSON.stringify(proxies.map((p) => p.counts))}`);
          // An avoidable conflict says whose it is, which edits it holds, and what the network did to that client's requests.
          for (const a of ledger.avoidable) {
            const mine = proxies.flatMap((p) => p.events).filter((ev) => ev.fault && ev.authorization === `Bearer ${tokens[a.client]}`);
            log(
              `[${setup.label}] conflict without overlap: c${a.client} ${a.key} (${a.id}) holds ${a.missing.map((m) => `r${m.round} ${m.kind}`).join(', ')}; faults on its requests: ${mine.map((ev) => `#${ev.n} ${ev.method} ${ev.path.split('?')[0]} ${ev.fault}`).join('; ') || 'none'}`,
            );
          }
          const label = setup.label;
          const landed = ledger.ownEdits ? ledger.ownLandedInRound / ledger.ownEdits : 1;
          const overlapping = ledger.byKind.log.edits;
          result.ratios[`edits lost [${label}]`] = { value: ledger.lost.length, target: 0, better: 'lower', note: `${ledger.edits} edits counted one by one` };
          result.ratios[`conflicts on edits that overlap nobody [${label}]`] = { value: ledger.conflictsWithoutOverlap, target: 0, better: 'lower' };
          result.ratios[`stale exits [${label}]`] = { value: ledger.staleExits, target: 0, better: 'lower' };
          if (!setup.faults)
            result.ratios[`own-file edits landed in their round [${label}]`] = {
              value: landed,
              target: 0.99,
              better: 'higher',
              note: `${ledger.ownLandedInRound} of ${ledger.ownEdits}`,
            };
          Object.assign(result.figures, {
            [`${label}: edits`]: ledger.edits,
            [`${label}: on server / conflict / pending`]: `${ledger.onServer} / ${ledger.conflict} / ${ledger.pending}`,
            [`${label}: own-file edits landed in their round`]: landed,
            [`${label}: conflicts per overlapping edit`]: overlapping ? ledger.conflicts / overlapping : 0,
            [`${label}: commit ms p50`]: commits.length ? percentile(commits, 50) : 0,
            [`${label}: commit ms p95`]: commits.length ? percentile(commits, 95) : 0,
            [`${label}: pushes`]: commits.length,
            [`${label}: sync errors`]: JSON.stringify(ledger.errors),
            [`${label}: seconds`]: seconds,
          });
        } finally {
          for (const p of proxies) await p.close();
          for (const s of servers) await s.close();
          for (const s of stores) await s.close();
        }
      }
    } finally {
      await cluster?.stop();
      await fs.rm(root, { recursive: true, force: true });
    }
    return result;
  },
};
