/**
 * "Start at login" on Linux, where Electron's login-item API does nothing: the freedesktop.org
 * autostart entry `$XDG_CONFIG_HOME/autostart/dev.memdir.app.desktop` (GNOME, KDE, Xfce… read
 * it). Written atomically; removed to turn it off. An AppImage starts from its own path
 * (`$APPIMAGE`), not from the temporary mount it runs in.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeDataFile } from '../core/safe-fs.js';

/** Where the autostart entry lives. */
export function autostartFile(env: NodeJS.ProcessEnv, home: string = os.homedir()): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'autostart', 'dev.memdir.app.desktop');
}

/** The program to start: the AppImage itself when run from one, else this executable. */
export function autostartProgram(env: NodeJS.ProcessEnv, execPath: string = process.execPath): string {
  return env.APPIMAGE || execPath;
}

/** A desktop entry's Exec value for one program path (the spec's quoting). */
function execValue(program: string): string {
  return `"${program.replace(/[\\"`$]/g, (c) => `\\\\${c}`)}"`;
}

/** The autostart entry's text. */
export function autostartEntry(program: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Memdir',
    'Comment=Long-term memory for AI coding agents',
    `Exec=${execValue(program)}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** Whether Memdir starts at login: the entry exists and is not hidden or disabled. */
export async function readAutostart(file: string): Promise<boolean> {
  try {
    const text = await fs.readFile(file, 'utf8');
    return !/^Hidden\s*=\s*true\s*$/im.test(text) && !/^X-GNOME-Autostart-enabled\s*=\s*false\s*$/im.test(text);
  } catch {
    return false;
  }
}

/** Turn starting at login on (write the entry) or off (remove it). */
export async function writeAutostart(file: string, on: boolean, program: string): Promise<void> {
  if (on) await writeDataFile(file, autostartEntry(program));
  else await fs.rm(file, { force: true });
}
