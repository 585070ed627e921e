/**
 * Electron's binary for `npm start`, found and fetched the way Electron itself does it (issue 12).
 *
 * Electron 45's npm package has no install script: the first `require('electron')` runs its
 * `install.js` (through `spawnSync`), which downloads the zip with `@electron/get` — honouring
 * `ELECTRON_MIRROR` / `npm_config_electron_mirror`, the cache (`electron_config_cache`), the
 * checksum switches — and writes `path.txt` last. Memdir runs that same `install.js`, but as a
 * child it can watch: a download that brings no byte for `stallMs` (30 s) is abandoned, a slow
 * one that keeps moving is not (undici alone would wait 300 s for a silent server). It never
 * requires `electron` itself: that would block on `spawnSync`, print a stack trace and replace
 * the installer's real error by a generic one.
 *
 * Plain Node: nothing here imports `electron`.
 */
import { failureWords } from '../../shared/failure-words.js';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** The installed `electron` npm package. */
export interface ElectronPackage {
  /** Its folder (`…/node_modules/electron`). */
  dir: string;
  version: string;
}

/** Where Electron's binary is, or why there is none. */
export type ElectronLocation =
  | { state: 'present'; path: string; source: 'package' | 'override' }
  | { state: 'missing'; path: string | null; source: 'package' | 'override'; reason: string; damaged?: true };

/**
 * What an install attempt came to. `interrupted`: stopped by `signal` (Ctrl-C at the terminal)
 * while `downloading`, or while `waiting` for another launcher's download, which carries on.
 */
export type InstallResult =
  /** `byOther`: another launcher installed it while this one waited (bytes: 0, nothing downloaded here). */
  { ok: true; path: string; bytes: number; byOther?: true } | { ok: false; error: string; interrupted?: 'waiting' | 'downloading' };

/** How long a download may bring no byte before it is abandoned. */
export const DEFAULT_STALL_MS = 30_000;

/** The `electron` package as this file resolves it, or null when it is not installed. */
export function findElectronPackage(from: string = import.meta.url): ElectronPackage | null {
  try {
    const manifest = createRequire(from).resolve('electron/package.json');
    const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
    return { dir: path.dirname(manifest), version };
  } catch {
    return null;
  }
}

/**
 * Electron's own rule (its `index.js`): `ELECTRON_OVERRIDE_DIST_PATH` wins and is
 * `<dir>/<path.txt or 'electron'>` (never downloaded into); otherwise `dist/<path.txt>`, and no
 * `path.txt` means the binary was never installed — `path.txt` is written last, after the unzip.
 */
export function locateElectron(pkg: ElectronPackage, env: NodeJS.ProcessEnv): ElectronLocation {
  let executable: string | null;
  try {
    executable = fs.readFileSync(path.join(pkg.dir, 'path.txt'), 'utf8');
  } catch {
    executable = null;
  }
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const binary = path.join(override, executable || 'electron');
    if (!fs.existsSync(binary))
      return {
        state: 'missing',
        path: binary,
        source: 'override',
        reason: `ELECTRON_OVERRIDE_DIST_PATH points at ${override}, which holds no ${executable || 'electron'}`,
      };
    const damage = binaryDamage(binary);
    return damage
      ? {
          state: 'missing',
          path: binary,
          source: 'override',
          reason: `ELECTRON_OVERRIDE_DIST_PATH points at ${binary}, which is damaged (${damage})`,
          damaged: true,
        }
      : { state: 'present', path: binary, source: 'override' };
  }
  if (!executable) return { state: 'missing', path: null, source: 'package', reason: `Electron ${pkg.version}'s binary has not been downloaded yet` };
  const binary = path.join(pkg.dir, 'dist', executable);
  if (!fs.existsSync(binary)) return { state: 'missing', path: binary, source: 'package', reason: `Electron's binary is missing at ${binary}` };
  const damage = binaryDamage(binary);
  return damage
    ? { state: 'missing', path: binary, source: 'package', reason: `Electron's binary at ${binary} is damaged (${damage})`, damaged: true }
    : { state: 'present', path: binary, source: 'package' };
}

