import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppContext } from '../../app/app-context.js';
import { createAppDispatcher } from '../../api/index.js';
import { type RunningHost, startHost } from './host-server.js';

let root: string;
let ctx: AppContext;
let host: RunningHost;

/** A raw request, so Host and Origin can be set the way an attacker's page would. */
function request(opts: {
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: host.port, path: opts.path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${host.port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
const callHeaders = () => ({ authorization: `Bearer ${host.token}`, 'content-type': 'application/json' });

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-host-'));
  const staticDir = path.join(root, 'renderer');
  await fs.mkdir(path.join(staticDir, 'assets'), { recursive: true });
  await fs.writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>Memdir</title>');
  await fs.writeFile(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  await fs.writeFile(path.join(root, 'secret.txt'), 'do not serve');
  ctx = await AppContext.create({ homeFlag: path.join(root, 'home'), dataDir: path.join(root, 'data'), env: {} });
  host = await startHost({ dispatcher: createAppDispatcher(ctx), staticDir, maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await host.close();
  await ctx.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe('headless host', () => {
  it('listens on loopback only and prints a URL with a per-run token', () => {
    expect(host.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/\\?token=[A-Za-z0-9_-]{32}$`));
  });

  it('serves the app with a strict CSP and no CORS, and never files outside it', async () => {
    const page = await request({ path: '/' });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    expect((await request({ path: '/assets/app.js' })).headers['content-type']).toContain('javascript');
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/../../secret.txt']) {
      const r = await request({ path: p });
      expect(r.body, p).not.toContain('do not serve');
    }
  });

  it('answers calls only with the token', async () => {
    const body = JSON.stringify({ name: 'app.info', input: {} });
    expect((await request({ path: '/api/call', method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(401);
    expect(
      (await request({ path: '/api/call', method: 'POST', headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' }, body })).status,
    ).toBe(401);
    const ok = await request({ path: '/api/call', method: 'POST', headers: callHeaders(), body });
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, result: { homeExists: false } });
  });

  it('refuses DNS-rebinding Host names and other origins even with the token', async () => {
    const body = JSON.stringify({ name: 'app.info', input: {} });
    expect((await request({ path: '/api/call', method: 'POST', headers: { ...callHeaders(), host: `evil.example:${host.port}` }, body })).status).toBe(421);
    expect((await request({ path: '/', headers: { host: `attacker.test:${host.port}` } })).status).toBe(421);
    const cross = await request({ path: '/api/call', method: 'POST', headers: { ...callHeaders(), origin: 'https://evil.example' }, body });
    expect(cross.status).toBe(403);
    expect(cross.headers['access-control-allow-origin']).toBeUndefined();
    const same = await request({ path: '/api/call', method: 'POST', headers: { ...callHeaders(), origin: `http://127.0.0.1:${host.port}` }, body });
    expect(same.status).toBe(200);
  });

  it('turns bad payloads into typed errors', async () => {
    const notJson = await request({ path: '/api/call', method: 'POST', headers: callHeaders(), body: '{nope' });
    expect(notJson.status).toBe(400);
    const badInput = await request({
      path: '/api/call',
      method: 'POST',
      headers: callHeaders(),
      body: JSON.stringify({ name: 'projects.get', input: { dir: ['x'] } }),
    });
    expect(JSON.parse(badInput.body)).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    const huge = await request({
      path: '/api/call',
      method: 'POST',
      headers: callHeaders(),
      body: JSON.stringify({ name: 'app.info', input: { pad: 'x'.repeat(100_000) } }),
    });
    expect(huge.status).toBe(413);
  });

  it('streams events to a token holder, from the moment its answer arrives', async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: host.port, path: '/api/events', headers: { host: `127.0.0.1:${host.port}`, authorization: `Bearer ${host.token}` } },
        (res) => {
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buffer += c;
            if (buffer.includes('home-changed')) {
              req.destroy();
              resolve(buffer);
            }
          });
          // The host subscribed before answering: the page reads once the answer is here (live-stream.ts).
          void ctx.setHome(path.join(root, 'other-home'));
        },
      );
      req.on('error', (e) => (e.message.includes('aborted') ? undefined : reject(e)));
      req.end();
    });
    expect(received).toContain(`data: {"type":"home-changed","home":"${path.join(root, 'other-home')}"}`);
  });
});

