/**
 * Issue 7's "done when": a real server on loopback, ten clients editing overlapping keys at the
 * same time. Every client ends with exactly the server's state, and every local edit is
 * accounted for — on the server, or kept as a conflict on the machine that made it — checked
 * edit by edit. The same suite runs on SQLite and on PostgreSQL.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeStores } from '../../server/test-support/stores.js';
import { type TestClient, makeClient, serverEntries, startTestServer } from './test-support/team-fixture.js';

const CLIENTS = 10;
const ROUNDS = 6;
const KEYS = ['MEMORY.md', 'project_deploys.md', 'project_api.md', 'reference_dashboards.md', 'infra/dns.md'];

/** A small deterministic generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Edit {
  client: number;
  key: string;
  /** A line that exists nowhere else: where it ends up tells where the edit went. */
  line: string;
}

/** Send raw bytes and return the head and the body bytes of the answer. */
function rawGet(port: number, request: string): Promise<{ head: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      resolve({ head: all.subarray(0, split).toString('latin1'), body: all.subarray(split + 4) });
    });
  });
}

let root: string;
beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-convergence-')));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describeStores('team sync convergence', (h) => {
  it(`${CLIENTS} concurrent clients on overlapping keys converge to the server's state with zero silent losses`, { timeout: 240_000 }, async () => {
    const store = await h.fresh();
    const server = await startTestServer(store, CLIENTS);
    try {
      const base = path.join(root, h.kind);
      const clients: TestClient[] = [];
      for (let i = 0; i < CLIENTS; i++)
        clients.push(await makeClient(base, `c${i}`, server, server.tokens[i]!, { retry: { attempts: 6, baseMs: 5, maxMs: 80 } }));
      const edits: Edit[] = [];
      const stale = { answers: 0, givenUp: 0 };

      // Every client edits and syncs in its own loop, all at once.
      await Promise.all(
        clients.map(async (client, i) => {
          const random = rng(1000 + i);
          for (let round = 0; round < ROUNDS; round++) {
            const touched = 1 + Math.floor(random() * 2);
            for (let t = 0; t < touched; t++) {
              const key = KEYS[Math.floor(random() * KEYS.length)]!;
              const line = `- edit c${i} r${round} t${t} ${key}`;
              const current = (await client.read(key)) ?? `# ${key}\n`;
              await client.write(key, `${current}${line}\n`);
              edits.push({ client: i, key, line });
            }
            if (random() < 0.85) {
              const report = await client.sync.sync();
              stale.answers += report.push.stale;
              // Per-key commits (protocol 2): contention never fails a sync.
              expect(report.error).toBeNull();
              if (report.error) stale.givenUp++;
            }
            await new Promise((r) => setTimeout(r, Math.floor(random() * 15)));
          }
        }),
      );

      // Quiesce: sync everyone until a full pass moves nothing.
      let settled = false;
      for (let pass = 0; pass < 12 && !settled; pass++) {
        settled = true;
        for (const client of clients) {
          const report = await client.sync.sync();
          expect(report.error).toBeNull();
          if (report.push.uploaded.length > 0 || report.pull.written.length > 0 || report.pull.status === 200) settled = false;
        }
      }
      expect(settled).toBe(true);

      // Every client holds exactly the server's state.
      const onServer = await serverEntries(server.url, server.team, server.tokens[0]!);
      expect(Object.keys(onServer).sort()).toEqual([...KEYS].sort());
      for (const client of clients) expect(await client.files()).toEqual(onServer);

      // Every edit is on the server, or kept as a conflict by the client that made it.
      const keptByClient = await Promise.all(
        clients.map(async (client) => {
          const { conflicts } = await client.sync.inspect();
          return Promise.all(conflicts.map(async (c) => ({ key: c.key, mine: (await client.sync.conflictDetail(c.id)).mine })));
        }),
      );
      const lost: Edit[] = [];
      let serverCount = 0;
      let conflictCount = 0;
      for (const edit of edits) {
        if (onServer[edit.key]!.split('\n').includes(edit.line)) serverCount++;
        else if (keptByClient[edit.client]!.some((c) => c.key === edit.key && c.mine.split('\n').includes(edit.line))) conflictCount++;
        else lost.push(edit);
      }
      expect(lost).toEqual([]);
      expect(serverCount + conflictCount).toBe(edits.length);
      // The run really was contended — every edit adds a line at the end of its file, so
      // concurrent edits of one file overlap and some became conflicts — yet no push met a 412.
      expect(stale.answers).toBe(0);
      expect(conflictCount).toBeGreaterThan(0);
      // The conflicts are in each client's history too.
      const anyConflict = keptByClient.findIndex((list) => list.length > 0);
      expect((await clients[anyConflict]!.sync.inspect()).conflicts[0]!.localRev).not.toBeNull();
      console.log(
        `[${h.kind}] ${edits.length} edits by ${CLIENTS} clients: ${serverCount} on the server, ${conflictCount} kept as conflicts, 0 lost; ${stale.answers} × 412, ${stale.givenUp} pushes postponed`,
      );

      // Quiet now: a sync is one conditional GET answered 304, with no body on the wire.
      const quiet = clients[0]!;
      quiet.requests.length = 0;
      const idle = await quiet.sync.sync();
      expect(idle.pull.status).toBe(304);
      expect(quiet.requests).toEqual([expect.objectContaining({ method: 'GET', status: 304, bytesIn: 0 })]);
      const raw = await rawGet(
        server.server.port,
        `GET /v1/teams/${server.team}/entries HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.tokens[0]}\r\nIf-None-Match: ${idle.etag}\r\nConnection: close\r\n\r\n`,
      );
      expect(raw.head).toMatch(/^HTTP\/1\.1 304 /);
      expect(raw.body.length).toBe(0);

      // Deletions do not propagate: one client deletes a file; the server and the others keep it; it comes back.
      const deleter = clients[3]!;
      await fs.rm(path.join(deleter.teamDir, 'project_api.md'));
      const afterDelete = await deleter.sync.sync();
      expect(afterDelete.error).toBeNull();
      expect((await serverEntries(server.url, server.team, server.tokens[0]!))['project_api.md']).toBe(onServer['project_api.md']);
      expect(await deleter.read('project_api.md')).toBe(onServer['project_api.md']);
      for (const other of clients.filter((c) => c !== deleter)) {
        await other.sync.sync();
        expect(await other.read('project_api.md')).toBe(onServer['project_api.md']);
      }
    } finally {
      await server.server.close();
    }
  });
});
