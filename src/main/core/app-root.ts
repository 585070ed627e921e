/**
 * Where this copy of Memdir is: the folder holding its package.json — the checkout, or the
 * installed app's `app.asar` (`app.asar.unpacked` for the code Node runs outside Electron).
 *
 * Found by walking up from this module rather than by a fixed `../..`: the build bundles the
 * Node side (esbuild.config.ts), so this code runs from an entry file or from a shared chunk in
 * out/chunks/, at depths that differ from the source's — and from src/ under the tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findAppRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`Memdir's package.json was not found above ${start}.`);
  }
}

/** The folder holding Memdir's package.json. */
export const APP_ROOT: string = findAppRoot(path.dirname(fileURLToPath(import.meta.url)));

/** The built app's files (out/ in the app root): the CLI, the renderer, the preload. */
export function builtPath(...parts: string[]): string {
  return path.join(APP_ROOT, 'out', ...parts);
}
