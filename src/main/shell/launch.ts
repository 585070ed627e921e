/**
 * `npm start`: the desktop app. Where Electron's binary is missing it is fetched first, by
 * Electron's own installer (see electron-binary.ts), with its progress on one line; if that fails,
 * one line says why — the installer's own error — and the headless host starts instead, in a
 * browser-ready form. `MEMDIR_HEADLESS=1` always starts the host.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_ROOT } from '../core/app-root.js';
import { failureWords } from '../../shared/failure-words.js';
import { type ElectronPackage, findElectronPackage, installElectron, locateElectron } from './electron-binary.js';

interface Manifest {
  main: string;
  engines: { node: string };
}

function readManifest(): Manifest {
  return JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'package.json'), 'utf8')) as Manifest;
}

/**
 * Whether `actual` (a Node version) satisfies `required` (package.json's `engines.node`, of the
 * form `>=X.Y[.Z]`): null when it does, else the sentence to print. package.json is the one place
 * the supported Node is written; the launcher and README follow it.
 */
export function nodeVersionProblem(required: string, actual: string): string | null {
  const want = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(required.trim());
  const have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(actual);
  if (!want || !have) return null;
  const a = [1, 2, 3].map((i) => Number(have[i]));
  const w = [1, 2, 3].map((i) => Number(want[i] ?? 0));
  for (let i = 0; i < 3; i++) {
    if (a[i]! > w[i]!) return null;
    if (a[i]! < w[i]!)
      return `Memdir needs Node ${required.replace('>=', '≥ ').replace(/\s+/, ' ')}; this is Node ${actual.replace(/^v/, '')}. Install a newer Node and run npm start again.`;
  }
  return null;
}

/**
 * Why a window cannot open here, or null: on Linux and the BSDs Electron needs an X11 or Wayland
 * display, and without one (a server, an SSH session, a container) it ends with Chromium's own
 * dump ("Missing X server or $DISPLAY"). Checked before anything is downloaded.
 */
