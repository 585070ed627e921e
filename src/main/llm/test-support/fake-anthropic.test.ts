import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import { type FakeAnthropic, makeFakeCertificate, startFakeAnthropic } from './fake-anthropic.js';
import { createFakeMemoryStores } from './fake-memory-stores.js';

let fake: FakeAnthropic | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('fake Anthropic server', () => {
  it('answers from a handler of the request, and records every request', async () => {
    fake = await startFakeAnthropic();
    fake.setHandler((request, index) => ({ kind: 'message', text: `#${index} for ${String(request.body?.model)}` }));
    const response = await post(`${fake.url}/v1/messages`, { model: 'm1', max_tokens: 5, messages: [] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { content: { text: string }[]; usage: { input_tokens: number } };
    expect(body.content[0]!.text).toBe('#0 for m1');
    expect(body.usage.input_tokens).toBeGreaterThan(0);
    expect(fake.messageRequests()[0]!.body).toMatchObject({ model: 'm1' });
  });

  it('sends API-shaped errors with retry hints, and 404 for what it does not fake', async () => {
    fake = await startFakeAnthropic({ replies: [{ kind: 'error', status: 529, retryAfterMs: 5 }] });
    const response = await post(`${fake.url}/v1/messages`, {});
    expect(response.status).toBe(529);
    expect(response.headers.get('retry-after-ms')).toBe('5');
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect((await fetch(`${fake.url}/v1/models`)).status).toBe(404);
  });

  it('is scriptable over HTTP (control endpoints) for e2e runs', async () => {
    fake = await startFakeAnthropic();
    await post(`${fake.url}/__fake/replies`, [{ kind: 'message', text: 'scripted' }]);
    const answer = (await (await post(`${fake.url}/v1/messages`, { model: 'x' })).json()) as { content: { text: string }[] };
    expect(answer.content[0]!.text).toBe('scripted');
    const recorded = (await (await fetch(`${fake.url}/__fake/requests`)).json()) as unknown[];
    expect(recorded).toHaveLength(1);
    await post(`${fake.url}/__fake/reset`, {});
    expect(fake.requests).toHaveLength(0);
  });

  it('runs standalone with --port and --script', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-fake-'));
    const script = path.join(dir, 'replies.json');
    await fs.writeFile(script, JSON.stringify({ kind: 'message', text: 'from file' }));
    const entry = fileURLToPath(new URL('./fake-anthropic.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', entry, '--port', '0', '--script', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const answer = (await (await post(`${url}/v1/messages`, { model: 'x' })).json()) as { content: { text: string }[] };
      expect(answer.content[0]!.text).toBe('from file');
    } finally {
      child.kill('SIGTERM');
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("is also an HTTPS proxy for api.anthropic.com, answering other endpoints from `routes` (Claude Code's memory stores)", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-fake-tls-'));
    try {
      const certificate = makeFakeCertificate(dir);
      if ('reason' in certificate) throw new Error(certificate.reason);
      const stores = createFakeMemoryStores();
      stores.provision('/v1/memory_stores/s1');
      stores.put('/v1/memory_stores/s1', '/a.md', 'alpha\n');
      fake = await startFakeAnthropic({ routes: (r) => stores.routes(r), tls: certificate });
      // As a client behind HTTPS_PROXY does: CONNECT, then TLS to the named host over the tunnel.
      const proxy = new URL(fake.proxyUrl!);
      const socket = await new Promise<Socket>((resolve, reject) => {
        const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: 'api.anthropic.com:443' });
        req.on('connect', (res, s) => (res.statusCode === 200 ? resolve(s) : reject(new Error(`CONNECT ${res.statusCode}`))));
        req.on('error', reject);
        req.end();
      });
      const get = (p: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const secure = tls.connect({ socket, servername: 'api.anthropic.com', ca: certificate.cert });
          const req = http.request(
            { createConnection: () => secure, host: 'api.anthropic.com', headers: { host: 'api.anthropic.com' }, path: p, method: 'GET' },
            (res) => {
              let body = '';
              res.setEncoding('utf8').on('data', (d: string) => (body += d));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            },
          );
          req.on('error', reject);
          req.end();
        });
      const listed = await get('/v1/memory_stores/s1/memories?limit=100');
      expect(listed.status).toBe(200);
      expect(JSON.parse(listed.body)).toMatchObject({ data: [{ type: 'memory', path: '/a.md', content_size_bytes: 6 }], next_page: null });
      expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/memory_stores/s1/memories?limit=100', headers: { host: 'api.anthropic.com' } });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
