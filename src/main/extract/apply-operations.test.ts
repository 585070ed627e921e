// Extraction writes a team memory through the same writers as the app: its pointer goes into
// MEMORY.md as team/x.md (the one index Claude Code 2.1.332 loads) and into team/MEMORY.md.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ExtractOperation } from '../../shared/contract/extract.js';
import { serializeTopicFile } from '../memdir/index.js';
import { applyOperations, sayApplied } from './apply-operations.js';

let root: string;
let memoryDir: string;
const read = (rel: string) => fs.readFile(path.join(memoryDir, rel), 'utf8');
const op = (file: string): ExtractOperation => ({
  action: 'create',
  file,
  scope: 'team',
  type: 'project',
  name: 'Deploys',
  description: 'no deploys on Fridays',
  body: 'Because of the weekend.\n',
  hook: null,
  reason: null,
});
const options = () => ({ dataDir: path.join(root, 'data'), sessionId: null, summary: () => 'Extract' });

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-apply-ops-'));
  memoryDir = path.join(root, 'memory');
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
  await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Mine](mine.md) — m\n');
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

it('a team memory it creates is pointed at from MEMORY.md as team/x.md, and listed in team/MEMORY.md', async () => {
  const { results } = await applyOperations(memoryDir, [op('project_deploys.md')], options());
  expect(results.map((r) => r.ok)).toEqual([true]);
  expect(await read('MEMORY.md')).toBe('- [Mine](mine.md) — m\n- [Deploys](team/project_deploys.md) — no deploys on Fridays\n');
  expect(await read('team/MEMORY.md')).toBe('- [Deploys](project_deploys.md) — no deploys on Fridays\n');
});

it('after a crash between the file and its pointer, the retry adds the pointer to MEMORY.md as team/x.md', async () => {
  const o = op('project_deploys.md');
  await fs.writeFile(path.join(memoryDir, 'team', o.file), serializeTopicFile({ name: o.name, description: o.description, type: o.type }, o.body));
  const { results } = await applyOperations(memoryDir, [o], options());
  expect(results.map((r) => r.ok)).toEqual([true]);
  expect(await read('MEMORY.md')).toBe('- [Mine](mine.md) — m\n- [Deploys](team/project_deploys.md) — no deploys on Fridays\n');
});

it('a memory it creates where there is no MEMORY.md keeps the others listed: the index Claude Code would have built comes first (R-INDEX)', async () => {
  await fs.rm(path.join(memoryDir, 'MEMORY.md'));
  await fs.writeFile(path.join(memoryDir, 'mine.md'), '---\nname: mine\ndescription: my own habit\ntype: user\n---\nBody.\n');
  const { results } = await applyOperations(
    memoryDir,
    [
      { ...op('project_deploys.md'), scope: 'private' },
      { ...op('project_tests.md'), scope: 'private', name: 'Tests' },
    ],
    options(),
  );
  expect(results.map((r) => r.ok)).toEqual([true, true]);
  expect(await read('MEMORY.md')).toBe(
    '- [mine](mine.md) — my own habit\n- [Deploys](project_deploys.md) — no deploys on Fridays\n- [Tests](project_tests.md) — no deploys on Fridays\n',
  );
});

it('what a run wrote is said with one verb per kind, as the job log shows it: "Created a and b; updated c", not "created a, created b and updated c"', () => {
  const mine = (file: string, action: ExtractOperation['action']): ExtractOperation => ({ ...op(file), scope: 'private', action });
  expect(sayApplied([mine('feedback_ci.md', 'create'), op('project_deploys.md'), mine('user_role.md', 'update')])).toBe(
    'Created feedback_ci.md and team/project_deploys.md; updated user_role.md',
  );
  expect(sayApplied([mine('user_role.md', 'update'), mine('user_tools.md', 'update')])).toBe('Updated user_role.md and user_tools.md');
  expect(sayApplied([mine('feedback_ci.md', 'create')])).toBe('Created feedback_ci.md');
});
