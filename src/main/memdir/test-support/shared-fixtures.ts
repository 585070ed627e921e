/**
 * The real memory directories other projects wrote (`shared/fixtures/memories/`, beside the
 * repository: read-only third-party data, never copied into it). Found by walking up from the
 * repository, or at `$MEMDIR_SHARED_FIXTURES`; null when absent, so a test can skip with a reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `…/shared/fixtures/memories`, or null. */
export function sharedMemoryFixtures(): string | null {
  const fromEnv = process.env.MEMDIR_SHARED_FIXTURES;
  if (fromEnv) return fs.existsSync(path.join(fromEnv, 'memories')) ? path.join(fromEnv, 'memories') : null;
  for (let dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..'); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'fixtures', 'memories');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** Why a test needing them is skipped. */
export const NO_SHARED_FIXTURES = 'shared/fixtures/memories is not beside the repository (set MEMDIR_SHARED_FIXTURES)';