/**
 * Why the executable `file` cannot be whole, or null when nothing shows it is not: an empty file
 * (a shell would run it as an empty script and "succeed"), or an ELF file shorter than its own
 * headers say — every segment and the section table lie within the file, so a binary cut short
 * (a disk filled during the unzip, a copy stopped half-way) is caught before it is started
 * (the kernel would map it and it would crash at once). Other formats are taken as they are.
 */
export function binaryDamage(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    return `it cannot be read: ${failureWords(error as NodeJS.ErrnoException)}`;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return 'it is empty';
    const head = Buffer.alloc(64);
    const read = fs.readSync(fd, head, 0, 64, 0);
    if (read < 4 || head.readUInt32BE(0) !== 0x7f454c46) return null;
    const is64 = head[4] === 2;
    const le = head[5] !== 2;
    if (read < (is64 ? 64 : 52)) return 'it is cut short';
    const u16 = (b: Buffer, at: number) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at));
    const u32 = (b: Buffer, at: number) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at));
    const word = (b: Buffer, at: number) => (is64 ? Number(le ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)) : u32(b, at));
    const phoff = word(head, is64 ? 0x20 : 0x1c);
    const shoff = word(head, is64 ? 0x28 : 0x20);
    const phentsize = u16(head, is64 ? 0x36 : 0x2a);
    const phnum = u16(head, is64 ? 0x38 : 0x2c);
    const shentsize = u16(head, is64 ? 0x3a : 0x2e);
    const shnum = u16(head, is64 ? 0x3c : 0x30);
    let needed = Math.max(phoff + phnum * phentsize, shnum > 0 ? shoff + shnum * shentsize : 0);
    if (needed <= size && phnum > 0) {
      const table = Buffer.alloc(phnum * phentsize);
      fs.readSync(fd, table, 0, table.length, phoff);
      for (let i = 0; i < phnum; i++) {
        const at = i * phentsize;
        // p_offset and p_filesz: the bytes of the segment the file must hold.
        const offset = word(table, at + (is64 ? 0x08 : 0x04));
        const filesz = word(table, at + (is64 ? 0x20 : 0x10));
        needed = Math.max(needed, offset + filesz);
      }
    }
    return needed > size ? `it is cut short: ${size} bytes of at least ${needed}` : null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes in the regular files under `dir` (0 when it does not exist). */
function bytesUnder(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return 0;
  }
  for (const name of names) {
    try {
      const stat = fs.lstatSync(path.join(dir, name));
      if (stat.isFile()) total += stat.size;
    } catch {
      // Moved or removed between the listing and the stat: the next poll sees it.
    }
  }
  return total;
}

/**
 * The installer's error as one line: `install.js` prints the error's stack — its message, then
 * `    at …` frames. The message is kept as it was, the frames dropped, a bare `Error: ` trimmed.
 */
export function installerErrorLine(output: string): string | null {
  const header = output.split(/\n\s+at /)[0] ?? '';
  const line = header
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^Error: /, '')
    // The preload's cause, in words (never the code): "the download failed: nothing is listening there …".
    .replace(
      /(?:TypeError: )?fetch failed \[cause ([^\]]*)\]/,
      (_, detail: string) => `the download failed: ${failureWords(/^[A-Z][A-Z0-9_]+$/.test(detail) ? { code: detail } : { message: detail })}`,
    );
  return line === '' ? null : line;
}

