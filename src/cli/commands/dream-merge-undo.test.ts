/**
 * A dream's record follows every directory a merge's turn changed (s38): undoing the "Undo merge"
 * entry from the other folder turns the merge in both, and the dream the merge undo had reverted
 * in this one is marked back — not left "reverted" with its changes in place.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DreamFixture, createDreamFixture, topic } from '../../main/dream/test-support/dream-fixture.js';
import { runCli } from '../main.js';

let fx: DreamFixture;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  fx = await createDreamFixture('memdir-cli-dream-merge-');
  await fs.mkdir(fx.dataDir, { recursive: true });
  env = { MEMDIR_DATA_DIR: fx.dataDir, CLAUDE_CONFIG_DIR: fx.home, PATH: path.join(fx.root, 'no-claude-here') };
});
afterEach(async () => {
  await fx.cleanup();
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; json: () => Record<string, unknown> }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: fx.root });
  return { code, out, err, json: () => JSON.parse(out) as Record<string, unknown> };
}

describe('memdir undo of a merge turn, from the other folder', () => {
  it('marks back the dream the merge undo had reverted in this folder: its changes are in place again', async () => {
    const old = path.join(fx.home, 'projects', '-work-old', 'memory');
    await fs.mkdir(old, { recursive: true });
    await fs.writeFile(path.join(old, 'project_x.md'), topic({ name: 'X', description: 'Launch', type: 'project' }, '昨天决定下周五上线。'));
    const merged = await cli('merge', '-work-old', fx.dir, '--yes', '--force', '--json');
    expect(merged.code).toBe(0);
    const id = (merged.json() as { record: { id: string } }).record.id;
    const dreamt = await cli('dream', '--project', fx.dir, '--offline', '--force', '--json');
    expect(dreamt.code).toBe(0);
    const dream = dreamt.json() as { id: string; changed: { file: string; action: string }[] };
    expect(dream.changed).toContainEqual(expect.objectContaining({ file: 'project_x.md', action: 'update' }));
    const dreamed = (await fx.read('project_x.md'))!;
    const recordOf = async () =>
      ((await cli('dream', 'list', '--project', fx.dir, '--json')).json() as { dreams: { id: string; revert: { rev: string } | null }[] }).dreams.find(
        (d) => d.id === dream.id,
      )!;

    // The merge undone anyway, over the dream: its change is gone here, and the record says reverted.
    const mergeUndone = await cli('merge', 'undo', id, '--overwrite-changed', '--json');
    expect(mergeUndone.err).toBe('');
    expect(mergeUndone.code).toBe(0);
    expect(await fx.read('project_x.md')).toBeNull();
    expect((await recordOf()).revert).not.toBeNull();

    // Undone from the other folder: the merge stands again in both, the dream's change is back here, and so is its record.
    const history = (await cli('history', '-work-old', '--json')).json() as { entries: { rev: string; summary: string }[] };
    const undoEntry = history.entries.find((e) => e.summary.startsWith(`Undo merge ${id}`))!;
    const redone = await cli('undo', '-work-old', undoEntry.rev, '--json');
    expect(redone.err).toBe('');
    expect(redone.code).toBe(0);
    expect(await fx.read('project_x.md')).toBe(dreamed);
    expect((await recordOf()).revert).toBeNull();
  });
});
