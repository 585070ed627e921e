/**
 * The command Claude Code runs for Memdir's hooks (SPEC §11):
 * `"<node>" "<…/out/cli/memdir.js>" hook <Event> --data-dir "<dataDir>"`: absolute paths,
 * because Claude Code runs hooks through a shell whose PATH may not hold `memdir` (or `node`);
 * inside Electron, `ELECTRON_RUN_AS_NODE=1` makes the app's own binary run the CLI. `--data-dir`
 * ties the hook to the app that connected it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemdirHookEvent } from '../../shared/contract/hooks.js';

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
}

/** `out/cli/memdir.js` of this build (this file is `out/main/hooks/…`). */
export function defaultCliEntry(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../cli/memdir.js');
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
  const exec = options.execPath ?? process.execPath;
  const electron = options.electron ?? Boolean(process.versions.electron);
  const parts = [quote(exec, platform), quote(cliEntry, platform), 'hook', event, ...dataDir];
  return `${electron && platform !== 'win32' ? 'ELECTRON_RUN_AS_NODE=1 ' : ''}${parts.join(' ')}`;
}