export interface InstallOptions {
  pkg: ElectronPackage;
  /** The environment the installer sees (mirror, cache, proxies): the user's, unchanged. */
  env: NodeJS.ProcessEnv;
  /** No byte for this long and the download is abandoned (default 30 s). */
  stallMs?: number;
  /** Called whenever more bytes arrived (downloaded, then unzipped). */
  onProgress?: (bytes: number) => void;
  /** Stops the install (the launcher's Ctrl-C): the installer is ended and nothing of it is kept. */
  signal?: AbortSignal;
  /** Another launcher (a second `npm start` at once) is filling `dist/`: this one waits for it to end. */
  onWaiting?: () => void;
  /** This launcher starts downloading (no other is filling `dist/`, or the one it waited for left no Electron). */
  onDownloading?: () => void;
}

/** Our download folders in the temp folder: `<prefix><pid of the launcher>-<random>`. */
const TEMP_PREFIX = 'memdir-electron-download-';
/**
 * A launcher about to fill `dist/` says so in the package's folder: `<prefix><its pid>`, holding
 * the time it claimed it. The earliest live claim fills; a later one waits for it to end.
 */
const FILLING_PREFIX = '.memdir-filling-dist-';
/**
 * A filling launcher renews its claim (the file's time) this often; a claim not renewed for
 * CLAIM_STALE_MS was left by a launcher killed outright whose pid another process now has.
 */
const CLAIM_RENEW_MS = 2_000;
const CLAIM_STALE_MS = 30_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The one rule for what a launcher leaves (a temp folder, a claim on `dist/`): named
 * `<prefix><pid>…`, it is another running launcher's (`live`, left alone) or one that was killed
 * outright (`dead`, swept); `null` for a name that is not one of ours, or this launcher's own.
 */
function leftBy(name: string, prefix: string): 'live' | 'dead' | null {
  if (!name.startsWith(prefix)) return null;
  const pid = Number(/^(\d+)(?:-|$)/.exec(name.slice(prefix.length))?.[1]);
  if (!Number.isInteger(pid) || pid === process.pid) return null;
  return isAlive(pid) ? 'live' : 'dead';
}

/** When a launcher claimed `dist/`, and its pid: earlier claims fill first (the pid decides a tie). */
function claimOf(file: string, pid: number): [number, number] {
  let at: number;
  try {
    // A claim whose time is not written yet is being made now.
    at = Number(fs.readFileSync(file, 'utf8')) || Date.now();
  } catch {
    at = Number.POSITIVE_INFINITY;
  }
  return [at, pid];
}

/** The claims on `dist/` in the package's folder, this launcher's included. */
function claimNames(pkg: ElectronPackage): string[] {
  try {
    return fs.readdirSync(pkg.dir).filter((name) => name.startsWith(FILLING_PREFIX));
  } catch {
    return [];
  }
}

/**
 * Who left a claim on `dist/` (leftBy's rule): a claim whose launcher stopped renewing it is
 * dead even if its pid is alive (a killed launcher's pid, reused by another process).
 */
function claimLeftBy(pkg: ElectronPackage, name: string): 'live' | 'dead' | null {
  const by = leftBy(name, FILLING_PREFIX);
  if (by !== 'live') return by;
  const renewed = fs.statSync(path.join(pkg.dir, name), { throwIfNoEntry: false })?.mtimeMs;
  return renewed !== undefined && Date.now() - renewed > CLAIM_STALE_MS ? 'dead' : 'live';
}

/** Whether another running launcher claimed `dist/` before this one did (at `since`): it is filling it. */
function anotherFilling(pkg: ElectronPackage, since: number): boolean {
  return claimNames(pkg).some((name) => {
    if (claimLeftBy(pkg, name) !== 'live') return false;
    const [at, pid] = claimOf(path.join(pkg.dir, name), Number(name.slice(FILLING_PREFIX.length)));
    return at < since || (at === since && pid < process.pid);
  });
}

/**
 * Wait while another launcher fills `dist/` (two first starts at once): two installers unzipping
 * into one folder, or one sweeping the other's half-done unzip, would leave neither an Electron.
 * Ends when it ended (its claim gone, or its process), or when this one is stopped (Ctrl-C): false.
 */
