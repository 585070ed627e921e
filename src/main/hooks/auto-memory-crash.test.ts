/**
 * A turn only the transcript watcher saw (no Memdir hooks in the home) is owed on disk before its
 * run: an app killed between the turn's end and the run's end (a real SIGKILL of a real process)
 * leaves a note, and the next start extracts the turn — though the transcript never changes again,
 * and though the session was never read before (its last turn is the new one, not an older one).
 */
import fs from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleWorker, startWorker, type Worker } from '../../../bench/kill/harness.js';
import { AppContext } from '../app/app-context.js';
import { waitFor } from '../core/test-support/wait-for.js';
import { ExtractionStore } from '../extract/extraction-store.js';
import { EXTRACT_CONSUMER } from '../extract/extraction-run.js';
import { CursorStore } from '../transcripts/index.js';
import { type ExtractFixture, createExtractFixture, fakeProvider, operationsReply } from '../extract/test-support/extract-fixture.js';
import { type FakeAnthropic, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { updateAppSettings } from '../settings/app-settings.js';
import { AutoMemory } from './auto-memory.js';

let fx: ExtractFixture;
let fake: FakeAnthropic;
let worker: Worker | null = null;
const open: { auto: AutoMemory; ctx: AppContext }[] = [];

beforeEach(async () => {
  fx = await createExtractFixture('memdir-watch-crash-');
  fake = await startFakeAnthropic({ fallback: operationsReply() });
  // The shortest times allowed (an invalid patch writes nothing: idleCloseSeconds 3 left every setting at its default).
  expect((await updateAppSettings(fx.dataDir, { extraction: { mode: 'review', quietSeconds: 1, idleCloseSeconds: 5 } })).ok).toBe(true);
});
afterEach(async () => {
  if (worker && worker.child.exitCode === null && worker.child.signalCode === null) {
    worker.child.kill('SIGKILL');
    await worker.exit;
  }
  worker = null;
  for (const { auto, ctx } of open.splice(0)) {
    await auto.close();
    await ctx.close();
  }
  await fake.close();
  await fx.cleanup();
});

const dbMemory = {
  action: 'create',
  file: 'feedback_real_db.md',
  type: 'feedback',
  name: 'Real database',
  description: 'Integration tests use a real database',
  body: 'Mocks hid a migration bug.\n',
};

async function startApp(): Promise<{ auto: AutoMemory; ctx: AppContext }> {
  const ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
  const provider = await fakeProvider(fake, fx.dataDir);
  const auto = new AutoMemory(ctx, { provider: async () => provider });
  open.push({ auto, ctx });
  await auto.start();
  return { auto, ctx };
}

/** A session whose first turn ended before Memdir watched (its transcript's time in the past). */
async function sessionFromBefore(): Promise<ReturnType<ExtractFixture['builder']>> {
  const t = fx.builder();
  t.prompt('the deploy goes through staging').assistant('Understood.', { stopReason: 'end_turn' });
  await fs.writeFile(fx.transcript(), t.take());
  const past = new Date(Date.now() - 60_000);
  await fs.utimes(fx.transcript(), past, past);
  return t;
}

const mentions = (text: string) => fake.messageRequests().filter((r) => JSON.stringify(r.body?.messages ?? '').includes(text));

describe('a turn only the transcript watcher saw', () => {
  it('is extracted at the next start when the app was killed during its run, though the transcript never changes again', async () => {
    // A turn of this session ended before Memdir watched: never to be taken as new.
    const t = await sessionFromBefore();

    // The app runs without hooks; the model never answers the run it starts.
    fake.setHandler(() => ({ kind: 'hang' }));
    worker = await startWorker(await bundleWorker('src/main/hooks/test-support/watcher-app.ts'), [fx.home, fx.dataDir, fake.url]);
    t.prompt('we never mock the database in integration tests').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript(), t.take());
    // The watcher saw the turn end and its run is under way: the app is killed there.
    await waitFor(() => mentions('we never mock the database').length > 0, 15_000, "the killed app's run to send the watched turn to the model");
    worker.child.kill('SIGKILL');
    const [, signal] = await worker.exit;
    expect(signal).toBe('SIGKILL');

    // The next start, with the transcript as the killed app left it.
    fake.setHandler((request) =>
      JSON.stringify(request.body?.messages ?? '').includes('we never mock the database') ? operationsReply(dbMemory) : operationsReply(),
    );
    const before = fake.messageRequests().length;
    const { auto } = await startApp();
    const store = new ExtractionStore(fx.dataDir);
    const [proposal] = await waitFor(
      async () => {
        const pending = await store.listProposals();
        return pending.length > 0 ? pending : null;
      },
      15_000,
      "the next start's run to propose a memory of the turn the killed app owed",
    );
    await auto.extraction.idle();
    expect(proposal).toMatchObject({ operation: { file: 'feedback_real_db.md' } });
    // Only the turn that ended while Memdir watched was read; and it is owed no more.
    const sent = fake.messageRequests().slice(before);
    expect(sent.some((r) => JSON.stringify(r.body?.messages ?? '').includes('the deploy goes through staging'))).toBe(false);
    expect(await store.loadCarry()).toEqual({});
  });
});

