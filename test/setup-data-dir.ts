/**
 * Every test file works in a data dir of its own (R-DATA-DIR test hygiene): Memdir's data dir
 * (`MEMDIR_DATA_DIR`, which the product honours for portable installs) points at a temp dir for
 * the file's run and is removed after it. A test that scans, caches or locks in-process without
 * naming a data dir — and every process it starts with this environment — then writes there,
 * never in the data dir of the person running the tests (`~/.local/share/memdir`: its
 * fingerprint key, its scan cache). Tests that name their own data dir keep theirs. Where the
 * product puts its data for users is unchanged (core/data-dir.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-test-data-'));
process.env.MEMDIR_DATA_DIR = dataDir;

afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});