async function waitForOtherFiller(pkg: ElectronPackage, since: number, options: InstallOptions): Promise<boolean> {
  if (!anotherFilling(pkg, since)) return true;
  options.onWaiting?.();
  while (anotherFilling(pkg, since)) {
    if (options.signal?.aborted) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return !options.signal?.aborted;
}

/**
 * What an earlier download left when its launcher was killed outright (SIGKILL, a closed
 * terminal, a power cut) and could not clean up: its temp folder (a part of the zip), its claim,
 * and a `dist/` without `path.txt` (a half-done unzip, never an install: `path.txt` is written
 * last). Removed before the next download, so it starts clean and nothing is left behind. What a
 * launcher still running (another `npm start`) has is left alone: its temp folder, and the
 * `dist/` it is filling.
 */
function removeLeftovers(pkg: ElectronPackage, tmp: string, since: number): void {
  let names: string[] = [];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    // No temp folder to sweep: mkdtemp below says what is wrong with it.
  }
  for (const name of names) if (leftBy(name, TEMP_PREFIX) === 'dead') fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
  for (const name of claimNames(pkg)) if (claimLeftBy(pkg, name) === 'dead') fs.rmSync(path.join(pkg.dir, name), { force: true });
  if (!fs.existsSync(path.join(pkg.dir, 'path.txt')) && !anotherFilling(pkg, since)) fs.rmSync(path.join(pkg.dir, 'dist'), { recursive: true, force: true });
}

/**
 * Loaded (`node --import`) before `install.js`. Node's `fetch` reports every network failure as
 * "fetch failed", the reason (DNS, refused, reset, TLS) only in `cause`, which `install.js` does
 * not print: this adds the cause to the message (`[cause ECONNREFUSED]`), which
 * {@link installerErrorLine} words, so the one line the user sees says what really went wrong.
 * Nothing else changes. A data: URL, so it needs no file beside the build.
 */
const FETCH_CAUSE_PRELOAD = `const original = globalThis.fetch;
globalThis.fetch = async (...args) => {
  try {
    return await original(...args);
  } catch (error) {
    const cause = error && error.cause;
    const inner = cause && Array.isArray(cause.errors) && cause.errors[0] ? cause.errors[0] : cause;
    const code = inner && typeof inner.code === 'string' ? inner.code : null;
    const detail = code ?? (cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : null);
    if (error instanceof Error && detail) throw new TypeError('fetch failed [cause ' + detail + ']', { cause });
    throw error;
  }
};`;
const PRELOAD = `data:text/javascript,${encodeURIComponent(FETCH_CAUSE_PRELOAD)}`;

function stop(child: ChildProcess): void {
  child.kill('SIGTERM');
  setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), 2_000).unref();
}

/**
 * Run Electron's `install.js` (the very script its `index.js` runs on first use) as a child and
 * watch it. Progress is measured on disk: the child's temp folder (where `@electron/get` streams
 * the zip) and `dist/` (where it is unzipped). A failed or abandoned install leaves no half-filled
 * `dist/` behind, so the next try starts clean (a zip that failed its checksum is never cached).
 * A second `npm start` at once waits for the first to fill `dist/`, then starts what it installed.
 */
export async function installElectron(options: InstallOptions): Promise<InstallResult> {
  const { pkg, env } = options;
  // This launcher's claim on dist/: another `npm start` at once waits for it, and sweeps nothing of it.
  const claim = path.join(pkg.dir, `${FILLING_PREFIX}${process.pid}`);
  const since = Date.now();
  try {
    fs.writeFileSync(claim, String(since));
  } catch {
    // A package folder this user cannot write: the installer says so in its own words, below.
  }
  // Renewed while this launcher waits and fills: a claim left unrenewed is a killed launcher's.
  const renew = setInterval(() => {
    const now = new Date();
    fs.utimes(claim, now, now, () => undefined);
  }, CLAIM_RENEW_MS);
  try {
    if (!(await waitForOtherFiller(pkg, since, options))) return { ok: false, error: 'stopped while waiting for another download', interrupted: 'waiting' };
    // The other launcher installed it meanwhile.
    const found = locateElectron(pkg, env);
    if (found.state === 'present') return { ok: true, path: found.path, bytes: 0, byOther: true };
    options.onDownloading?.();
    return await runInstaller(options, since);
  } finally {
    clearInterval(renew);
    fs.rmSync(claim, { force: true });
  }
}