describe('headless host while the app opens', () => {
  it('serves the page at once and answers a call made meanwhile once the app is open', async () => {
    let open!: (d: ReturnType<typeof createAppDispatcher>) => void;
    const opening = new Promise<ReturnType<typeof createAppDispatcher>>((resolve) => (open = resolve));
    const early = await startHost({ dispatcher: opening, staticDir: path.join(root, 'renderer') });
    const ask = (p: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${early.port}${p}`, init);
    try {
      expect((await ask('/')).status).toBe(200);
      const answered = ask('/api/call', {
        method: 'POST',
        headers: { authorization: `Bearer ${early.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'app.info', input: {} }),
      });
      const first = await Promise.race([answered.then(() => 'answered'), new Promise((r) => setTimeout(() => r('waiting'), 200))]);
      expect(first).toBe('waiting');
      open(createAppDispatcher(ctx));
      expect(await (await answered).json()).toMatchObject({ ok: true, result: { homeExists: false } });
    } finally {
      await early.close();
    }
  });

  it('tells a page asking again on a connection kept alive that it is stopping, and closes that connection', async () => {
    let open!: (d: ReturnType<typeof createAppDispatcher>) => void;
    const opening = new Promise<ReturnType<typeof createAppDispatcher>>((resolve) => (open = resolve));
    const stopping = await startHost({ dispatcher: opening, staticDir: path.join(root, 'renderer') });
    // One connection, kept alive between requests, as a browser keeps it.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    /** app.info on that connection; `received` runs once the host has the request (it said 100 Continue), before the body goes. */
    const ask = (received: () => void = () => undefined) =>
      new Promise<{ res: http.IncomingMessage; body: string; reused: boolean }>((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: '127.0.0.1',
            port: stopping.port,
            path: '/api/call',
            method: 'POST',
            headers: {
              host: `127.0.0.1:${stopping.port}`,
              authorization: `Bearer ${stopping.token}`,
              'content-type': 'application/json',
              expect: '100-continue',
            },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ res, body, reused: req.reusedSocket }));
          },
        );
        req.on('error', reject);
        req.on('continue', () => {
          received();
          req.end(JSON.stringify({ name: 'app.info', input: {} }));
        });
      });
    let closed: Promise<void> | null = null;
    try {
      // A call in flight (the app still opening) as the host is told to stop: it is answered.
      let toldToStop!: () => void;
      const stopAsked = new Promise<void>((resolve) => (toldToStop = resolve));
      const first = ask(() => {
        closed = stopping.close();
        toldToStop();
      });
      await stopAsked;
      open(createAppDispatcher(ctx));
      expect(JSON.parse((await first).body)).toMatchObject({ ok: true });
      // The page asks again on the same connection: it hears why, and the connection closes.
      const second = await ask();
      expect(second.reused).toBe(true);
      expect(second.res.statusCode).toBe(503);
      expect(second.res.headers.connection).toBe('close');
      expect(JSON.parse(second.body)).toEqual({ ok: false, error: { code: 'unavailable', message: 'Memdir is stopping.' } });
      const socket = second.res.socket;
      if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
      await closed;
    } finally {
      agent.destroy();
      open(createAppDispatcher(ctx));
      await (closed ?? stopping.close());
    }
  });

  it('answers in words when the app could not open', async () => {
    const failed = await startHost({ dispatcher: Promise.reject(new Error('the data folder is not writable')), staticDir: path.join(root, 'renderer') });
    try {
      const res = await fetch(`http://127.0.0.1:${failed.port}/api/call`, {
        method: 'POST',
        headers: { authorization: `Bearer ${failed.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'app.info', input: {} }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ ok: false, error: { code: 'internal', message: 'Memdir could not start: the data folder is not writable' } });
    } finally {
      await failed.close();
    }
  });
});
