// Drafts of one memory typed in two windows (review x1 F6): the second never silently replaces the
// first's; a save in one never deletes the other's. Also through the real host over HTTP
// (loopback), as two pages of the headless host send drafts.keep and drafts.discard, concurrently.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredDraft } from '../../shared/contract/drafts.js';
import { createAppDispatcher } from '../api/index.js';
import { startHost, type RunningHost } from '../shell/host/host-server.js';
import { AppContext } from './app-context.js';
import { keepDraft, listDrafts } from './draft-store.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-drafts-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

const draft = (description: string, window: string, over: string | null = null, file = 'a.md'): Omit<StoredDraft, 'savedAt'> & { over: string | null } => ({
  dir: '-w-proj',
  scope: 'private',
  file,
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

let root: string;
let ctx: AppContext;
let host: RunningHost;

type Answer = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

async function call(name: string, input: unknown): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${host.port}/api/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, input }),
  });
  return (await res.json()) as Answer;
}

const storedDescriptions = async (): Promise<string[]> => {
  const answer = await call('drafts.list', {});
  if (!answer.ok) throw new Error(answer.error.message);
  return (answer.result as { drafts: { description: string }[] }).drafts.map((d) => d.description);
};

describe('over HTTP', () => {
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-drafts-host-'));
    const staticDir = path.join(root, 'renderer');
    await fs.mkdir(staticDir, { recursive: true });
    await fs.writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>Memdir</title>');
    ctx = await AppContext.create({ homeFlag: path.join(root, 'home'), dataDir: path.join(root, 'data'), env: {} });
    host = await startHost({ dispatcher: createAppDispatcher(ctx), staticDir });
  });
  afterAll(async () => {
    await host.close();
    await ctx.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  describe('drafts of one memory from two windows', () => {
    it('two windows keeping a first draft of a file at the same moment: one is kept, the other is told — never both "kept"', async () => {
      for (let i = 0; i < 12; i++) {
        const file = `race${i}.md`;
        const answers = await Promise.all([call('drafts.keep', draft(`W1 ${i}`, 'w1', null, file)), call('drafts.keep', draft(`W2 ${i}`, 'w2', null, file))]);
        const kept = answers.filter((a) => a.ok);
        expect(kept, `${file}: ${JSON.stringify(answers)}`).toHaveLength(1);
        const refused = answers.find((a) => !a.ok);
        expect(refused).toMatchObject({ ok: false, error: { code: 'conflict' } });
        // What is stored is the one draft that was said to be kept.
        const keptDescription = (kept[0] as { result: { draft: { description: string } } }).result.draft.description;
        expect(await storedDescriptions()).toContain(keptDescription);
        expect(await storedDescriptions()).not.toContain(keptDescription.startsWith('W1') ? `W2 ${i}` : `W1 ${i}`);
      }
    });

    it("a save in one window removes only that window's draft: another window's unsaved draft of the file stays", async () => {
      const theirs = await call('drafts.keep', draft('typed in window B', 'wB', null, 'sql.md'));
      expect(theirs.ok).toBe(true);
      // Window A saved sql.md: it forgets its own draft, never B's.
      expect(await call('drafts.discard', { dir: '-w-proj', scope: 'private', file: 'sql.md', window: 'wA', over: null })).toEqual({
        ok: true,
        result: { discarded: false },
      });
      expect(await storedDescriptions()).toContain('typed in window B');
      // B's own save (or a draft A has seen: over its savedAt) does remove it.
      const seen = (theirs as { result: { draft: { savedAt: string } } }).result.draft.savedAt;
      expect(await call('drafts.discard', { dir: '-w-proj', scope: 'private', file: 'sql.md', window: 'wA', over: seen })).toEqual({
        ok: true,
        result: { discarded: true },
      });
      expect(await storedDescriptions()).not.toContain('typed in window B');
    });
  });
});