/** Electron's installer, run and watched by this launcher, which has `dist/` to itself (claimed at `since`). */
async function runInstaller(options: InstallOptions, since: number): Promise<InstallResult> {
  const { pkg, env } = options;
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  removeLeftovers(pkg, os.tmpdir(), since);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  const dist = path.join(pkg.dir, 'dist');
  // @electron/get downloads into os.tmpdir(): point it at a folder of ours, to measure and clean it.
  const child = spawn(process.execPath, ['--import', PRELOAD, path.join(pkg.dir, 'install.js')], {
    env: { ...env, TMPDIR: temp, TMP: temp, TEMP: temp },
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    if (output.length < 64 * 1024) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let bytes = 0;
  let lastChange = Date.now();
  let stalled = false;
  // The stall clock starts at the request: @electron/get makes its download folder in our temp
  // folder right before it asks. Until then (the child starting, slow on a loaded machine) it
  // gets the real window at least, so a short test window never abandons an installer not yet asking.
  let requested = false;
  const startupMs = Math.max(stallMs, DEFAULT_STALL_MS);
  const poll = setInterval(
    () => {
      if (!requested && fs.readdirSync(temp).length > 0) {
        requested = true;
        lastChange = Date.now();
      }
      const now = bytesUnder(temp) + bytesUnder(dist);
      if (now !== bytes) {
        bytes = now;
        lastChange = Date.now();
        options.onProgress?.(bytes);
      } else if (Date.now() - lastChange >= (requested ? stallMs : startupMs) && !stalled) {
        stalled = true;
        stop(child);
      }
    },
    Math.max(50, Math.min(1_000, Math.floor(stallMs / 4))),
  );
  let interrupted = false;
  const interrupt = (): void => {
    interrupted = true;
    stop(child);
  };
  if (options.signal?.aborted) interrupt();
  options.signal?.addEventListener('abort', interrupt, { once: true });
  const code = await new Promise<number | null>((resolve) => {
    child.on('error', (error) => {
      output += `${error.message}\n`;
      resolve(null);
    });
    child.on('close', (exitCode, signal) => {
      // Ctrl-C at the terminal reaches the installer too (one process group): it may end first.
      if (!stalled && (signal === 'SIGINT' || signal === 'SIGTERM')) interrupted = true;
      resolve(exitCode);
    });
  });
  clearInterval(poll);
  options.signal?.removeEventListener('abort', interrupt);
  fs.rmSync(temp, { recursive: true, force: true });

  const found = locateElectron(pkg, env);
  if (!stalled && !interrupted && code === 0 && found.state === 'present') return { ok: true, path: found.path, bytes };
  // Whatever was unzipped before the failure is of no use, and must not pass for an install.
  if (found.state !== 'present' && !anotherFilling(pkg, since)) fs.rmSync(dist, { recursive: true, force: true });
  if (interrupted) return { ok: false, error: 'the download was interrupted', interrupted: 'downloading' };
  if (stalled) return { ok: false, error: `the download stalled (no data for ${Math.round(stallMs / 1000)} s) and was abandoned` };
  if (code === 0) return { ok: false, error: `the installer finished but left no binary (${found.state === 'missing' ? found.reason : found.path})` };
  return { ok: false, error: installerErrorLine(output) ?? `the installer exited with code ${code ?? 'unknown'}` };
}
