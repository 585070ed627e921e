/**
 * The app's presence for its data dir: a local socket (a named pipe on Windows) that answers
 * pings from `memdir hooks status` and keeps a second app on the same data dir from draining
 * the hook spool at the same time. Hook events themselves never travel over it: they are
 * spooled first (see hook-spool.ts) and the app that holds this socket takes them from there.
 *
 * Transport: the socket's path is derived from the data dir, so both sides find it without
 * configuration: `<dataDir>/hooks.sock`, or — when that path is too long for a socket address
 * (about 104 bytes) — `<tmpdir>/memdir-<uid>/<hash>.sock` in a folder only the user may enter.
 *
 * Access: besides the file permissions (the socket is made 0600; a folder we create is 0700),
 * every message carries a per-run token the app writes to `<dataDir>/hooks-endpoint.json`
 * (mode 0600); on Windows, where a pipe has no folder around it, the token is the guard.
 *
 * Protocol: one line of JSON each way, then the connection closes.
 *   client → app  {"v":1,"token":"…","ping":true}
 *   app → client  {"ok":true}  or  {"ok":false,"error":"…"}
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { writeDataFile } from '../core/safe-fs.js';

/** The endpoint file in the data dir. */
export const ENDPOINT_FILE = 'hooks-endpoint.json';
/** Socket paths longer than this do not fit `sockaddr_un` on every platform (macOS: 104). */
const MAX_SOCKET_PATH_BYTES = 100;

const endpointSchema = z.object({ version: z.literal(1), socket: z.string(), token: z.string().min(32), pid: z.number().int(), startedAt: z.string() });
type Endpoint = z.infer<typeof endpointSchema>;

const messageSchema = z.object({ v: z.literal(1), token: z.string(), ping: z.literal(true) });
/** Largest message read: a ping is a hundred bytes. */
const MAX_MESSAGE_BYTES = 4096;

/** Where the app listens for hook events of this data dir. */
export function hookSocketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  const hash = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
  if (platform === 'win32') return `\\\\.\\pipe\\memdir-hooks-${hash}`;
  const inDataDir = path.join(path.resolve(dataDir), 'hooks.sock');
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH_BYTES) return inDataDir;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `memdir-${uid}`, `${hash}.sock`);
}

/** The folder of a socket outside the data dir must be ours and closed to others. */
async function prepareSocketFolder(socket: string, dataDir: string): Promise<void> {
  const folder = path.dirname(socket);
  if (folder === path.resolve(dataDir)) {
    await fs.mkdir(folder, { recursive: true });
    return;
  }
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  const stat = await fs.lstat(folder);
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  if (!stat.isDirectory() || (uid !== null && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
    throw new Error(`${folder} is not a private folder of this user; refusing to put Memdir's hook socket there`);
  }
}

async function readEndpoint(dataDir: string): Promise<Endpoint | null> {
  try {
    const parsed = endpointSchema.safeParse(JSON.parse(await fs.readFile(path.join(dataDir, ENDPOINT_FILE), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Send one line and read one line back; rejects on timeout or a closed connection. */
function exchange(socket: string, line: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket);
    let reply = '';
    const timer = setTimeout(() => {
      conn.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(line));
    conn.on('data', (chunk: string) => {
      reply += chunk;
      const end = reply.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        conn.end();
        resolve(reply.slice(0, end));
      }
      if (reply.length > 64 * 1024) conn.destroy(new Error('answer too long'));
    });
    conn.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    conn.on('close', () => {
      clearTimeout(timer);
      reject(new Error('the app closed the connection without answering'));
    });
  });
}

/** Whether an app is listening for this data dir's hook events (a ping with the token). */
export async function isAppListening(dataDir: string, timeoutMs = 800): Promise<boolean> {
  const endpoint = await readEndpoint(dataDir);
  if (!endpoint) return false;
  try {
    const answer = JSON.parse(await exchange(endpoint.socket, `${JSON.stringify({ v: 1, token: endpoint.token, ping: true })}\n`, timeoutMs)) as {
      ok?: unknown;
    };
    return answer.ok === true;
  } catch {
    return false;
  }
}

/** The app's end of the channel. */
export class HookServer {
  private constructor(
    private readonly server: net.Server,
    readonly socket: string,
    private readonly endpointFile: string,
    private readonly token: string,
  ) {}

  /**
   * Listen. When another live Memdir already listens for this data dir, no server is started
   * (`server: null`) and `problem` says so: that app takes the hook events.
   */
  static async start(dataDir: string): Promise<{ server: HookServer | null; problem: string | null; otherApp: boolean }> {
    const socket = hookSocketPath(dataDir);
    if (await isAppListening(dataDir)) {
      return { server: null, problem: 'Another Memdir using the same data folder already receives the hook events.', otherApp: true };
    }
    await prepareSocketFolder(socket, dataDir);
    if (process.platform !== 'win32') {
      const existing = await fs.lstat(socket).catch(() => null);
      if (existing && !existing.isSocket())
        return { server: null, problem: `${socket} exists and is not a socket; remove it so that \`memdir hooks status\` can see this app.`, otherApp: false };
      // A socket file nobody answers on is what a crashed app leaves behind.
      if (existing) await fs.rm(socket, { force: true });
    }
    const token = randomBytes(32).toString('hex');
    const server = net.createServer((conn) => handleConnection(conn, token));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', () => undefined);
    if (process.platform !== 'win32') await fs.chmod(socket, 0o600);
    const endpointFile = path.join(dataDir, ENDPOINT_FILE);
    const endpoint: Endpoint = { version: 1, socket, token, pid: process.pid, startedAt: new Date().toISOString() };
    await writeDataFile(endpointFile, `${JSON.stringify(endpoint, null, 2)}\n`, { mode: 0o600 });
    return { server: new HookServer(server, socket, endpointFile, token), problem: null, otherApp: false };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Only remove the endpoint if it is still ours (another instance may have started since).
    const current = await fs.readFile(this.endpointFile, 'utf8').catch(() => '');
    if (current.includes(this.token)) await fs.rm(this.endpointFile, { force: true });
    if (process.platform !== 'win32') await fs.rm(this.socket, { force: true }).catch(() => undefined);
  }
}

function handleConnection(conn: net.Socket, token: string): void {
  let buffer = '';
  let done = false;
  const answer = (value: { ok: boolean; error?: string }) => {
    if (done) return;
    done = true;
    conn.end(`${JSON.stringify(value)}\n`);
  };
  conn.setEncoding('utf8');
  conn.setTimeout(5000, () => conn.destroy());
  conn.on('error', () => undefined);
  conn.on('data', (chunk: string) => {
    if (done) return;
    buffer += chunk;
    if (Buffer.byteLength(buffer) > MAX_MESSAGE_BYTES) return answer({ ok: false, error: 'message too large' });
    const end = buffer.indexOf('\n');
    if (end < 0) return;
    let raw: unknown;
    try {
      raw = JSON.parse(buffer.slice(0, end));
    } catch {
      return answer({ ok: false, error: 'not JSON' });
    }
    // The token first: a client without it learns nothing about what a valid message looks like.
    const given = (raw as { token?: unknown } | null)?.token;
    if (typeof given !== 'string' || !sameToken(given, token)) return answer({ ok: false, error: 'wrong token' });
    answer(messageSchema.safeParse(raw).success ? { ok: true } : { ok: false, error: 'not a ping' });
  });
}
