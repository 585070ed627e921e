/**
 * A loopback stand-in for Electron's release mirror (GitHub releases or `ELECTRON_MIRROR`), for
 * the launcher's tests: it records every request and answers as told — 404, never, a small fake
 * Electron zip with its `SHASUMS256.txt`, a zip whose checksum is wrong, or a body cut short.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { crc32 } from 'node:zlib';

/** How the mirror answers a request for the Electron zip. */
export type MirrorMode = 'not-found' | 'silent' | 'zip' | 'wrong-checksum' | 'truncated' | 'slow';

/** One file of a zip: its name, content and Unix mode. */
export interface ZipEntry {
  name: string;
  data: Buffer | string;
  mode?: number;
}

/** A zip archive (stored, not deflated) whose entries keep their Unix modes, as Electron's do. */
export function makeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.from(entry.data);
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix: the external attributes hold a mode
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((((entry.mode ?? 0o644) | 0o100000) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * A fake Electron: a shell script that writes each argument it was given, one per line, to the
 * file named by `$FAKE_ELECTRON_ARGV`, then exits.
 */
export const FAKE_ELECTRON_SCRIPT = '#!/bin/sh\nfor arg in "$@"; do printf \'%s\\n\' "$arg"; done > "$FAKE_ELECTRON_ARGV"\n';

/** The zip a mirror serves for `version`: `electron` (the fake) and `version`, like Electron's own. */
export function fakeElectronZip(version: string): Buffer {
  return makeZip([
    { name: 'electron', data: FAKE_ELECTRON_SCRIPT, mode: 0o755 },
    { name: 'version', data: version.replace(/^v/, '') },
  ]);
}

export interface FakeMirror {
  /** The base URL to put in `ELECTRON_MIRROR` (ends with `/`). */
  url: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Start the mirror on 127.0.0.1 (port 0). It serves `<v>/electron-<v>-<platform>-<arch>.zip` and
 * `<v>/SHASUMS256.txt` for any version; everything else is 404.
 */
export async function startFakeMirror(mode: MirrorMode, version: string): Promise<FakeMirror> {
  const zip = fakeElectronZip(version);
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const sha = (buffer: Buffer) => createHash('sha256').update(buffer).digest('hex');
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push(url);
    const file = url.split('/').pop() ?? '';
    if (mode === 'silent') return; // accepts the connection, never answers
    if (mode === 'not-found') {
      res.writeHead(404).end('Not Found');
      return;
    }
    if (file === 'SHASUMS256.txt') {
      const names = ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-x64'].map((p) => `electron-v${version.replace(/^v/, '')}-${p}.zip`);
      const hash = mode === 'wrong-checksum' ? sha(Buffer.from('something else')) : sha(mode === 'truncated' ? zip.subarray(0, 40) : zip);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(names.map((n) => `${hash} *${n}\n`).join(''));
      return;
    }
    if (!/^electron-v[\d.]+-[a-z0-9]+-[a-z0-9]+\.zip$/.test(file)) {
      res.writeHead(404).end('Not Found');
      return;
    }
    if (mode === 'truncated') {
      // A zip cut short whose checksum (above) matches what arrives: the unzip fails.
      res.writeHead(200, { 'content-length': 40 }).end(zip.subarray(0, 40));
      return;
    }
    if (mode === 'slow') {
      // Slow but steady: a twentieth of the zip every 200 ms (4 s for the whole zip, whatever its
      // size), never a long pause.
      res.writeHead(200, { 'content-length': zip.length });
      const step = Math.ceil(zip.length / 20);
      let at = 0;
      const timer = setInterval(() => {
        const next = Math.min(zip.length, at + step);
        res.write(zip.subarray(at, next));
        at = next;
        if (at >= zip.length) {
          clearInterval(timer);
          res.end();
        }
      }, 200);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(200, { 'content-length': zip.length }).end(zip);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A copy of the installed `electron` package (its manifest, `index.js`, `install.js`, checksums)
 * in `root/node_modules/electron`, with its installer's dependencies linked, and no binary: what a
 * fresh `npm install` leaves. The launcher installs into the copy, never into the real package.
 */
export async function copyElectronPackage(root: string): Promise<{ dir: string; version: string }> {
  const require = createRequire(import.meta.url);
  const real = path.dirname(require.resolve('electron/package.json'));
  const dir = path.join(root, 'node_modules', 'electron');
  await fs.mkdir(dir, { recursive: true });
  for (const file of ['package.json', 'index.js', 'install.js', 'checksums.json']) await fs.copyFile(path.join(real, file), path.join(dir, file));
  const fromElectron = createRequire(path.join(real, 'install.js'));
  for (const name of ['@electron/get', '@electron-internal/extract-zip']) {
    let at = path.dirname(fromElectron.resolve(name));
    while (!(await fs.stat(path.join(at, 'package.json')).catch(() => null))) at = path.dirname(at);
    const link = path.join(root, 'node_modules', name);
    await fs.mkdir(path.dirname(link), { recursive: true });
    await fs.symlink(at, link, 'dir');
  }
  const { version } = JSON.parse(await fs.readFile(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  return { dir, version };
}
