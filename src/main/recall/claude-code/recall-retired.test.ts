/**
 * A retired team memory (0 bytes, as Retire leaves it) and a frontmatter-only one in Claude Code
 * 2.1.332's recall, replayed from what the real client offered its selector
 * (test/fixtures/claude-code/recall-retired-2.1.332.json, captured with captureClaudeCodeRecall):
 * the client offers both, the empty one by its path alone. Memdir's replica offers them the same
 * way, so it never says the agent cannot see a retired memory. Always runs: no binary needed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { scanLikeClaudeCode } from './scan-memories.js';
import { manifestLine } from './selector-request.js';

const FIXTURE = path.join(import.meta.dirname, '../../../../test/fixtures/claude-code/recall-retired-2.1.332.json');
const recording = JSON.parse(await fs.readFile(FIXTURE, 'utf8')) as { files: Record<string, string>; offered: string[] };

let root: string | null = null;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = null;
});

it('offers a retired (0-byte) team memory by its path and a frontmatter-only one by its description, as Claude Code 2.1.332 did', async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-recall-retired-'));
  await fs.mkdir(path.join(root, 'team'));
  for (const [file, text] of Object.entries(recording.files)) await fs.writeFile(path.join(root, file), text);
  const { memories } = await scanLikeClaudeCode(root);
  const offered = memories.map((m) =>
    manifestLine(m)
      .slice(2)
      .replace(/\(\d{4}-[^)]*Z\)/, '(<time>)'),
  );
  expect(offered.sort()).toEqual([...recording.offered].sort());
});