// Review s44 #2/#3: the watcher's reports count no turn. A quiet report comes mid-turn whenever a
// tool runs longer than the quiet time; the turns from before Memdir watched are told by where the
// transcript ended when the watcher first saw it, so no number of reports makes them new.
describe("the watcher's reports of a session never read, whose new turn runs a tool longer than the quiet time", () => {
  beforeEach(async () => {
    // Quiet after 1 s, idle after 5 s (the least the settings take).
    await updateAppSettings(fx.dataDir, { extraction: { mode: 'review', quietSeconds: 1, idleCloseSeconds: 5 } });
  });
  const extractJobs = (ctx: AppContext) => ctx.jobs.list().filter((j) => j.kind === 'extract');
  const settled = (ctx: AppContext, n: number) => extractJobs(ctx).filter((j) => j.state === 'done' || j.state === 'failed').length >= n;

  /** The new turn up to its tool call, then (after a quiet report has come and its run ended) the rest. */
  async function turnWithLongTool(auto: AutoMemory, ctx: AppContext, t: ReturnType<ExtractFixture['builder']>, finalStop: string | null): Promise<void> {
    // Written once the watcher has seen the session as it was: what was there is from before.
    await auto.watching();
    t.prompt('we never mock the database in integration tests');
    t.assistant([{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }], { stopReason: 'tool_use' });
    await fs.appendFile(fx.transcript(), t.take());
    // The tool still runs: the transcript is quiet, and the watcher reports it mid-turn.
    await waitFor(() => settled(ctx, 1), 15_000, 'the run of the quiet report that came mid-turn to end');
    t.toolResult('toolu_1', 'all tests pass');
    t.assistant('Noted.', { stopReason: finalStop });
    await fs.appendFile(fx.transcript(), t.take());
  }

  it('in process: the older turn is never sent, and a last answer without a stop reason is extracted once the session is idle', async () => {
    const t = await sessionFromBefore();
    fake.setHandler((request) =>
      JSON.stringify(request.body?.messages ?? '').includes('we never mock the database') ? operationsReply(dbMemory) : operationsReply(),
    );
    const { auto, ctx } = await startApp();
    // Claude Code often leaves stop_reason null on the last answer: only the idle report ends that turn.
    await turnWithLongTool(auto, ctx, t, null);
    const store = new ExtractionStore(fx.dataDir);
    await waitFor(async () => (await store.listProposals()).length > 0, 15_000, 'the idle report to have the new turn extracted');
    await auto.extraction.idle();
    expect(mentions('the deploy goes through staging')).toEqual([]);
    expect(await store.listProposals()).toMatchObject([{ operation: { file: 'feedback_real_db.md' } }]);
    expect(await store.loadCarry()).toEqual({});
  });

  it("after a restart: killed during the finished turn's run, the next start extracts the new turn and never the older one", async () => {
    const t = await sessionFromBefore();
    fake.setHandler(() => ({ kind: 'hang' }));
    worker = await startWorker(await bundleWorker('src/main/hooks/test-support/watcher-app.ts'), [fx.home, fx.dataDir, fake.url]);
    t.prompt('we never mock the database in integration tests');
    t.assistant([{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }], { stopReason: 'tool_use' });
    await fs.appendFile(fx.transcript(), t.take());
    // The tool still runs: the quiet report's run reads no turn, and marks the older one as from before.
    const cursors = new CursorStore(fx.dataDir);
    await waitFor(async () => (await cursors.load(fx.transcript(), EXTRACT_CONSUMER)).status !== 'absent', 15_000, 'the mid-turn run to pass the older turn');
    t.toolResult('toolu_1', 'all tests pass');
    t.assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript(), t.take());
    await waitFor(() => mentions('we never mock the database').length > 0, 15_000, "the finished turn's run to ask the model");
    worker.child.kill('SIGKILL');
    await worker.exit;

    fake.setHandler((request) =>
      JSON.stringify(request.body?.messages ?? '').includes('we never mock the database') ? operationsReply(dbMemory) : operationsReply(),
    );
    const store = new ExtractionStore(fx.dataDir);
    const { auto } = await startApp();
    await waitFor(async () => (await store.listProposals()).length > 0, 15_000, "the next start's run to propose a memory of the new turn");
    await auto.extraction.idle();
    expect(mentions('the deploy goes through staging')).toEqual([]);
    expect(await store.loadCarry()).toEqual({});
  });
});

