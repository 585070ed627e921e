// Team sync against unreliable servers: a connection cut before or after the server applied a push, clocks that disagree.
import net from 'node:net';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createTeam, issueToken } from '../../server/admin.js';
import { createApp } from '../../server/app.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import { useSharedTeamServer } from './test-support/shared-server.js';
import { makeClient, serverEntries } from './test-support/team-fixture.js';

const h = useSharedTeamServer();
const { keyOf } = h;

describe('team sync against unreliable servers', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** A proxy in front of the real server that can cut PUTs before or after the server saw them. */
  async function flakyProxy(): Promise<{ url: string; mode: { cut: 'none' | 'before' | 'after' } }> {
    const mode = { cut: 'none' as 'none' | 'before' | 'after' };
    const upstream = new URL(h.server.url);
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((socket) => {
      const out = net.connect(Number(upstream.port), upstream.hostname);
      sockets.add(socket).add(out);
      let isPut = false;
      socket.on('data', (d) => {
        // Each request on a kept-alive connection starts a chunk with its request line.
        const text = d.toString('latin1');
        if (/^[A-Z]+ \//.test(text)) isPut = text.startsWith('PUT ');
        if (isPut && mode.cut === 'before') {
          socket.destroy();
          out.destroy();
          return;
        }
        out.write(d);
      });
      out.on('data', (d) => {
        // The server applied the push; its answer never arrives.
        if (isPut && mode.cut === 'after') {
          socket.destroy();
          out.destroy();
          return;
        }
        socket.write(d);
      });
      out.on('error', () => socket.destroy());
      socket.on('error', () => out.destroy());
      out.on('close', () => socket.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise((r) => {
          for (const socket of sockets) socket.destroy();
          proxy.close(() => r());
        }),
    );
    return { url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`, mode };
  }

  it('a server that goes away mid-push (before applying it): a clear error, nothing lost, the next sync finishes it', async () => {
    const proxy = await flakyProxy();
    h.n++;
    const a = await makeClient(h.root, `flaky${h.n}`, { url: proxy.url, team: h.server.team }, h.server.tokens[0]!);
    await a.write(keyOf('important'), 'do not lose me\n');
    proxy.mode.cut = 'before';
    const first = await a.sync.sync();
    // The request left: the client cannot know the server did not save it, and says so.
    expect(first.error).toMatchObject({ code: 'network', message: expect.stringContaining('was lost after the push was sent') });
    expect(first.error!.message).toContain('may have saved it');
    expect(first.error!.message).not.toContain('Cannot reach');
    expect(await a.read(keyOf('important'))).toBe('do not lose me\n');
    expect((await a.sync.inspect()).waiting).toEqual([expect.objectContaining({ key: keyOf('important'), reason: 'pending' })]);
    proxy.mode.cut = 'none';
    const second = await a.sync.sync();
    expect(second.error).toBeNull();
    expect(second.push.uploaded).toEqual([keyOf('important')]);
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[keyOf('important')]).toBe('do not lose me\n');
  });

  it('a server that goes away after applying a push: the next sync sees it is already there (no conflict, no double push)', async () => {
    const proxy = await flakyProxy();
    h.n++;
    const a = await makeClient(h.root, `flaky${h.n}`, { url: proxy.url, team: h.server.team }, h.server.tokens[0]!);
    await a.write(keyOf('applied'), 'landed, answer lost\n');
    proxy.mode.cut = 'after';
    const first = await a.sync.sync();
    expect(first.error?.code).toBe('network');
    proxy.mode.cut = 'none';
    const second = await a.sync.sync();
    expect(second.error).toBeNull();
    expect(second.push.uploaded).toEqual([]);
    expect(second.pull.conflicts).toEqual([]);
    expect((await a.sync.inspect()).waiting).toEqual([]);
    expect((await serverEntries(h.server.url, h.server.team, h.server.tokens[0]!))[keyOf('applied')]).toBe('landed, answer lost\n');
  });

  it('clocks that disagree change nothing: versions and hashes decide, never timestamps', async () => {
    const skewedStore = await openSqliteStore(path.join(h.root, `skewed-${++h.n}.sqlite`));
    await createTeam(skewedStore, 'platform');
    const t1 = (await issueToken(skewedStore, 'platform', 'ann')).token;
    const t2 = (await issueToken(skewedStore, 'platform', 'bob')).token;
    // The server lives ten years ahead; one client a year behind, the other in 2100.
    const app = createApp({ store: skewedStore, now: () => new Date('2036-01-01T00:00:00Z'), limits: { rateLimit: { burst: 1000, perSecond: 1000 } } });
    const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((r) => http.once('listening', r));
    closers.push(async () => {
      await new Promise((r) => http.close(r));
      await skewedStore.close();
    });
    const url = `http://127.0.0.1:${(http.address() as net.AddressInfo).port}`;
    const past = await makeClient(h.root, `past${h.n}`, { url, team: 'platform' }, t1, { now: () => new Date('2025-01-01T00:00:00Z') });
    const future = await makeClient(h.root, `future${h.n}`, { url, team: 'platform' }, t2, { now: () => new Date('2100-01-01T00:00:00Z') });
    await past.write('a.md', 'from the past\n');
    await past.sync.sync();
    await future.sync.sync();
    await future.write('a.md', 'from the past\nand the future\n');
    await future.sync.sync();
    await past.sync.sync();
    expect(await past.read('a.md')).toBe('from the past\nand the future\n');
    expect((await past.sync.inspect()).conflicts).toEqual([]);
  });
});
