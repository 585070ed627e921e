/**
 * "Install the memdir command", like an editor's shell command: puts the installed app's own
 * `memdir` script (resources/bin, see hooks/hook-command.ts) on the user's PATH — a link in
 * `~/.local/bin` (Linux, macOS), a one-line `memdir.cmd` in the user's WindowsApps folder
 * (Windows, on PATH by default). Never replaces a file it did not make: another `memdir` there
 * (an `npm link` of a checkout) is left alone and named.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CommandInstall } from '../../shared/contract/desktop.js';
import { MemdirError } from '../../shared/errors.js';
import { withReason } from '../../shared/failure-words.js';
import { errCode } from '../core/fs-errors.js';

export interface CommandInstallOptions {
  /** The app's `memdir` script, or null when running from a checkout. */
  script: string | null;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** The user's home (default `os.homedir()`). */
  home?: string;
}

/** Where the command goes on this system. */
export function commandTarget(options: CommandInstallOptions): string {
  const platform = options.platform ?? process.platform;
  const home = options.home ?? os.homedir();
  if (platform === 'win32')
    return path.win32.join(options.env.LOCALAPPDATA ?? path.win32.join(home, 'AppData', 'Local'), 'Microsoft', 'WindowsApps', 'memdir.cmd');
  return path.join(home, '.local', 'bin', 'memdir');
}

function windowsShim(script: string): string {
  return `@"${script}.cmd" %*\r\n`;
}

/** Whether `target` is the command this app installed (a link to its script, or its shim). */
async function isOurs(target: string, script: string, platform: NodeJS.Platform): Promise<boolean | null> {
  try {
    if (platform === 'win32') return (await fs.readFile(target, 'utf8')) === windowsShim(script);
    return path.resolve(path.dirname(target), await fs.readlink(target)) === script;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // EINVAL: a plain file, not a link — someone else's.
    return false;
  }
}

function onPath(dir: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  const list = (env.PATH ?? env.Path ?? '').split(platform === 'win32' ? ';' : ':');
  const norm = (p: string) => (platform === 'win32' ? p.toLowerCase().replace(/\\+$/, '') : p.replace(/\/+$/, ''));
  return list.some((entry) => entry !== '' && norm(entry) === norm(dir));
}

/** Whether the command can be installed, and whether it is. */
export async function commandInstallStatus(options: CommandInstallOptions): Promise<CommandInstall> {
  const platform = options.platform ?? process.platform;
  if (!options.script) {
    return { installable: false, path: null, installed: false, note: 'Running from a checkout: use npx memdir there (or npm link to put it on PATH).' };
  }
  const target = commandTarget(options);
  const ours = await isOurs(target, options.script, platform);
  if (ours === false)
    return {
      installable: false,
      path: target,
      installed: false,
      note: `${target} already exists and is not this app's command; Memdir leaves it alone (remove it to install this one).`,
    };
  const dir = path.dirname(target);
  const note = onPath(dir, options.env, platform) ? null : `${dir} is not on your PATH: add it (for example in ~/.profile) to type memdir in a terminal.`;
  return { installable: true, path: target, installed: ours === true, note };
}

/** Why the memdir command was not installed, in a sentence. */
export class CommandInstallError extends MemdirError<'unavailable' | 'exists' | 'io-failed'> {
  override readonly name = 'CommandInstallError';
}

/** Install the command (idempotent). A failure is thrown as a CommandInstallError with a sentence. */
export async function installMemdirCommand(options: CommandInstallOptions): Promise<CommandInstall> {
  const platform = options.platform ?? process.platform;
  const status = await commandInstallStatus(options);
  if (!status.installable || !options.script || !status.path)
    throw new CommandInstallError('unavailable', status.note ?? 'The memdir command cannot be installed here.');
  if (status.installed) return status;
  const target = status.path;
  await fs.mkdir(path.dirname(target), { recursive: true }).catch((error: unknown) => {
    throw new CommandInstallError('io-failed', withReason(`The memdir command could not be installed at ${target}`, target, error), { cause: error });
  });
  try {
    if (platform === 'win32') {
      // Written whole beside it, then hard-linked in: the shim appears complete or not at all.
      const temp = path.join(path.dirname(target), `.memdir-install-${process.pid}-${Date.now()}`);
      try {
        await fs.writeFile(temp, windowsShim(options.script), { flag: 'wx' });
        await fs.link(temp, target);
      } finally {
        await fs.rm(temp, { force: true });
      }
    } else {
      // A symlink is made in one step, and never over an existing file.
      await fs.symlink(options.script, target);
    }
  } catch (error) {
    if (errCode(error) === 'EEXIST') throw new CommandInstallError('exists', `${target} appeared meanwhile; Memdir leaves it alone.`, { cause: error });
    throw new CommandInstallError('io-failed', withReason(`The memdir command could not be installed at ${target}`, target, error), { cause: error });
  }
  return commandInstallStatus(options);
}
