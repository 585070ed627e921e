/**
 * `npm start` as a new user meets it: a fresh install has Electron's package but not its binary.
 * Real processes throughout — Electron's own install.js (on a copy of the package), a loopback
 * mirror that records requests, a fake Electron (a script recording its argv), the real host.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serve } from './host/serve-app.js';
import { type ElectronPackage } from './electron-binary.js';
import { type LaunchOutcome, type LauncherOptions, nodeVersionProblem, runLauncher } from './launch.js';
import { FAKE_ELECTRON_SCRIPT, type FakeMirror, type MirrorMode, copyElectronPackage, startFakeMirror } from './test-support/fake-electron-mirror.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const MANIFEST = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { main: string; engines: { node: string } };
const APP_MAIN = path.join(REPO, MANIFEST.main);
const unix = process.platform !== 'win32';

let root: string;
let pkg: ElectronPackage;
let mirror: FakeMirror | null;
let outcome: LaunchOutcome | null;
let argvFile: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-launch-'));
  pkg = await copyElectronPackage(root);
  argvFile = path.join(root, 'argv.txt');
  mirror = null;
  outcome = null;
});

afterEach(async () => {
  if (outcome?.kind === 'host') await outcome.host.close();
  if (outcome?.kind === 'electron' && outcome.child.exitCode === null) outcome.child.kill();
  await mirror?.close();
  await fs.rm(root, { recursive: true, force: true });
});

/** The environment of a user pointing Electron at `mirror` (the test's own cache, never theirs). */
function envFor(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { MEMDIR_HEADLESS: _headless, ELECTRON_OVERRIDE_DIST_PATH: _override, ELECTRON_MIRROR: _mirror, ...inherited } = process.env;
  return {
    ...inherited,
    // A desktop session (this machine may have none: see 'npm start on a machine without a display').
    DISPLAY: ':0',
    electron_config_cache: path.join(root, 'electron-cache'),
    FAKE_ELECTRON_ARGV: argvFile,
    ...(mirror ? { ELECTRON_MIRROR: mirror.url } : {}),
    ...extra,
  };
}

async function launch(env: NodeJS.ProcessEnv, extra: Partial<LauncherOptions> = {}): Promise<{ outcome: LaunchOutcome; text: string }> {
  let text = '';
  const args = ['--home', path.join(root, 'home'), '--data-dir', path.join(root, 'data'), '--port', '0'];
  outcome = await runLauncher({
    args,
    env,
    write: (t) => (text += t),
    tty: false,
    electronPackage: pkg,
    startHost: (a) => serve(a, () => undefined),
    ...extra,
  });
  return { outcome, text };
}

/** The argv the fake Electron was started with, once it has exited. */
async function electronArgv(result: LaunchOutcome): Promise<string[]> {
  if (result.kind !== 'electron') throw new Error(`expected Electron, got ${result.kind === 'host' ? `the host: ${result.reason}` : 'stopped'}`);
  await new Promise((resolve) => (result.child.exitCode === null ? result.child.once('close', resolve) : resolve(null)));
  return readFileSync(argvFile, 'utf8').split('\n').filter(Boolean);
}

/** The host answers on its URL (the page with its token). */
async function expectHostServing(result: LaunchOutcome): Promise<void> {
  if (result.kind !== 'host') throw new Error('expected the headless host');
  expect((await fetch(result.host.url)).status).toBe(200);
}

async function withMirror(mode: MirrorMode): Promise<FakeMirror> {
  mirror = await startFakeMirror(mode, pkg.version);
  return mirror;
}

const zipPath = () => `/v${pkg.version}/electron-v${pkg.version}-${process.platform}-${process.arch}.zip`;

