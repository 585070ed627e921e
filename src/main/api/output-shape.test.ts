/**
 * The host's own answers on the first-list path are sent without re-checking them against their
 * schema outside tests (dispatch.ts, OUTPUTS_PROVEN_EXACT): that is only safe while checking
 * changes nothing. Here, for the real list and get answers of a realistic home (the fixture home
 * with its problems and team memory, plus the 20 real memory directories other projects wrote),
 * the raw handler answer and the schema-checked one must serialize byte for byte the same, key
 * order included (zod builds a new object in the schema's key order and drops unknown keys).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { buildFixtureHome } from '../memdir/test-support/fixture-home.js';
import { NO_FIXTURES, realFixturesRoot } from '../memdir/test-support/real-fixtures.js';
import { projectHandlers } from './projects.js';
import { projectsContract } from '../../shared/contract/projects.js';
import { OUTPUTS_PROVEN_EXACT } from './dispatch.js';

const fixtures = realFixturesRoot();

/** Where two serializations first part, with some text around it: readable where a 300 KB diff is not. */
function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}: checked …${a.slice(Math.max(0, i - 120), i + 80)}… raw …${b.slice(Math.max(0, i - 120), i + 80)}…`;
}
let root: string;
let ctx: AppContext;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-output-shape-'));
  const fixture = await buildFixtureHome(root);
  if (fixtures) {
    for (const name of await fs.readdir(fixtures)) {
      const memory = path.join(fixtures, name, 'memory');
      if (!(await fs.stat(memory).catch(() => null))?.isDirectory()) continue;
      await fs.cp(memory, path.join(fixture.home, 'projects', `-real-${name.replace(/[^A-Za-z0-9]/g, '-')}`, 'memory'), { recursive: true });
    }
  }
  ctx = await AppContext.create({ homeFlag: fixture.home, dataDir: path.join(root, 'data'), env: {} });
});
afterAll(async () => {
  await ctx?.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe.skipIf(!fixtures)(`the first-list answers as sent unchecked (${fixtures ? 'real fixtures' : NO_FIXTURES})`, () => {
  it('are exactly what their output schemas would send: projects.list and every projects.get', async () => {
    expect([...OUTPUTS_PROVEN_EXACT].sort()).toEqual(['projects.get', 'projects.list']);
    const list = await projectHandlers['projects.list']({}, ctx);
    expect(list.projects.length).toBeGreaterThan(20);
    expect(firstDifference(JSON.stringify(projectsContract['projects.list'].output.parse(list)), JSON.stringify(list))).toBeNull();
    for (const p of list.projects) {
      const got = await projectHandlers['projects.get']({ dir: p.dir }, ctx);
      expect(firstDifference(JSON.stringify(projectsContract['projects.get'].output.parse(got)), JSON.stringify(got)), p.dir).toBeNull();
    }
  });
});