// Review s44 #3 (should-fix): a transcript that appears whole once the watcher runs (`claude
// --resume`/`--fork-session` writing the session anew, a copied or synced ~/.claude/projects) is a
// past session: only its latest turn is new, as for one seen by the first scan.
describe('a transcript that appears whole while the app runs (no hooks)', () => {
  it('has only its latest turn sent to the model, never the whole past session', async () => {
    fake.setHandler((request) =>
      JSON.stringify(request.body?.messages ?? '').includes('we never mock the database') ? operationsReply(dbMemory) : operationsReply(),
    );
    const { auto, ctx } = await startApp();
    await auto.watching();
    const t = fx.builder('session-resumed');
    t.prompt('the deploy goes through staging').assistant('Understood.', { stopReason: 'end_turn' });
    t.prompt('the logs live in the ops bucket').assistant('Got it.', { stopReason: 'end_turn' });
    t.prompt('we never mock the database in integration tests').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript('session-resumed'), t.take());

    const store = new ExtractionStore(fx.dataDir);
    await waitFor(async () => (await store.listProposals()).length > 0, 15_000, 'the latest turn of the appeared transcript to be extracted');
    await auto.extraction.idle();
    await waitFor(
      () => ctx.jobs.list().every((j) => j.kind !== 'extract' || j.state === 'done' || j.state === 'failed'),
      15_000,
      'every extraction run to end',
    );
    expect(mentions('we never mock the database').length).toBeGreaterThan(0);
    expect(mentions('the deploy goes through staging')).toEqual([]);
    expect(mentions('the logs live in the ops bucket')).toEqual([]);
  });
});

// Issue s45: without hooks, what a session wrote while the app was closed (here: killed) is caught
// up at the next start through the same note on disk, so a kill during that run loses nothing.
describe('a turn that ended while the app was closed (no hooks)', () => {
  it('is extracted once after the app that started on it is killed during its run, and the older turn never', async () => {
    const t = await sessionFromBefore();
    // An app watched the home, then was killed with nothing to do.
    worker = await startWorker(await bundleWorker('src/main/hooks/test-support/watcher-app.ts'), [fx.home, fx.dataDir, fake.url]);
    await waitFor(() => fs.stat(`${fx.dataDir}/extract/watched.json`).then(Boolean, () => false), 15_000, 'the watcher to record that it watched');
    worker.child.kill('SIGKILL');
    await worker.exit;

    // While it is closed, the session goes on; the app starts later.
    t.setTime(new Date().toISOString()).prompt('we never mock the database in integration tests').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript(), t.take());
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const changed = (await fs.stat(fx.transcript())).mtimeMs;

    // The next start takes the turn up; it is killed while the model answers — once its watcher
    // recorded that it watched well past the change (the idle report settled, its note on disk), so
    // the start after it does not catch the transcript up again: only the note can save the turn
    // (review s45-3 #3: killed sooner, the test passed with no note ever written).
    fake.setHandler(() => ({ kind: 'hang' }));
    worker = await startWorker(await bundleWorker('src/main/hooks/test-support/watcher-app.ts'), [fx.home, fx.dataDir, fake.url, '200']);
    await waitFor(() => mentions('we never mock the database').length > 0, 15_000, 'the start after the close to send the new turn to the model');
    await waitFor(
      async () => ((await new ExtractionStore(fx.dataDir).loadWatched(fx.home)) ?? 0) > changed + 6_000,
      20_000,
      'the watcher to record that it watched past the change',
    );
    worker.child.kill('SIGKILL');
    await worker.exit;

    fake.setHandler((request) =>
      JSON.stringify(request.body?.messages ?? '').includes('we never mock the database') ? operationsReply(dbMemory) : operationsReply(),
    );
    const before = fake.messageRequests().length;
    const store = new ExtractionStore(fx.dataDir);
    const { auto } = await startApp();
    await waitFor(async () => (await store.listProposals()).length > 0, 15_000, "the next start's run to propose a memory of the new turn");
    await auto.extraction.idle();
    const sent = fake.messageRequests().slice(before);
    expect(sent.filter((r) => JSON.stringify(r.body?.messages ?? '').includes('we never mock the database'))).toHaveLength(1);
    expect(mentions('the deploy goes through staging')).toEqual([]);
    expect(await store.loadCarry()).toEqual({});
  });
});
