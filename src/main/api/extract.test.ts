/** The extraction, session and hooks calls through the dispatcher: inputs and outputs validated by the contract. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { type FakeAnthropic, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { extractTranscript } from '../extract/extract-memories.js';
import { type ExtractFixture, createExtractFixture, fakeProvider, operationsReply } from '../extract/test-support/extract-fixture.js';
import { SessionMemory } from '../session/session-memory.js';
import { updateAppSettings } from '../settings/app-settings.js';
import type { Dispatcher } from './dispatch.js';
import { createAppDispatcher } from './index.js';

let fx: ExtractFixture;
let fake: FakeAnthropic;
let ctx: AppContext;
let api: Dispatcher;

beforeEach(async () => {
  fx = await createExtractFixture('memdir-api-extract-');
  fake = await startFakeAnthropic();
  ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
  api = createAppDispatcher(ctx);
});
afterEach(async () => {
  await ctx.close();
  await fake.close();
  await fx.cleanup();
});

async function ok<T>(name: string, input: unknown): Promise<T> {
  const result = await api.call(name, input);
  if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
  return result.result as T;
}

describe('review queue calls', () => {
  it('list, accept edited, reject, and show the log', async () => {
    fake.enqueue(
      operationsReply(
        { action: 'create', file: 'feedback_a.md', type: 'feedback', name: 'A', description: 'first', body: 'a\n' },
        { action: 'create', file: 'feedback_b.md', type: 'feedback', name: 'B', description: 'second', body: 'b\n' },
      ),
    );
    await fs.writeFile(fx.transcript(), fx.builder().prompt('two things').assistant('ok', { stopReason: 'end_turn' }).take());
    await extractTranscript({
      home: fx.home,
      dataDir: fx.dataDir,
      env: {},
      transcriptPath: fx.transcript(),
      provider: await fakeProvider(fake, fx.dataDir),
      mode: 'review',
      trigger: 'test',
    });

    const queue = await ok<{
      proposals: { id: string; operation: { file: string; name: string; type: string; scope: string; description: string; body: string } }[];
      pending: Record<string, number>;
    }>('extract.queue', {});
    expect(queue.pending).toEqual({ [fx.dir]: 2 });
    const [a, b] = queue.proposals.sort((x, y) => x.operation.file.localeCompare(y.operation.file));
    const accepted = await ok<{ proposal: { status: string; edited: boolean } }>('extract.accept', {
      id: a!.id,
      edit: { ...a!.operation, name: 'A (edited)' },
    });
    expect(accepted.proposal).toMatchObject({ status: 'accepted', edited: true });
    expect(await fs.readFile(path.join(fx.memoryDir, 'feedback_a.md'), 'utf8')).toContain('name: A (edited)');
    await ok('extract.reject', { id: b!.id, reason: 'not useful' });
    expect(await api.call('extract.reject', { id: b!.id })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await api.call('extract.accept', { id: 'prop-nope-00' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(await api.call('extract.accept', { id: a!.id, edit: { ...a!.operation, name: '' } })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect((await ok<{ proposals: unknown[] }>('extract.queue', { dir: fx.dir })).proposals).toEqual([]);
    const log = await ok<{ entries: { kind: string }[] }>('extract.log', { dir: fx.dir });
    expect(log.entries.map((e) => e.kind)).toEqual(['decision', 'decision', 'turns']);
  });

  it('"Extract now" runs as a background job, and refuses an unknown project', async () => {
    await fs.writeFile(fx.transcript(), fx.builder().prompt('hi').assistant('ok', { stopReason: 'end_turn' }).take());
    await updateAppSettings(fx.dataDir, { model: { provider: 'offline' } });
    const run = await ok<{ started: boolean; jobId: string }>('extract.run', { dir: fx.dir });
    expect(run.started).toBe(true);
    await ctx.jobs.settle(run.jobId);
    expect(ctx.jobs.get(run.jobId)).toMatchObject({ state: 'done', kind: 'extract' });
    expect(await api.call('extract.run', { dir: '-nope' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });
});

describe('sessions calls', () => {
  it('list live sessions and force an update', async () => {
    const t = fx.builder();
    t.prompt('work').assistant('ok', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript(), t.take());
    await new SessionMemory({ home: fx.home, dataDir: fx.dataDir }).observe(fx.transcript());
    const list = await ok<{ sessions: { sessionId: string; due: boolean; note: string | null }[] }>('sessions.list', {});
    expect(list.sessions).toEqual([expect.objectContaining({ sessionId: 'session-1', due: false, note: null })]);
    const updated = await ok<{ session: { updates: number; note: string } }>('sessions.update', { sessionId: 'session-1' });
    expect(updated.session).toMatchObject({ updates: 1, note: expect.stringContaining('## Current task') });
    expect(await api.call('sessions.update', { sessionId: 'gone' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  // s45 walk: Claude Code was working when Memdir opened; `memdir session status` listed the session (active 1 s
  // ago) while the app's Live sessions said "No live session" until the transcript changed again.
  it('lists a session Claude Code wrote to just before the app looked, as `memdir session status` does', async () => {
    await fs.writeFile(fx.transcript(), fx.builder().prompt('work').assistant('ok', { stopReason: 'end_turn' }).take());
    const list = await ok<{ sessions: { sessionId: string }[] }>('sessions.list', {});
    expect(list.sessions.map((s) => s.sessionId)).toEqual(['session-1']);
    // An old transcript (quiet longer than Settings → Session Memory's idle time) is no live session.
    const old = new Date(Date.now() - 5 * 3600_000);
    await fs.utimes(fx.transcript(), old, old);
    expect((await ok<{ sessions: unknown[] }>('sessions.list', {})).sessions).toEqual([]);
  });
});

describe('hooks calls', () => {
  it('plan shows the diff, apply writes it only for the file the plan was made from', async () => {
    await fs.writeFile(path.join(fx.home, 'settings.json'), '{\n  "model": "opus"\n}\n');
    expect(await ok('hooks.status', {})).toMatchObject({ connected: 'none', exists: true, listening: false });
    const plan = await ok<{ diff: string; baseHash: string; changed: boolean }>('hooks.plan', { action: 'connect' });
    expect(plan.changed).toBe(true);
    expect(plan.diff).toContain('# memdir hook Stop');
    expect(plan.diff).toContain('hook SessionStart --data-dir');
    expect(await api.call('hooks.apply', { action: 'connect', baseHash: 'stale' })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    const applied = await ok<{ status: { connected: string }; backup: string }>('hooks.apply', { action: 'connect', baseHash: plan.baseHash });
    expect(applied).toMatchObject({ status: { connected: 'all' }, backup: expect.stringContaining('memdir-backup') });
    const undo = await ok<{ baseHash: string }>('hooks.plan', { action: 'disconnect' });
    await ok('hooks.apply', { action: 'disconnect', baseHash: undo.baseHash });
    expect(await fs.readFile(path.join(fx.home, 'settings.json'), 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    await fs.writeFile(path.join(fx.home, 'settings.json'), '{ broken');
    expect(await ok('hooks.plan', { action: 'connect' })).toMatchObject({ changed: false, problems: [expect.stringContaining('not valid JSON')] });
  });
});

describe('Claude Code settings calls', () => {
  it('the autoDreamEnabled switch writes one value and reads it back; a broken file is refused in words', async () => {
    const file = path.join(fx.home, 'settings.json');
    await fs.writeFile(file, '{\n  "model": "opus"\n}\n');
    expect(await ok('claudeSettings.autoDream', {})).toMatchObject({ settingsFile: file, value: null, problems: [] });
    expect(await ok('claudeSettings.setAutoDream', { enabled: false })).toMatchObject({
      value: false,
      inForce: false,
      changed: true,
      backup: `${file}.memdir-backup`,
    });
    expect(await fs.readFile(file, 'utf8')).toBe('{\n  "model": "opus",\n  "autoDreamEnabled": false\n}\n');
    await fs.writeFile(file, '{ broken');
    expect(await api.call('claudeSettings.setAutoDream', { enabled: true })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', message: expect.stringContaining('not valid JSON') },
    });
    expect(await api.call('claudeSettings.setAutoDream', { enabled: 'yes' })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
  });
});
