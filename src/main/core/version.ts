/** Memdir's version, read once from package.json in the app root. */
import fs from 'node:fs';
import path from 'node:path';
import { APP_ROOT } from './app-root.js';

export const VERSION: string = (JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
