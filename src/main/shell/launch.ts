/**
 * `npm start`: the desktop app where Electron's binary is present; otherwise one line saying why,
 * then the headless host in a browser-ready form. Nothing here downloads anything.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './host/serve.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Path of the Electron binary if it is installed, or the reason it is not usable. */
export function findElectron(): { ok: true; path: string } | { ok: false; reason: string } {
  let pkg: string;
  try {
    pkg = createRequire(import.meta.url).resolve('electron/package.json');
  } catch {
    return { ok: false, reason: 'the electron package is not installed' };
  }
  const dir = path.dirname(pkg);
  const pathTxt = path.join(dir, 'path.txt');
  if (!fs.existsSync(pathTxt)) return { ok: false, reason: 'Electron\'s binary has not been downloaded (offline install)' };
  const binary = path.join(dir, 'dist', fs.readFileSync(pathTxt, 'utf8').trim());
  return fs.existsSync(binary) ? { ok: true, path: binary } : { ok: false, reason: `Electron's binary is missing at ${binary}` };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const electron = findElectron();
  if (electron.ok && !process.env.MEMDIR_HEADLESS) {
    const child = spawn(electron.path, [path.resolve(here, 'electron/main.js'), ...args], { stdio: 'inherit' });
    child.on('exit', (code) => process.exit(code ?? 0));
  } else {
    process.stdout.write(`Starting the headless host instead of the desktop app: ${electron.ok ? 'MEMDIR_HEADLESS is set' : electron.reason}.\n`);
    try {
      const running = await serve(args);
      const stop = () => void running.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    } catch (error) {
      process.stderr.write(`memdir: ${(error as Error).message}\n`);
      process.exit(2);
    }
  }
}
