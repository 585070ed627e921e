import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { type FakeAnthropic, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { updateAppSettings } from '../settings/app-settings.js';
import { ExtractionStore } from '../extract/extraction-store.js';
import { type ExtractFixture, createExtractFixture, fakeProvider, operationsReply } from '../extract/test-support/extract-fixture.js';
import { AutoMemory } from './auto-memory.js';
import { HOOK_LOG_FILE, runHook, spoolDir } from '../hook-spool/index.js';
import { applyHooksChange, planHooksChange, readHooksStatus } from './claude-settings-hooks.js';
import { userSettingsFile } from '../settings/claude-settings-file.js';
import { waitFor } from '../core/test-support/wait-for.js';

let fx: ExtractFixture;
let fake: FakeAnthropic;
let ctx: AppContext;
let auto: AutoMemory;

beforeEach(async () => {
  fx = await createExtractFixture('memdir-auto-');
  fake = await startFakeAnthropic();
  fake.setHandler((request) => {
    const prompt = JSON.stringify(request.body?.messages ?? '');
    return prompt.includes('integration tests')
      ? operationsReply({
          action: 'create',
          file: 'feedback_real_db.md',
          type: 'feedback',
          name: 'Real database',
          description: 'Integration tests use a real database',
          body: 'Mocks hid a migration bug.\n',
        })
      : operationsReply();
  });
  await updateAppSettings(fx.dataDir, { extraction: { mode: 'review', quietSeconds: 1, idleCloseSeconds: 5 } });
  ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
  const provider = await fakeProvider(fake, fx.dataDir);
  auto = new AutoMemory(ctx, { provider: async () => provider });
});
afterEach(async () => {
  await auto.close();
  await ctx.close();
  await fake.close();
  await fx.cleanup();
});

const pending = () => new ExtractionStore(fx.dataDir).listProposals();
/** The model requests of extraction runs (Session Memory asks the model for its note too). */
const extractionRequests = () => fake.messageRequests().filter((r) => !JSON.stringify(r.body?.system).includes('Session Memory note'));
const hook = (event: string, over: Record<string, unknown> = {}) =>
  runHook({
    event,
    stdin: Readable.from([
      Buffer.from(JSON.stringify({ session_id: 'session-1', transcript_path: fx.transcript(), cwd: fx.cwd, hook_event_name: event, ...over })),
    ]),
    env: {},
    dataDir: fx.dataDir,
  });

async function writeTurn(prompt: string, tools = 0): Promise<void> {
  const t = fx.builder();
  t.prompt(prompt);
  for (let i = 0; i < tools; i++)
    t.assistant([{ type: 'tool_use', id: `${prompt}-${i}`, name: 'Bash', input: { command: 'ls' } }], {
      usage: { cache_read_input_tokens: 12_000 },
    }).toolResult(`${prompt}-${i}`, 'ok');
  // No stop reason, as Claude Code often writes while streaming: only the Stop hook ends the turn.
  t.assistant(`Noted: ${prompt}`, { usage: { cache_read_input_tokens: 12_000 } });
  await fs.appendFile(fx.transcript(), t.take());
}

describe('AutoMemory in the running app', () => {
  it('processes hook events spooled while the app was closed, at start: every turn that ended meanwhile', async () => {
    await writeTurn('an old turn, before the hooks');
    await fs.appendFile(fx.transcript(), fx.builder().prompt('next').take());
    for (const prompt of ['first', 'we never mock the database in integration tests']) {
      await writeTurn(prompt);
      expect((await hook('Stop')).outcome).toBe('spooled');
    }
    await auto.start();
    const [proposal] = await waitFor(async () => ((await pending()).length > 0 ? pending() : null));
    expect(proposal).toMatchObject({ kind: 'proposal', operation: { file: 'feedback_real_db.md' }, project: fx.dir });
    expect(await fs.readdir(spoolDir(fx.dataDir))).toEqual([]);
    const log = await new ExtractionStore(fx.dataDir).readLog();
    expect(log.every((e) => e.kind === 'turns' && e.trigger === 'spool')).toBe(true);
    // The two spooled turn ends went to the model for extraction; what came before them did not.
    const sent = JSON.stringify(extractionRequests().map((r) => r.body?.messages));
    expect(sent).toContain('first');
    expect(sent).not.toContain('an old turn');
  });

  it('takes Stop from the spool as it arrives: the turn is extracted and Session Memory counts it', async () => {
    await auto.start();
    await writeTurn('we never mock the database in integration tests', 3);
    expect((await hook('Stop')).outcome).toBe('spooled');
    await waitFor(async () => (await pending()).length === 1);
    const session = await waitFor(async () => (await auto.sessions.list())[0]);
    expect(session).toMatchObject({ sessionId: 'session-1', updates: 1, method: 'offline' });
    await waitFor(async () => ctx.jobs.list().some((j) => j.kind === 'extract' && j.state === 'done'));
    expect((await new ExtractionStore(fx.dataDir).readLog())[0]).toMatchObject({ trigger: 'hook' });
    expect(await fs.readdir(spoolDir(fx.dataDir))).toEqual([]);

    // PreCompact forces a note update; SessionEnd marks the session ended and keeps the note for a resume.
    expect((await hook('PreCompact', { trigger: 'auto' })).outcome).toBe('spooled');
    await waitFor(async () => (await auto.sessions.list())[0]?.updates === 2);
    expect((await hook('SessionEnd', { reason: 'logout' })).outcome).toBe('spooled');
    await waitFor(async () => (await auto.sessions.list())[0]?.endedAt);
    await fs.stat(path.join(fx.dataDir, 'session-memory', 'session-memory-session-1.md'));
  });

  it('takes an event spooled while the start reads the spool at once, not at the next poll', async () => {
    await writeTurn('first');
    expect((await hook('Stop')).outcome).toBe('spooled');
    // The start's own read of the spool is done; the next event lands before anything else runs.
    const drain = auto.drainSpool.bind(auto);
    let first = true;
    auto.drainSpool = async (via) => {
      await drain(via);
      if (via === 'spool' && first) {
        first = false;
        expect((await hook('SessionEnd', { reason: 'logout' })).outcome).toBe('spooled');
      }
    };
    await auto.start();
    // The poll comes every 30 s: only a watch set before that read takes it this soon.
    await waitFor(async () => (await fs.readdir(spoolDir(fx.dataDir))).length === 0);
    expect(first).toBe(false);
  });

  it('leaves the spool to another app already running on the same data dir', async () => {
    const other = new AutoMemory(ctx);
    await other.start();
    try {
      await auto.start();
      expect(auto.channelProblem).toContain('Another Memdir');
      expect(auto.listening).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('without hooks, the watcher ends a turn after the transcript goes quiet', async () => {
    // Started means watching: a transcript written at once is seen (no wait for the watcher's first scan).
    await auto.start();
    const t = fx.builder();
    t.prompt('we never mock the database in integration tests').assistant('Understood.', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript(), t.take());
    const [proposal] = await waitFor(async () => ((await pending()).length > 0 ? pending() : null));
    expect(proposal).toMatchObject({ operation: { file: 'feedback_real_db.md' } });
    expect((await new ExtractionStore(fx.dataDir).readLog())[0]).toMatchObject({ trigger: 'watcher' });
  });

  // Issue s45: without hooks, the turns of sessions that ran while Memdir was closed were taken only
  // when the session changed again, and a session started meanwhile never (its size at first sight
  // counted as history). A session from before Memdir ever watched stays history.
  it('without hooks, the next start extracts once what sessions did while the app was closed, and no older history', async () => {
    const sent = () => JSON.stringify(fake.messageRequests().map((r) => r.body?.messages));
    const times = (text: string) => fake.messageRequests().filter((r) => JSON.stringify(r.body?.messages ?? '').includes(text)).length;
    // A session from before Memdir ever watched.
    const old = fx.builder('old');
    old.prompt('the deploy goes through staging').assistant('Understood.', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript('old'), old.take());
    const past = new Date(Date.now() - 60_000);
    await fs.utimes(fx.transcript('old'), past, past);
    // The app runs: a turn of a live session is extracted.
    await auto.start();
    await auto.watching();
    const live = fx.builder('live').setTime(new Date().toISOString());
    live.prompt('the live turn while watched').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript('live'), live.take());
    await waitFor(() => times('the live turn while watched') > 0, 15_000, 'the live turn to be extracted');
    await auto.close();

    // While the app is closed: the live session goes on, the old one is resumed, a new one starts.
    live.setTime(new Date().toISOString()).prompt('the closed-time turn of the live session').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript('live'), live.take());
    old.setTime(new Date().toISOString()).prompt('the resumed turn of the old session').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript('old'), old.take());
    const fresh = fx.builder('fresh').setTime(new Date().toISOString());
    fresh.prompt('we never mock the database in integration tests').assistant('Understood.', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript('fresh'), fresh.take());
    // The app starts later: what was written meanwhile is older than its start (by more than the
    // watcher's allowance for a coarse file clock), as after a night.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const provider = await fakeProvider(fake, fx.dataDir);
    auto = new AutoMemory(ctx, { provider: async () => provider });
    await auto.start();
    const [proposal] = await waitFor(async () => ((await pending()).length > 0 ? pending() : null), 15_000, 'the new session to be extracted');
    expect(proposal).toMatchObject({ operation: { file: 'feedback_real_db.md' } });
    await waitFor(
      () => times('the closed-time turn of the live session') > 0 && times('the resumed turn of the old session') > 0,
      15_000,
      'the turns of the sessions that went on while the app was closed to be extracted',
    );
    await waitFor(async () => Object.keys(await new ExtractionStore(fx.dataDir).loadCarry()).length === 0, 15_000, 'nothing owed any more');
    await auto.extraction.idle();
    expect(times('the closed-time turn of the live session')).toBe(1);
    expect(times('the resumed turn of the old session')).toBe(1);
    expect(times('we never mock the database')).toBe(1);
    expect(times('the live turn while watched')).toBe(1);
    expect(sent()).not.toContain('the deploy goes through staging');
  });

  // Review s45-3 #1: a session still being written as the app starts (its mtime within the first
  // scan) took the first-sight rule even with a record: only its latest turn was new, and the turns
  // it did while the app was closed were skipped as "before watching", the record moving past them.
  it('without hooks, a session still writing as the app starts has every turn it did while the app was closed extracted once', async () => {
    const times = (text: string) => fake.messageRequests().filter((r) => JSON.stringify(r.body?.messages ?? '').includes(text)).length;
    await auto.start();
    await auto.watching();
    await auto.close();
    expect(await new ExtractionStore(fx.dataDir).loadWatched(fx.home)).toBeDefined();

    // While the app is closed, a new session does two turns; its third is written as the app starts.
    const morning = fx.builder('morning').setTime(new Date().toISOString());
    morning.prompt('the first turn of the morning').assistant('Noted.', { stopReason: 'end_turn' });
    morning.prompt('the second turn of the morning').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript('morning'), morning.take());
    morning.setTime(new Date().toISOString()).prompt('the third turn, written as the app starts').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript('morning'), morning.take());

    const provider = await fakeProvider(fake, fx.dataDir);
    auto = new AutoMemory(ctx, { provider: async () => provider });
    await auto.start();
    await waitFor(() => times('the third turn, written as the app starts') > 0, 15_000, 'the third turn to be extracted');
    await waitFor(async () => Object.keys(await new ExtractionStore(fx.dataDir).loadCarry()).length === 0, 15_000, 'nothing owed any more');
    await auto.extraction.idle();
    expect(times('the first turn of the morning')).toBe(1);
    expect(times('the second turn of the morning')).toBe(1);
    expect(times('the third turn, written as the app starts')).toBe(1);
  });

  // Review s45-3 #7: a watch error stopped the record without a word.
  it('a transcript watch that fails is said once, in words, in the hook problems log', async () => {
    // Links that loop: the watch cannot stat them (ELOOP), as it could not a folder it may not read.
    await fs.symlink('loop-a.jsonl', path.join(fx.projectDir, 'loop-a.jsonl'));
    await fs.symlink('loop-b.jsonl', path.join(fx.projectDir, 'loop-b.jsonl'));
    await auto.start();
    await auto.watching();
    const log = path.join(fx.dataDir, HOOK_LOG_FILE);
    const said = async () => (await fs.readFile(log, 'utf8').catch(() => '')).split('\n').filter((l) => l.includes('transcript watcher'));
    await waitFor(async () => (await said()).length > 0, 5_000, 'the problem to be logged');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = await said();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/cannot tell it saw every change \(\/[^)]*: its path is a loop of symbolic links\); it stops recording how far it watched/);
  });

  // Review s45-8 #6: with the hooks connected the start also catches up (hooks may not reach the spool); a turn the
  // spool brought is still sent to the model once (the catch-up's own job finds nothing new).
  it('with hooks connected, a turn that ended while closed is taken from the spool and extracted once', async () => {
    await updateAppSettings(fx.dataDir, { session: { enabled: false } });
    const plan = await planHooksChange(fx.home, 'connect', { dataDir: fx.dataDir });
    await applyHooksChange(fx.home, 'connect', plan.baseHash, { dataDir: fx.dataDir });
    await auto.start();
    await auto.watching();
    await auto.close();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // While the app is closed, a turn ends and the Stop hook spools it.
    const t = fx.builder().setTime(new Date().toISOString());
    t.prompt('we never mock the database in integration tests').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript(), t.take());
    expect((await hook('Stop')).outcome).toBe('spooled');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const provider = await fakeProvider(fake, fx.dataDir);
    auto = new AutoMemory(ctx, { provider: async () => provider });
    await auto.start();
    await waitFor(async () => (await pending()).length > 0, 15_000, 'the spooled turn to be extracted');
    // The catch-up's own run too (review s45-9 #5: a fixed wait could read the count before it asked anything).
    const extractJobs = () => ctx.jobs.list().filter((j) => j.kind === 'extract');
    await waitFor(
      () => extractJobs().length >= 2 && extractJobs().every((j) => j.state !== 'running' && j.state !== 'queued'),
      15_000,
      "the catch-up's run beside the spool's to finish",
    );
    await auto.extraction.idle();
    expect(extractionRequests()).toHaveLength(1);
  });

  it('closing stops its extraction runs and leaves the turn owed on disk, with nothing still writing afterwards', async () => {
    // The model never answers: the run is still going when the app quits.
    fake.setHandler(() => ({ kind: 'hang' }));
    await auto.start();
    await writeTurn('we never mock the database in integration tests');
    expect((await hook('Stop')).outcome).toBe('spooled');
    // Its own request: Session Memory's, asked for on the same Stop, can come first (s45: the
    // close then stopped the run before its model call — the case the next test forces).
    await waitFor(() => extractionRequests().length > 0, 15_000, 'the extraction run to ask the model');
    await auto.close();
    // Closed means done: no extraction left running (it wrote into the data folder after a quit,
    // as the test's own clean-up removed it), and the turn is still owed for the next start.
    expect(ctx.jobs.list().filter((j) => j.kind === 'extract' && (j.state === 'running' || j.state === 'queued'))).toEqual([]);
    expect(Object.values(await new ExtractionStore(fx.dataDir).loadCarry())).toEqual([expect.objectContaining({ newTurns: 1 })]);
  });

  // s45: the run was cancelled before it asked the model (still getting its settings, or reading the
  // transcript): it returned what it had read — nothing — and the service took that for a run that
  // succeeded, so the carry was cleared. With hooks connected the turn, gone from the spool, was then
  // never extracted; without, only the next start's catch-up of the transcript found it again.
  it.each([
    ['not connected', false],
    ['connected', true],
  ])('closing while a run is still getting ready, before it asks the model, leaves the turn owed on disk (hooks %s)', async (_, connected) => {
    // Session Memory asks the model for its note too: off, so the only model user here is the extraction run.
    await updateAppSettings(fx.dataDir, { session: { enabled: false } });
    if (connected) {
      // Then the Stop event alone owes the turn (the watcher's report only asks for a run sooner): with the spool emptied, the carry is all that is left.
      const plan = await planHooksChange(fx.home, 'connect', { dataDir: fx.dataDir });
      await applyHooksChange(fx.home, 'connect', plan.baseHash, { dataDir: fx.dataDir });
      expect((await readHooksStatus(fx.home, { dataDir: fx.dataDir })).events.find((e) => e.event === 'Stop')?.command).toBeTruthy();
    }
    const provider = await fakeProvider(fake, fx.dataDir);
    let asked = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The run waits at its own seam (its model provider, asked for first thing in the job) until extraction closes.
    auto = new AutoMemory(ctx, {
      provider: async () => {
        asked++;
        await released;
        return provider;
      },
    });
    await auto.start();
    await writeTurn('we never mock the database in integration tests');
    expect((await hook('Stop')).outcome).toBe('spooled');
    await waitFor(() => asked > 0, 15_000, 'the extraction run to ask for its model');
    // Let it go on once extraction's close has stopped it (close runs up to its first wait at once).
    const extraction = auto.extraction;
    const closeExtraction = extraction.close.bind(extraction);
    extraction.close = () => {
      const closing = closeExtraction();
      release();
      return closing;
    };
    await auto.close();
    expect(fake.messageRequests()).toEqual([]);
    expect(ctx.jobs.list().filter((j) => j.kind === 'extract' && (j.state === 'running' || j.state === 'queued'))).toEqual([]);
    expect(Object.values(await new ExtractionStore(fx.dataDir).loadCarry())).toEqual([expect.objectContaining({ newTurns: 1 })]);
    // The next start extracts it.
    auto = new AutoMemory(ctx, { provider: async () => provider });
    await auto.start();
    const [proposal] = await waitFor(async () => ((await pending()).length > 0 ? pending() : null), 15_000, 'the owed turn to be extracted at the next start');
    expect(proposal).toMatchObject({ kind: 'proposal', operation: { file: 'feedback_real_db.md' } });
  });

  // Review s45-5: hooks in settings.json do not mean the events reach the spool (here a settings file Claude Code
  // ignores, a comment before its JSON): the start catches up with the hooks connected too, or that turn is lost.
  it('catches up at start with the hooks connected too: a turn that ended while closed, in a session whose hooks never ran', async () => {
    const plan = await planHooksChange(fx.home, 'connect', { dataDir: fx.dataDir });
    await applyHooksChange(fx.home, 'connect', plan.baseHash, { dataDir: fx.dataDir });
    const file = userSettingsFile(fx.home);
    await fs.writeFile(file, `// my settings\n${await fs.readFile(file, 'utf8')}`);
    await auto.start();
    await auto.watching();
    await auto.close();
    expect(await new ExtractionStore(fx.dataDir).loadWatched(fx.home)).toBeDefined();
    // While closed a session ends a turn; Claude Code runs no hook (it ignores the file), so the spool is empty.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const t = fx.builder().setTime(new Date().toISOString());
    t.prompt('we never mock the database in integration tests').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript(), t.take());
    // Well before the next start, so its first scan does not take it for a turn ending as it looks.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const provider = await fakeProvider(fake, fx.dataDir);
    auto = new AutoMemory(ctx, { provider: async () => provider });
    await auto.start();
    await waitFor(async () => (await pending()).length > 0, 20_000, 'the turn that ended while the app was closed to be extracted');
    expect(extractionRequests().filter((r) => JSON.stringify(r.body?.messages ?? '').includes('we never mock the database'))).toHaveLength(1);
  });

  // Review s44 #6: a run asked for as the app closes must not start after close began (close then
  // waited for a model call), and a watcher report during close must write nothing.
  it('closing as a run is asked for returns without asking the model, and the turn stays owed for the next start', async () => {
    fake.setHandler(() => ({ kind: 'hang' }));
    await auto.start();
    await writeTurn('we never mock the database in integration tests');
    await auto.extraction.hold(fx.transcript(), { closeTrailingTurn: 'always', newTurns: 1 });
    expect(auto.extraction.trigger(fx.transcript(), { trigger: 'hook', closeTrailingTurn: 'always', newTurns: 1 })).toBe(true);
    let closed = false;
    const closing = auto.extraction.close().then(() => void (closed = true));
    await waitFor(() => closed || fake.messageRequests().length > 0, 15_000, 'close to return or the model to be asked');
    expect(fake.messageRequests()).toEqual([]);
    expect(closed).toBe(true);
    await closing;
    expect(ctx.jobs.list().filter((j) => j.kind === 'extract' && (j.state === 'running' || j.state === 'queued'))).toEqual([]);
    expect(Object.values(await new ExtractionStore(fx.dataDir).loadCarry())).toEqual([expect.objectContaining({ newTurns: 1 })]);
  });

  it('a watcher report that comes once extraction is closed writes nothing', async () => {
    await auto.start();
    await writeTurn('we never mock the database in integration tests');
    await auto.extraction.close();
    await auto.extraction.watcherReported(fx.transcript(), { stage: 'quiet', seenFrom: 0, owed: true });
    expect(await new ExtractionStore(fx.dataDir).loadCarry()).toEqual({});
    expect(fake.messageRequests()).toEqual([]);
  });

  it("never acts on Memdir's own model sessions", async () => {
    await auto.start();
    const own = path.join(fx.home, 'projects', path.join(fx.dataDir, 'claude-cli').replace(/[^A-Za-z0-9]/g, '-'), 'x.jsonl');
    await fs.mkdir(path.dirname(own), { recursive: true });
    await fs.writeFile(own, fx.builder('x').prompt('integration tests').assistant('ok', { stopReason: 'end_turn' }).take());
    auto.handle(
      {
        event: 'Stop',
        sessionId: 'x',
        transcriptPath: own,
        cwd: null,
        trigger: null,
        reason: null,
        stopHookActive: null,
        receivedAt: new Date().toISOString(),
      },
      'hook',
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fake.messageRequests()).toHaveLength(0);
    expect(await pending()).toEqual([]);
  });
});