export function displayProblem(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | null {
  if (platform === 'win32' || platform === 'darwin') return null;
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return null;
  return 'there is no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set); on a machine without one, `npm run serve` starts the host directly';
}

/** A running headless host. */
export interface RunningHost {
  url: string;
  close: () => Promise<void>;
}

export interface LauncherOptions {
  /** Arguments after `npm start --` (`--home H`): given to the app, or to the host. */
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Where text goes (the terminal). */
  write: (text: string) => void;
  /** A terminal that can redraw a line: progress is shown in place. */
  tty: boolean;
  /** The `electron` package; default the one this checkout resolves (null: not installed). */
  electronPackage?: ElectronPackage | null;
  /** No byte for this long and Electron's download is abandoned (default 30 s). */
  stallMs?: number;
  /** The operating system (default this one's): whether a window needs DISPLAY or WAYLAND_DISPLAY. */
  platform?: NodeJS.Platform;
  /** Starts the headless host; default `serve` (host/serve-app.ts). */
  startHost?: (args: string[]) => Promise<RunningHost>;
}

/** What `npm start` turned into (`stopped`: Ctrl-C during Electron's download, or while waiting for another's). */
export type LaunchOutcome =
  | { kind: 'electron'; binary: string; child: ChildProcess }
  | { kind: 'host'; reason: string; host: RunningHost }
  | { kind: 'stopped'; signal: NodeJS.Signals };

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** Said after a failed download of Electron, before the host's link. */
const INSTALL_ADVICE =
  "To get the desktop app, check the connection (or set ELECTRON_MIRROR to a mirror you can reach) and run npm start again; meanwhile open Memdir's link below in a browser.";

/** The desktop app, or the host with the reason it is not the app. */
export async function runLauncher(options: LauncherOptions): Promise<LaunchOutcome> {
  const { env, write } = options;
  // The host (the whole app) is loaded only when it is what starts: Electron's start needs none of it.
  const startHost = options.startHost ?? (async (args: string[]) => (await import('./host/serve-app.js')).serve(args));
  const host = async (reason: string, advice?: string): Promise<LaunchOutcome> => {
    write(`Starting the headless host instead of the desktop app: ${reason}.\n`);
    if (advice) write(`${advice}\n`);
    return { kind: 'host', reason, host: await startHost(options.args) };
  };
  if (env.MEMDIR_HEADLESS) return host('MEMDIR_HEADLESS is set');
  const noDisplay = displayProblem(env, options.platform ?? process.platform);
  if (noDisplay) return host(noDisplay);
  const pkg = options.electronPackage === undefined ? findElectronPackage() : options.electronPackage;
  if (!pkg) return host('the electron package is not installed (run npm install)');

  let found = locateElectron(pkg, env);
  if (found.state === 'missing' && found.damaged && found.source === 'package') {
    // Electron's installer takes a dist/ with its version and path.txt for an install, whole or
    // not: a damaged one is removed, path.txt first (it marks the install), so it is installed again.
    write(`${found.reason}: installing it again.\n`);
    fs.rmSync(path.join(pkg.dir, 'path.txt'), { force: true });
    fs.rmSync(path.join(pkg.dir, 'dist'), { recursive: true, force: true });
    found = locateElectron(pkg, env);
  }
  if (found.state === 'missing' && found.source === 'package') {
    // Said when this launcher starts downloading: a second `npm start` at once only waits for the first's.
    const title = `Downloading Electron ${pkg.version} (first start only)`;
    // Ctrl-C (or a SIGTERM) during the download stops it cleanly: the installer is ended and its
    // temp zip and half-unzipped dist/ removed before the launcher ends (Node's default would
    // end it at once, leaving both behind).
    const interruption = new AbortController();
    let stoppedBy: NodeJS.Signals | null = null;
    const onSignal = (signal: NodeJS.Signals): void => {
      stoppedBy ??= signal;
      interruption.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let result;
    try {
      result = await installElectron({
        pkg,
        env,
        ...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
        onProgress: (bytes) => options.tty && write(`\r\x1b[K${title}: ${megabytes(bytes)}`),
        onWaiting: () => write('Another npm start is downloading it: waiting for that one to finish.\n'),
        onDownloading: () => write(options.tty ? `${title}…` : `${title}…\n`),
        signal: interruption.signal,
      });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    if (options.tty) write('\r\x1b[K');
    if (stoppedBy || (!result.ok && result.interrupted)) {
      // Stopped while another launcher downloads: this one had nothing to throw away, and that
      // download is not this one's to stop (it is in another terminal).
      write(
        !result.ok && result.interrupted === 'waiting'
          ? 'Stopped while waiting for the other npm start to download Electron; this one downloaded nothing. That download carries on in its own terminal: once it is done, npm start opens Memdir without downloading it again.\n'
          : `Stopped: Electron's download was interrupted and nothing of it was kept; npm start downloads it again next time.\n`,
      );
      return { kind: 'stopped', signal: stoppedBy ?? 'SIGINT' };
    }
    // Why alone leaves a newcomer stuck: say what gets the app, and that the link below works meanwhile.
    if (!result.ok) return host(`Electron ${pkg.version} could not be installed: ${result.error}`, INSTALL_ADVICE);
    write(result.byOther ? `The other npm start installed Electron ${pkg.version}.\n` : `Electron ${pkg.version} installed (${megabytes(result.bytes)}).\n`);
    found = locateElectron(pkg, env);
  }
  if (found.state === 'missing') return host(found.reason);

  // The user's shell may carry ELECTRON_RUN_AS_NODE (from an editor's terminal): it would make
  // the app run as plain Node.
  const { ELECTRON_RUN_AS_NODE: _asNode, ...childEnv } = env;
  const main = path.join(APP_ROOT, readManifest().main);
  const child = spawn(found.path, [main, ...options.args], { stdio: 'inherit', env: childEnv });
  return { kind: 'electron', binary: found.path, child };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const problem = nodeVersionProblem(readManifest().engines.node, process.version);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(2);
  }
  try {
    const outcome = await runLauncher({
      args: process.argv.slice(2),
      env: process.env,
      write: (text) => process.stdout.write(text),
      tty: process.stdout.isTTY === true,
    });
    // The shell's convention for a program ended by a signal: 128 + its number (130 for Ctrl-C).
    if (outcome.kind === 'stopped') process.exit(outcome.signal === 'SIGINT' ? 130 : 143);
    if (outcome.kind === 'electron') {
      const { child } = outcome;
      // Like Electron's own cli.js: the app ends with the launcher, and the launcher with the app.
      const forwarded = new Set<NodeJS.Signals>();
      for (const signal of ['SIGINT', 'SIGTERM'] as const)
        process.on(signal, () => {
          forwarded.add(signal);
          if (!child.killed) child.kill(signal);
        });
      child.on('error', (error) => {
        process.stderr.write(
          `memdir: Electron could not be started from ${outcome.binary}: ${failureWords(error)}. npm run serve starts the headless host instead.\n`,
        );
        process.exit(2);
      });
      child.on('close', (code, signal) => {
        // Ended by a signal nobody here sent: a crash (Chromium's own lines above say more) or a kill.
        if (signal && !forwarded.has(signal)) {
          const how = ['SIGSEGV', 'SIGABRT', 'SIGTRAP', 'SIGBUS', 'SIGILL', 'SIGFPE'].includes(signal) ? 'it crashed' : 'it was ended from outside';
          process.stderr.write(`memdir: the desktop app stopped unexpectedly (${how}). npm run serve starts the headless host instead.\n`);
        }
        process.exit(code ?? (signal ? 1 : 0));
      });
    } else {
      const stop = () => void outcome.host.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    }
  } catch (error) {
    process.stderr.write(`memdir: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
