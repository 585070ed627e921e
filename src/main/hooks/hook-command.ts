/**
 * The command Claude Code runs for Memdir's hooks (SPEC §11): absolute paths, because Claude Code
 * runs hooks through a shell whose PATH may not hold `memdir` (or `node`).
 *
 *   - from a checkout: `"<node>" "<…/out/cli/memdir.js>" hook <Event> --data-dir "<dataDir>"`;
 *     inside Electron, `ELECTRON_RUN_AS_NODE=1` makes the app's own binary run the CLI;
 *   - from an installed app, where there is no `node` and no checkout: the `memdir` script
 *     shipped in the app's resources (`resources/bin/memdir`, packaging/bin), which runs the
 *     app's binary as Node on the CLI beside it — found from where this build is.
 *
 * `--data-dir` ties the hook to the app that connected it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MemdirHookEvent } from '../../shared/contract/hooks.js';
import { builtPath } from '../core/app-root.js';

/** How the hook command is built. */
export interface HookCommandOptions {
  /** Memdir's data dir: where the hook finds the app (or spools). */
  dataDir: string;
  /** The program that runs the CLI; default this process's (`process.execPath`). */
  execPath?: string;
  /** The CLI entry; default `out/cli/memdir.js` beside this build. */
  cliEntry?: string;
  /** The program is Electron, which runs scripts only with `ELECTRON_RUN_AS_NODE=1`. */
  electron?: boolean;
  platform?: NodeJS.Platform;
  /**
   * The installed app's `memdir` script; default the one beside this build when it is an
   * installed app (see `installedMemdirCommand`), null to never use one.
   */
  installed?: string | null;
}

/** `out/cli/memdir.js` of this build. */
export function defaultCliEntry(): string {
  return builtPath('cli', 'memdir.js');
}

/**
 * The `memdir` script of the installed app whose CLI is `cliEntry`: an installed app keeps its
 * code in `<resources>/app.asar` (unpacked beside it as `app.asar.unpacked`) and the script in
 * `<resources>/bin/memdir`. Null from a checkout.
 */
export function installedMemdirCommand(cliEntry: string = defaultCliEntry()): string | null {
  const parts = path.resolve(cliEntry).split(path.sep);
  const at = parts.findIndex((part) => part === 'app.asar' || part === 'app.asar.unpacked');
  if (at < 1) return null;
  const script = path.join(parts.slice(0, at).join(path.sep) || path.sep, 'bin', 'memdir');
  return fs.existsSync(script) ? script : null;
}

function quote(arg: string, platform: NodeJS.Platform): string {
  if (platform === 'win32') return `"${arg.replace(/"/g, '""')}"`;
  if (/^[A-Za-z0-9_/.:@%+=,-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command Claude Code runs for `event`. */
export function hookCommand(event: MemdirHookEvent | '<event>', options: HookCommandOptions): string {
  const platform = options.platform ?? process.platform;
  const cliEntry = options.cliEntry ?? defaultCliEntry();
  const dataDir = ['--data-dir', quote(path.resolve(options.dataDir), platform)];
  const installed = options.installed === undefined ? installedMemdirCommand(cliEntry) : options.installed;
  // On Windows `…\bin\memdir` is found as memdir.cmd by cmd.exe and as the sh script by bash.
  if (installed) return [quote(installed, platform), 'hook', event, ...dataDir].join(' ');
  const exec = options.execPath ?? process.execPath;
  const electron = options.electron ?? Boolean(process.versions.electron);
  const parts = [quote(exec, platform), quote(cliEntry, platform), 'hook', event, ...dataDir];
  return `${electron && platform !== 'win32' ? 'ELECTRON_RUN_AS_NODE=1 ' : ''}${parts.join(' ')}`;
}
