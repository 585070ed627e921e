/** Memdir's version, read once from package.json (the same relative path from src/ and out/). */
import { createRequire } from 'node:module';

export const VERSION: string = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
