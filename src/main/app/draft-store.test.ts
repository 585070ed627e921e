// Drafts of one memory typed in two windows (review x1 F6): the second never silently replaces the first's.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredDraft } from '../../shared/contract/drafts.js';
import { keepDraft, listDrafts } from './draft-store.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-drafts-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

const draft = (description: string, window: string, over: string | null = null): Omit<StoredDraft, 'savedAt'> & { over: string | null } => ({
  dir: '-w-proj',
  scope: 'private',
  file: 'a.md',
  memoryDir: '/m',
  baseText: 'x',
  name: 'A',
  description,
  type: 'feedback',
  body: 'aaa',
  newFile: '',
  frontmatter: null,
  window,
  over,
});

describe('a draft of a memory another window is editing', () => {
  it("is refused with a sentence, the other window's draft kept; kept over it once this window has seen it", async () => {
    const first = await keepDraft(dataDir, draft('E1 typed in window 1', 'w1'), 1_000);
    // Window 1 goes on typing over its own draft.
    await keepDraft(dataDir, draft('E1 typed in window 1, more', 'w1', first.savedAt), 2_000);
    await expect(keepDraft(dataDir, draft('E2 typed in window 2', 'w2'), 3_000)).rejects.toMatchObject({
      code: 'conflict',
      message: 'Another window has an unsaved draft of a.md: this edit was not kept over it, and is only in this window.',
    });
    expect((await listDrafts(dataDir)).map((d) => d.description)).toEqual(['E1 typed in window 1, more']);
    const seen = (await listDrafts(dataDir))[0]!;
    await keepDraft(dataDir, draft('E2 typed in window 2', 'w2', seen.savedAt), 4_000);
    expect((await listDrafts(dataDir)).map((d) => d.description)).toEqual(['E2 typed in window 2']);
    // Window 1 is told in turn on its next keystroke.
    await expect(keepDraft(dataDir, draft('E1 again', 'w1', seen.savedAt), 5_000)).rejects.toMatchObject({ code: 'conflict' });
  });
});
