/**
 * The editor's own deletes and renames are not "changed on disk" (issue 14's drafts): the
 * watcher's event for the file Memdir itself just removed must not keep what was shown as a
 * draft. Driven through the transport's seam (setTransport): a host whose file is deleted by the
 * call, whose change event the test delivers at the moment a real one can arrive.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MemoryDoc } from '../../shared/contract/memories.js';
import type { Transport, WireResult } from '../transport/transport.js';

const doc = (file: string): MemoryDoc => ({
  file,
  memoryDir: '/home/u/.claude/projects/-work-app/memory',
  text: `---\nname: ${file}\ndescription: d\ntype: feedback\n---\nbody\n`,
  name: file,
  description: 'd',
  type: 'feedback',
  rawType: null,
  frontmatter: 'name: x',
  frontmatterError: null,
  missingFields: [],
  body: 'body\n',
  layout: 'flat',
  otherKeys: [],
  problems: [],
  mtimeMs: 1,
  heldByServer: false,
});

/** A host with one memory, `foo.md`; `during(name)` runs while that call is being answered (a watcher event arriving then). */
async function editorOnAHost(during: (name: string) => Promise<void> | void) {
  vi.resetModules();
  const files = new Set(['foo.md']);
  const asked: string[] = [];
  const answer = (result: unknown): WireResult => ({ ok: true, result });
  const transport: Transport = {
    kind: 'host',
    async call(name, input): Promise<WireResult> {
      asked.push(name);
      const file = (input as { file?: string }).file ?? '';
      if (name === 'drafts.list') return answer({ drafts: [] });
      if (name === 'memories.read')
        return files.has(file) ? answer(doc(file)) : { ok: false, error: { code: 'not-found', message: `There is no memory named ${file}.` } };
      if (name === 'memories.delete') files.delete(file);
      if (name === 'memories.rename') {
        const { from, to } = input as { from: string; to: string };
        files.delete(from);
        files.add(to);
      }
      await during(name);
      if (name === 'memories.delete' || name === 'memories.rename') return answer({ file: (input as { to?: string }).to ?? file, rev: 'r1' });
      if (name === 'drafts.discard') return answer({ discarded: false });
      if (name === 'drafts.keep') return answer({ draft: { ...(input as object), savedAt: new Date().toISOString() } });
      return { ok: false, error: { code: 'unavailable', message: 'Not in this test.' } };
    },
    subscribe: () => () => undefined,
  };
  const { setTransport } = await import('../transport/transport.js');
  setTransport(transport);
  const { useEditor } = await import('./editor.js');
  const { useDrafts } = await import('./drafts.js');
  await useEditor.getState().open({ dir: '-work-app', scope: 'private', file: 'foo.md' }, { memoryDir: doc('foo.md').memoryDir });
  return { useEditor, useDrafts, asked };
}

describe("the editor's own delete and rename leave no draft behind", () => {
  beforeEach(() => vi.resetModules());

  for (const moment of ['memories.delete', 'drafts.discard']) {
    it(`Delete, with the watcher's event arriving while ${moment} is answered: no draft`, async () => {
      let editor: Awaited<ReturnType<typeof editorOnAHost>>['useEditor'] | null = null;
      const host = await editorOnAHost(async (name) => {
        if (name === moment) editor!.getState().noteChangedOnDisk();
      });
      editor = host.useEditor;
      expect(await host.useEditor.getState().remove()).toBe(true);
      await host.useDrafts.getState().flush();
      expect(host.asked).not.toContain('drafts.keep');
      expect(host.useDrafts.getState().drafts).toEqual({});
    });
  }

  for (const moment of ['memories.rename', 'drafts.discard'])
    it(`Rename, with the watcher's event arriving while ${moment} is answered: no draft for either name`, async () => {
      let editor: Awaited<ReturnType<typeof editorOnAHost>>['useEditor'] | null = null;
      const host = await editorOnAHost(async (name) => {
        if (name === moment) editor!.getState().noteChangedOnDisk();
      });
      editor = host.useEditor;
      expect(await host.useEditor.getState().rename('bar.md')).toBe('bar.md');
      await host.useDrafts.getState().flush();
      expect(host.asked).not.toContain('drafts.keep');
      expect(host.useDrafts.getState().drafts).toEqual({});
    });
});

describe('a draft the disk refused', () => {
  beforeEach(() => vi.resetModules());

  it("says the host's sentence with its full stop, then that the draft is still in the editor", async () => {
    const full = "Cannot take Memdir's lock: the disk holding /d/locks is full — free some space and try again";
    const transport: Transport = {
      kind: 'host',
      async call(name): Promise<WireResult> {
        if (name === 'drafts.list') return { ok: true, result: { drafts: [] } };
        return { ok: false, error: { code: 'unavailable', message: full } };
      },
      subscribe: () => () => undefined,
    };
    const { setTransport } = await import('../transport/transport.js');
    setTransport(transport);
    const { useDrafts } = await import('./drafts.js');
    const { useToasts } = await import('./toasts.js');
    const draft = { dir: '-work-app', scope: 'private' as const, file: 'foo.md', memoryDir: doc('foo.md').memoryDir, baseText: doc('foo.md').text };
    useDrafts.getState().keep({ ...draft, name: 'foo', description: 'd', type: 'feedback', body: 'typed', newFile: '', frontmatter: null });
    await useDrafts.getState().flush();
    expect(useToasts.getState().toasts.map((t) => t.text)).toEqual([`Your draft could not be kept: ${full}. It is still in the editor.`]);
  });
});
