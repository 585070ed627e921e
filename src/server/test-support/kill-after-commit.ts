/**
 * A sync server process that dies the hardest way right after a push is committed and before
 * its answer leaves (issue 19: "a lost answer never yields a conflict with oneself"). Run with
 * `node --import tsx kill-after-commit.ts <db> <port>`; prints `listening on <url>` like
 * `memdir server`, then SIGKILLs itself once the first protocol 2 commit has returned from the
 * store — the transaction is durable, the client never hears of it.
 */
import { openStore } from '../open-store.js';
import { startServer } from '../server.js';
import type { TeamStore } from '../store.js';

const [db, port] = process.argv.slice(2);
const store = await openStore(db!);
const dying: TeamStore = Object.create(store) as TeamStore;
dying.commitEntries = async (team, request) => {
  const outcome = await store.commitEntries(team, request);
  if (request.entries.length > 0) process.kill(process.pid, 'SIGKILL');
  return outcome;
};
const server = await startServer({ store: dying, port: Number(port ?? 0), closeStore: false, limits: { rateLimit: { burst: 1000, perSecond: 1000 } } });
process.stderr.write(`listening on ${server.url}\n`);