describe.runIf(unix)('npm start without Electronʼs binary', () => {
  it('downloads it through the configured mirror with Electronʼs own installer, then starts it with the appʼs main', async () => {
    const m = await withMirror('zip');
    const { outcome: result, text } = await launch(envFor({ electron_use_remote_checksums: '1' }));
    expect(await electronArgv(result)).toEqual([APP_MAIN, '--home', path.join(root, 'home'), '--data-dir', path.join(root, 'data'), '--port', '0']);
    expect(m.requests).toEqual([zipPath(), `/v${pkg.version}/SHASUMS256.txt`]);
    expect(text).toContain(`Downloading Electron ${pkg.version}`);
    expect(text).toMatch(new RegExp(`Electron ${pkg.version.replace(/\./g, '\\.')} installed \\(`));
    expect(readFileSync(path.join(pkg.dir, 'path.txt'), 'utf8')).toBe('electron');
  });

  it('reports a mirrorʼs 404 as the installer said it, in one line, and starts the host', async () => {
    const m = await withMirror('not-found');
    const { outcome: result, text } = await launch(envFor());
    expect(m.requests).toEqual([zipPath()]);
    const lines = text.trim().split('\n');
    expect(lines.at(-2)).toBe(
      `Starting the headless host instead of the desktop app: Electron ${pkg.version} could not be installed: HTTPError: Response code 404 (Not Found) for ${m.url.slice(0, -1)}${zipPath()}.`,
    );
    expect(text).not.toMatch(/\n\s+at /);
    await expectHostServing(result);
    expect(existsSync(path.join(pkg.dir, 'dist'))).toBe(false);
  });

  it('names the network failure, not just "fetch failed"', async () => {
    // A port nothing listens on: refused at once (what a DNS failure is to a real mirror).
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { outcome: result, text } = await launch(envFor({ ELECTRON_MIRROR: `http://127.0.0.1:${port}/` }));
    expect(text).toContain('could not be installed: the download failed: nothing is listening there (the connection was refused).');
    expect(text).not.toMatch(/ECONNREFUSED|fetch failed/);
    // A new user is told what to do about it, not only why (the host's link follows).
    expect(text).toContain(
      `To get the desktop app, check the connection (or set ELECTRON_MIRROR to a mirror you can reach) and run npm start again; meanwhile open Memdir's link below in a browser.`,
    );
    await expectHostServing(result);
  });

  it('abandons a download that brings no byte for the stall window, counted from its request, and starts the host', async () => {
    const m = await withMirror('silent');
    // An installer slow to start (a loaded machine) is not abandoned before it asks (review x4 F6).
    const slow = path.join(root, 'slow-start.cjs');
    await fs.writeFile(slow, 'const end = Date.now() + 2500; while (Date.now() < end);\n');
    const started = Date.now();
    const { outcome: result, text } = await launch(envFor({ NODE_OPTIONS: `--require ${slow}` }), { stallMs: 1_500 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(m.requests).toEqual([zipPath()]);
    expect(text).toContain('could not be installed: the download stalled (no data for 2 s) and was abandoned.');
    await expectHostServing(result);
  });

  it('keeps a slow download that keeps moving, however long it takes past the stall window', async () => {
    await withMirror('slow');
    const started = Date.now();
    // The mirror sends the zip in twenty pieces 200 ms apart: 4 s, past the 3 s stall window. The
    // window is fifteen gaps wide: a machine so loaded that this test's own process stands still
    // for a second (the mirror's next piece and the stall check then come due together) does not
    // turn a steady download into a stalled one.
    const { outcome: result } = await launch(envFor({ electron_use_remote_checksums: '1' }), { stallMs: 3_000 });
    expect(Date.now() - started).toBeGreaterThan(3_600);
    expect((await electronArgv(result))[0]).toBe(APP_MAIN);
  });

  it('refuses a zip whose checksum is wrong, names it, leaves nothing behind', async () => {
    await withMirror('wrong-checksum');
    const { outcome: result, text } = await launch(envFor({ electron_use_remote_checksums: '1' }));
    expect(text).toContain(
      `could not be installed: Generated checksum for "electron-v${pkg.version}-${process.platform}-${process.arch}.zip" did not match expected checksum.`,
    );
    await expectHostServing(result);
    expect(existsSync(path.join(pkg.dir, 'dist'))).toBe(false);
    expect(existsSync(path.join(pkg.dir, 'path.txt'))).toBe(false);
  });

  it('reports a truncated zip, and the next start with a good mirror installs normally', async () => {
    const bad = await withMirror('truncated');
    const first = await launch(envFor({ electron_use_remote_checksums: '1' }));
    expect(first.text).toMatch(/could not be installed: failed to read archive .*electron-v[\d.]+-[a-z0-9]+-[a-z0-9]+\.zip.*: invalid Zip archive/);
    await expectHostServing(first.outcome);
    expect(existsSync(path.join(pkg.dir, 'dist'))).toBe(false);
    if (first.outcome.kind === 'host') await first.outcome.host.close();
    outcome = null;
    await bad.close();

    await withMirror('zip');
    const second = await launch(envFor({ electron_use_remote_checksums: '1' }));
    expect((await electronArgv(second.outcome))[0]).toBe(APP_MAIN);
  });
});

describe.runIf(unix)('npm start stopped during Electronʼs download', () => {
  const DRIVER = path.join(import.meta.dirname, 'test-support', 'launch-driver.ts');

  /** What is in the temp folder `tmp`, but tsxʼs compile cache (the test driverʼs, not the launcherʼs). */
  const leftIn = (tmp: string): string[] => readdirSync(tmp).filter((name) => !name.startsWith('tsx-'));

  /** Bytes of the zip being downloaded into the launcherʼs temp folder `tmp`. */
  function downloadedBytes(tmp: string): number {
    let total = 0;
    for (const name of readdirSync(tmp, { recursive: true, encoding: 'utf8' })) {
      const stat = statSync(path.join(tmp, name), { throwIfNoEntry: false });
      if (stat?.isFile() && name.endsWith('.zip')) total += stat.size;
    }
    return total;
  }

  /** The launcher as its own process group (a terminalʼs job), its temp folder `tmp`, signalled once the zip is arriving. */
  async function launchAndSignal(tmp: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
    await fs.mkdir(tmp, { recursive: true });
    const child = spawn(process.execPath, ['--import', 'tsx', DRIVER, pkg.dir, pkg.version], {
      cwd: REPO,
      env: envFor({ electron_use_remote_checksums: '1', TMPDIR: tmp }),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, sig) => resolve({ code, signal: sig })),
    );
    await expect.poll(() => downloadedBytes(tmp), { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);
    // Ctrl-C: the terminal signals the whole foreground group — the launcher and Electronʼs installer.
    process.kill(-child.pid!, signal);
    return { ...(await closed), out };
  }

  /** A start in this process with `tmp` as its temp folder (os.tmpdir() reads TMPDIR on each call). */
  async function launchWithTmp(tmp: string): Promise<{ outcome: LaunchOutcome; text: string }> {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      return await launch(envFor({ electron_use_remote_checksums: '1' }));
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  }

  it('Ctrl-C stops it, leaves no temp zip and no half-unzipped dist/, and the next start installs normally', async () => {
    await withMirror('slow');
    const tmp = path.join(root, 'tmp');
    const stopped = await launchAndSignal(tmp, 'SIGINT');
    expect(stopped.out).toContain("Stopped: Electron's download was interrupted and nothing of it was kept");
    expect(stopped.code).toBe(130);
    expect(leftIn(tmp)).toEqual([]);
    expect(existsSync(path.join(pkg.dir, 'dist'))).toBe(false);
    expect(existsSync(path.join(pkg.dir, 'path.txt'))).toBe(false);
    await mirror!.close();

    await withMirror('zip');
    const next = await launchWithTmp(tmp);
    expect((await electronArgv(next.outcome))[0]).toBe(APP_MAIN);
    expect(leftIn(tmp)).toEqual([]);
  });

  it('after a launcher killed outright mid-download, the next start sweeps what it left and installs normally', async () => {
    await withMirror('slow');
    const tmp = path.join(root, 'tmp');
    const killed = await launchAndSignal(tmp, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    // What SIGKILL leaves: the temp folder with part of the zip, and a dist/ half unzipped.
    expect(leftIn(tmp)).not.toEqual([]);
    // …and its claim on dist/ (a running launcher's would make the next one wait).
    expect(readdirSync(pkg.dir).filter((name) => name.startsWith('.memdir-filling-dist-'))).toHaveLength(1);
    await fs.mkdir(path.join(pkg.dir, 'dist'), { recursive: true });
    await fs.writeFile(path.join(pkg.dir, 'dist', 'LICENSES.chromium.html'), 'half');
    await mirror!.close();

    await withMirror('zip');
    const next = await launchWithTmp(tmp);
    expect((await electronArgv(next.outcome))[0]).toBe(APP_MAIN);
    expect(leftIn(tmp)).toEqual([]);
    expect(readdirSync(path.join(pkg.dir, 'dist')).sort()).toEqual(['electron', 'version']);
    expect(readdirSync(pkg.dir).filter((name) => name.startsWith('.memdir-'))).toEqual([]);
  });
});

describe.runIf(unix)('two first starts at once', () => {
  const DRIVER = path.join(import.meta.dirname, 'test-support', 'launch-driver.ts');

  it('the second waits for the first to fill dist/ (never sweeping it half-done), and both start the Electron it installed', async () => {
    const m = await withMirror('slow');
    // The first installer has unzipped and is about to write path.txt (written last): held there
    // for 2 s, the moment a second `npm start` begins. Its download would take 4 s.
    const hold = path.join(root, 'hold-path-txt.cjs');
    await fs.writeFile(
      hold,
      `const fs = require('fs');
const write = fs.promises.writeFile;
fs.promises.writeFile = async function (file, ...rest) {
  if (String(file).endsWith('path.txt')) await new Promise((resolve) => setTimeout(resolve, 2000));
  return write.call(this, file, ...rest);
};
`,
    );
    const firstArgv = path.join(root, 'first-argv.txt');
    const first = spawn(process.execPath, ['--import', 'tsx', DRIVER, pkg.dir, pkg.version], {
      cwd: REPO,
      env: envFor({ electron_use_remote_checksums: '1', NODE_OPTIONS: `--require ${hold}`, FAKE_ELECTRON_ARGV: firstArgv }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    first.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    first.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const firstClosed = new Promise<number | null>((resolve) => first.on('close', (code) => resolve(code)));
    const unzipped = () => existsSync(path.join(pkg.dir, 'dist', 'electron')) && !existsSync(path.join(pkg.dir, 'path.txt'));
    await expect.poll(unzipped, { timeout: 30_000, interval: 20 }).toBe(true);
    const unzippedFile = statSync(path.join(pkg.dir, 'dist', 'electron')).ino;

    // The second has a cache of its own: it would download again (4 s), not unzip the first's zip at once.
    const second = await launch(envFor({ electron_use_remote_checksums: '1', electron_config_cache: path.join(root, 'second-cache') }));
    // Only the true lines: it downloaded nothing and installed nothing itself (s40).
    expect(second.text).toBe(`Another npm start is downloading it: waiting for that one to finish.\nThe other npm start installed Electron ${pkg.version}.\n`);
    expect((await electronArgv(second.outcome))[0]).toBe(APP_MAIN);
    expect(await firstClosed, out).toBe(0);
    expect(out).toContain('outcome: electron');
    expect(readFileSync(firstArgv, 'utf8').split('\n')[0]).toBe(APP_MAIN);
    // One download, one unzip: the second started what the first installed.
    expect(m.requests.filter((r) => r.endsWith('.zip'))).toEqual([zipPath()]);
    expect(statSync(path.join(pkg.dir, 'dist', 'electron')).ino).toBe(unzippedFile);
    expect(readdirSync(pkg.dir).filter((name) => name.startsWith('.memdir-'))).toEqual([]);
  });

  it('Ctrl-C on the second while it waits says it downloaded nothing and the first carries on; the first still installs and starts', async () => {
    await withMirror('slow');
    const firstArgv = path.join(root, 'first-argv.txt');
    const first = spawn(process.execPath, ['--import', 'tsx', DRIVER, pkg.dir, pkg.version], {
      cwd: REPO,
      env: envFor({ electron_use_remote_checksums: '1', FAKE_ELECTRON_ARGV: firstArgv }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let firstOut = '';
    first.stdout.on('data', (chunk: Buffer) => (firstOut += chunk.toString()));
    first.stderr.on('data', (chunk: Buffer) => (firstOut += chunk.toString()));
    const firstClosed = new Promise<number | null>((resolve) => first.on('close', (code) => resolve(code)));
    await expect.poll(() => readdirSync(pkg.dir).some((name) => name.startsWith('.memdir-filling-dist-')), { timeout: 30_000, interval: 20 }).toBe(true);

    // The second, in a terminal of its own (its own process group), with a cache of its own.
    const second = spawn(process.execPath, ['--import', 'tsx', DRIVER, pkg.dir, pkg.version], {
      cwd: REPO,
      env: envFor({ electron_use_remote_checksums: '1', electron_config_cache: path.join(root, 'second-cache') }),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let secondOut = '';
    second.stdout.on('data', (chunk: Buffer) => (secondOut += chunk.toString()));
    second.stderr.on('data', (chunk: Buffer) => (secondOut += chunk.toString()));
    const secondClosed = new Promise<number | null>((resolve) => second.on('close', (code) => resolve(code)));
    await expect.poll(() => secondOut, { timeout: 30_000, interval: 20 }).toContain('waiting for that one to finish');
    process.kill(-second.pid!, 'SIGINT');

    expect(await secondClosed, secondOut).toBe(130);
    // It downloaded nothing: "nothing of it was kept" would say its download was thrown away.
    expect(secondOut).not.toContain('nothing of it was kept');
    expect(secondOut).toContain(
      'Stopped while waiting for the other npm start to download Electron; this one downloaded nothing. That download carries on in its own terminal: once it is done, npm start opens Memdir without downloading it again.',
    );
    expect(await firstClosed, firstOut).toBe(0);
    expect(firstOut).toContain('outcome: electron');
    expect(readFileSync(firstArgv, 'utf8').split('\n')[0]).toBe(APP_MAIN);
    expect(readdirSync(pkg.dir).filter((name) => name.startsWith('.memdir-'))).toEqual([]);
  });

  it('a claim its launcher stopped renewing (killed, its pid now another process) is swept, not waited for', async () => {
    await withMirror('zip');
    // A launcher killed outright left its claim; its pid now belongs to another live process.
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const claim = path.join(pkg.dir, `.memdir-filling-dist-${other.pid}`);
      const long = new Date(Date.now() - 10 * 60_000);
      await fs.writeFile(claim, String(long.getTime()));
      await fs.utimes(claim, long, long);
      const started = await launch(envFor({ electron_use_remote_checksums: '1' }));
      expect(started.text).not.toContain('waiting for that one to finish');
      expect((await electronArgv(started.outcome))[0]).toBe(APP_MAIN);
      expect(readdirSync(pkg.dir).filter((name) => name.startsWith('.memdir-'))).toEqual([]);
    } finally {
      other.kill();
    }
  });
});

describe.runIf(unix)('npm start with Electronʼs binary', () => {
  async function installFake(dir: string): Promise<string> {
    await fs.mkdir(dir, { recursive: true });
    const binary = path.join(dir, 'electron');
    await fs.writeFile(binary, FAKE_ELECTRON_SCRIPT, { mode: 0o755 });
    return binary;
  }

  it('spawns it with the appʼs main and the arguments, downloading nothing', async () => {
    const m = await withMirror('not-found');
    await installFake(path.join(pkg.dir, 'dist'));
    await fs.writeFile(path.join(pkg.dir, 'path.txt'), 'electron');
    const { outcome: result, text } = await launch(envFor({ ELECTRON_RUN_AS_NODE: '1' }));
    expect(await electronArgv(result)).toEqual([APP_MAIN, '--home', path.join(root, 'home'), '--data-dir', path.join(root, 'data'), '--port', '0']);
    expect(m.requests).toEqual([]);
    expect(text).toBe('');
  });

  it('uses ELECTRON_OVERRIDE_DIST_PATH by Electronʼs rule (<dir>/<path.txt or electron>), never downloading into it', async () => {
    const m = await withMirror('zip');
    const override = path.join(root, 'my-electron');
    const binary = await installFake(override);
    const { outcome: result } = await launch(envFor({ ELECTRON_OVERRIDE_DIST_PATH: override }));
    expect(result.kind === 'electron' && result.binary).toBe(binary);
    expect((await electronArgv(result))[0]).toBe(APP_MAIN);

    outcome = null;
    const empty = path.join(root, 'empty');
    const { outcome: missing, text } = await launch(envFor({ ELECTRON_OVERRIDE_DIST_PATH: empty }));
    expect(text).toContain(`ELECTRON_OVERRIDE_DIST_PATH points at ${empty}, which holds no electron`);
    await expectHostServing(missing);
    expect(m.requests).toEqual([]);
  });

  it('a binary that cannot be run (no execute permission) is said so in words, never a bare EACCES, pointing at npm run serve', async () => {
    const override = path.join(root, 'no-exec');
    const binary = await installFake(override);
    await fs.chmod(binary, 0o644);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'launch.ts')], {
      cwd: REPO,
      env: envFor({ ELECTRON_OVERRIDE_DIST_PATH: override }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(err).toBe(`memdir: Electron could not be started from ${binary}: permission denied. npm run serve starts the headless host instead.\n`);
  });

  it('an app that crashes (ended by a signal it was not sent) is said so in a sentence, not a silent exit', async () => {
    const override = path.join(root, 'crashing');
    await fs.mkdir(override);
    await fs.writeFile(path.join(override, 'electron'), '#!/bin/sh\nkill -SEGV $$\n', { mode: 0o755 });
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'launch.ts')], {
      cwd: REPO,
      env: envFor({ ELECTRON_OVERRIDE_DIST_PATH: override }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(err).toBe('memdir: the desktop app stopped unexpectedly (it crashed). npm run serve starts the headless host instead.\n');
  });

  it('starts the host when MEMDIR_HEADLESS is set, even with the binary there', async () => {
    await installFake(path.join(pkg.dir, 'dist'));
    await fs.writeFile(path.join(pkg.dir, 'path.txt'), 'electron');
    const { outcome: result, text } = await launch(envFor({ MEMDIR_HEADLESS: '1' }));
    expect(text).toBe('Starting the headless host instead of the desktop app: MEMDIR_HEADLESS is set.\n');
    await expectHostServing(result);
    expect(existsSync(argvFile)).toBe(false);
  });
});

describe.runIf(unix)('npm start with a damaged or deleted Electron binary', () => {
  /** An install as Electron's installer leaves it (dist/version, path.txt), with `binary` as dist/electron. */
  async function installed(binary: Buffer | string): Promise<string> {
    const dist = path.join(pkg.dir, 'dist');
    await fs.mkdir(dist, { recursive: true });
    await fs.writeFile(path.join(dist, 'version'), pkg.version);
    await fs.writeFile(path.join(dist, 'electron'), binary, { mode: 0o755 });
    await fs.writeFile(path.join(pkg.dir, 'path.txt'), 'electron');
    return path.join(dist, 'electron');
  }

  it('a binary cut short is not started (it would crash at once): it is said so in a sentence and installed again', async () => {
    const m = await withMirror('zip');
    // The first 200 kB of a real ELF executable: what a disk filled during the unzip leaves.
    const cut = readFileSync(process.execPath).subarray(0, 200_000);
    const binary = await installed(cut);
    const { outcome: result, text } = await launch(envFor({ electron_use_remote_checksums: '1' }));
    const first = text.split('\n')[0]!;
    expect(first.startsWith(`Electron's binary at ${binary} is damaged (`)).toBe(true);
    expect(first).toMatch(/is damaged \(it is cut short: 200000 bytes of at least \d+\): installing it again\.$/);
    expect(m.requests).toContain(zipPath());
    expect((await electronArgv(result))[0]).toBe(APP_MAIN);
  });

  it('an empty binary (which a shell would run as an empty script, doing nothing) is installed again', async () => {
    await withMirror('zip');
    await installed('');
    const { outcome: result, text } = await launch(envFor({ electron_use_remote_checksums: '1' }));
    expect(text).toContain('is damaged (it is empty): installing it again.');
    expect((await electronArgv(result))[0]).toBe(APP_MAIN);
  });

  it('a whole binary is started as it is (the check reads its headers, nothing is downloaded)', async () => {
    const m = await withMirror('zip');
    const { binaryDamage } = await import('./electron-binary.js');
    expect(binaryDamage(process.execPath)).toBeNull();
    await installed(FAKE_ELECTRON_SCRIPT);
    const { outcome: result, text } = await launch(envFor());
    expect(text).toBe('');
    expect(m.requests).toEqual([]);
    expect((await electronArgv(result))[0]).toBe(APP_MAIN);
  });

  it('a damaged binary under ELECTRON_OVERRIDE_DIST_PATH (the userʼs own) is never started nor replaced: the host starts, saying why', async () => {
    const m = await withMirror('zip');
    const override = path.join(root, 'my-electron');
    await fs.mkdir(override);
    await fs.writeFile(path.join(override, 'electron'), '', { mode: 0o755 });
    const { outcome: result, text } = await launch(envFor({ ELECTRON_OVERRIDE_DIST_PATH: override }));
    expect(text).toContain(`ELECTRON_OVERRIDE_DIST_PATH points at ${path.join(override, 'electron')}, which is damaged (it is empty).`);
    await expectHostServing(result);
    expect(m.requests).toEqual([]);
    expect(readFileSync(path.join(override, 'electron'), 'utf8')).toBe('');
  });

  it('a deleted binary (path.txt still there) is downloaded again', async () => {
    const m = await withMirror('zip');
    const binary = await installed(FAKE_ELECTRON_SCRIPT);
    await fs.rm(binary);
    const { outcome: result } = await launch(envFor({ electron_use_remote_checksums: '1' }));
    expect(m.requests).toContain(zipPath());
    expect((await electronArgv(result))[0]).toBe(APP_MAIN);
  });

  it('a cached zip cut short is not unzipped: it fails its checksum and is downloaded again from the same mirror', async () => {
    const m = await withMirror('zip');
    const env = envFor({ electron_use_remote_checksums: '1' });
    const first = await launch(env);
    await electronArgv(first.outcome);
    // A fresh node_modules (npm ci) on a machine whose Electron cache holds a damaged zip.
    await fs.rm(path.join(pkg.dir, 'dist'), { recursive: true });
    await fs.rm(path.join(pkg.dir, 'path.txt'));
    const cache = path.join(root, 'electron-cache');
    const zips = readdirSync(cache, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.zip'));
    expect(zips).toHaveLength(1);
    await fs.truncate(path.join(cache, zips[0]!), 40);
    m.requests.length = 0;
    outcome = null;
    const second = await launch(env);
    expect(m.requests.filter((r) => r === zipPath())).toHaveLength(1);
    expect((await electronArgv(second.outcome))[0]).toBe(APP_MAIN);
    expect(statSync(path.join(cache, zips[0]!)).size).toBeGreaterThan(40);
  });
});

describe.runIf(process.platform === 'linux')('npm start on a machine without a display', () => {
  it('downloads nothing, says so in a sentence pointing at npm run serve, and starts the host', async () => {
    const m = await withMirror('zip');
    const { DISPLAY: _display, WAYLAND_DISPLAY: _wayland, ...env } = envFor();
    const { outcome: result, text } = await launch(env);
    expect(text).toBe(
      'Starting the headless host instead of the desktop app: there is no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set); on a machine without one, `npm run serve` starts the host directly.\n',
    );
    expect(m.requests).toEqual([]);
    expect(existsSync(path.join(pkg.dir, 'dist'))).toBe(false);
    await expectHostServing(result);
  });

  it('says of a home Claude Code has not made yet that it makes it at its first session, and that its memories show as it writes them', async () => {
    await withMirror('zip');
    const { DISPLAY: _display, WAYLAND_DISPLAY: _wayland, ...env } = envFor();
    const lines: string[] = [];
    await launch(env, { startHost: (a) => serve(a, (l) => lines.push(l)) });
    expect(lines.at(-1)).toBe(
      `Home: ${path.join(root, 'home')} (not there yet: Claude Code makes it at its first session, and Memdir shows its memories as it writes them; meanwhile the app's demo workspace shows what Memdir does)`,
    );
  });

  it('opens the window with a Wayland display only', async () => {
    await withMirror('zip');
    const { DISPLAY: _display, ...env } = envFor({ WAYLAND_DISPLAY: 'wayland-0', electron_use_remote_checksums: '1' });
    const { outcome: result } = await launch(env);
    expect((await electronArgv(result))[0]).toBe(APP_MAIN);
  });
});

describe('the Node version', () => {
  it('is checked against package.jsonʼs engines, which this machineʼs Node satisfies', () => {
    expect(nodeVersionProblem(MANIFEST.engines.node, process.version)).toBeNull();
    expect(nodeVersionProblem('>=20.19', 'v20.18.3')).toBe('Memdir needs Node ≥ 20.19; this is Node 20.18.3. Install a newer Node and run npm start again.');
    expect(nodeVersionProblem('>=20.19', 'v22.1.0')).toBeNull();
    expect(nodeVersionProblem('>=20.19', 'v20.19.0')).toBeNull();
  });
});
