/**
 * The app's background extraction across a restart when the data disk is full (a real tmpfs): a
 * turn whose run the full disk stopped is not forgotten when the app quits before the next turn —
 * the next start extracts it, once, and never as a turn "from before Memdir watched".
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../core/test-support/small-disk.js';
import { type FakeAnthropic, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { ExtractionStore } from '../extract/extraction-store.js';
import { updateAppSettings } from '../settings/app-settings.js';
import { type ExtractFixture, createExtractFixture, fakeProvider, operationsReply } from '../extract/test-support/extract-fixture.js';
import { HOOK_LOG_FILE, runHook, spoolDir } from '../hook-spool/index.js';
import { waitFor } from '../core/test-support/wait-for.js';
import { testingMemory } from '../extract/test-support/extract-harness.js';
import { AutoMemory } from './auto-memory.js';

let fx: ExtractFixture;
let fake: FakeAnthropic;
let disk: SmallDisk | null = null;
const open: { auto: AutoMemory; ctx: AppContext }[] = [];

const memory = {
  ...testingMemory,
  // Bigger than the room left: the run's journal cannot be written.
  body: `${randomBytes(6000).toString('hex')}\n`,
};

beforeEach(async () => {
  fx = await createExtractFixture('memdir-carry-');
  fake = await startFakeAnthropic({ fallback: operationsReply() });
  fake.setHandler((request) =>
    JSON.stringify(request.body?.messages ?? '').includes('we never mock the database') ? operationsReply(memory) : operationsReply(),
  );
});
afterEach(async () => {
  for (const { auto, ctx } of open.splice(0)) {
    await auto.close();
    await ctx.close();
  }
  disk?.unmount();
  disk = null;
  await fake.close();
  await fx.cleanup();
});

async function startApp(): Promise<{ auto: AutoMemory; ctx: AppContext }> {
  const ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
  const provider = await fakeProvider(fake, fx.dataDir);
  const auto = new AutoMemory(ctx, { provider: async () => provider });
  open.push({ auto, ctx });
  await auto.start();
  return { auto, ctx };
}

async function quit(app: { auto: AutoMemory; ctx: AppContext }): Promise<void> {
  open.splice(open.indexOf(app), 1);
  await app.auto.close();
  await app.ctx.close();
}

/** A turn of `session` ends (its transcript gets the turn) and its Stop hook spools the event. */
async function endTurn(prompt: string, session = 'session-1'): Promise<void> {
  const t = fx.builder(session);
  t.prompt(prompt);
  t.assistant('Noted.');
  await fs.appendFile(fx.transcript(session), t.take());
  const stop = await runHook({
    event: 'Stop',
    stdin: Readable.from([Buffer.from(JSON.stringify({ session_id: session, transcript_path: fx.transcript(session), cwd: fx.cwd, hook_event_name: 'Stop' }))]),
    env: {},
    dataDir: fx.dataDir,
  });
  expect(stop.outcome).toBe('spooled');
}

const spooled = async () => (await fs.readdir(spoolDir(fx.dataDir))).filter((n) => !n.startsWith('.'));
const turnsLogged = async () => (await new ExtractionStore(fx.dataDir).readLog()).flatMap((e) => (e.kind === 'turns' ? [e.outcome] : []));
const extractionRequests = () => fake.messageRequests().filter((r) => JSON.stringify(r.body?.messages ?? '').includes('we never mock the database'));

describe.skipIf(smallDiskUnavailable !== null)(`the carry across a restart${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`, () => {
  for (const free of [0, 8])
    it(`a turn a full data disk (${free} KiB free) kept from extraction is extracted at the next start, once, though the app quit before the next turn`, async () => {
      disk = mountSmallDisk(fx.dataDir, 4 * 1024 * 1024);
      await updateAppSettings(fx.dataDir, { extraction: { mode: 'apply' } });
      // The first turn Memdir sees of this session ends; its Stop hook spools the event.
      await endTurn('we never mock the database');

      // The app starts on a full data disk: with no room for the note, the event stays in the spool;
      // with room for the note only, the run fails.
      disk.leaveFree(free * 1024);
      const first = await startApp();
      if (free === 0) expect(await spooled()).toHaveLength(1);
      else {
        const failed = await waitFor(() => first.ctx.jobs.list().find((j) => j.kind === 'extract' && j.state === 'failed'));
        expect(failed.message ?? '').toMatch(/full/);
      }
      await first.auto.extraction.idle();
      expect(await turnsLogged()).toEqual([]);
      // The app quits before the session has another turn; space is freed; the app starts again.
      await quit(first);
      disk.free();
      const second = await startApp();
      const outcomes = await waitFor(async () => {
        const logged = await turnsLogged();
        return logged.length > 0 ? logged : null;
      });
      await second.auto.extraction.idle();
      expect(outcomes.map((o) => o.reason)).not.toContain('before-watching');
      expect(outcomes.flatMap((o) => o.operations.map((op) => op.disposition))).toEqual(['applied']);
      expect(await fs.readFile(`${fx.memoryDir}/feedback_real_db.md`, 'utf8')).toContain(memory.body.trim());

      // Once, never twice: another restart finds nothing carried and extracts nothing again
      // (its start takes up the carry before it returns; idle() then covers any run it began).
      await quit(second);
      const before = extractionRequests().length;
      const third = await startApp();
      await third.auto.extraction.idle();
      expect(await turnsLogged()).toHaveLength(1);
      expect(extractionRequests().length - before).toBe(0);
      expect(await new ExtractionStore(fx.dataDir).loadCarry()).toEqual({});
    });

  it('while the disk refuses a note, only the events whose turn end was noted leave the spool: a later drain handles the others once, and re-notes nothing', async () => {
    // Extraction's folder on a small disk with one page left: the first note fits, the second does not.
    disk = mountSmallDisk(new ExtractionStore(fx.dataDir).dir, 256 * 1024);
    await endTurn('we never mock the database', 'session-a');
    await endTurn('the staging database is shared', 'session-b');
    disk.leaveFree(4096);
    const app = await startApp();
    await app.auto.extraction.idle();
    const a = fx.transcript('session-a');
    const b = fx.transcript('session-b');
    const carried = async () => new ExtractionStore(fx.dataDir).loadCarry();
    const problems = async () =>
      (await fs.readFile(path.join(fx.dataDir, HOOK_LOG_FILE), 'utf8').catch(() => '')).split('\n').filter((l) => l.includes('stay in the spool'));
    const requests = (text: string) => fake.messageRequests().filter((r) => JSON.stringify(r.body?.messages ?? '').includes(text)).length;
    expect(await carried()).toEqual({ [a]: { newTurns: 1, closeTrailingTurn: 'if-answered' } });
    expect(await spooled()).toHaveLength(1);
    // The 30 s poll drains again while the disk is still full: nothing is handled or noted twice, nothing said twice.
    await app.auto.drainSpool('hook');
    await app.auto.drainSpool('hook');
    await app.auto.extraction.idle();
    expect(await carried()).toEqual({ [a]: { newTurns: 1, closeTrailingTurn: 'if-answered' } });
    expect(await spooled()).toHaveLength(1);
    expect(await problems()).toHaveLength(1);
    expect(requests('we never mock the database')).toBe(1);
    expect(requests('the staging database is shared')).toBe(0);
    // Room again: the kept event is handled, once.
    disk.free();
    await app.auto.drainSpool('hook');
    await waitFor(() => requests('the staging database is shared') > 0);
    await app.auto.extraction.idle();
    expect(await spooled()).toEqual([]);
    expect(requests('the staging database is shared')).toBe(1);
    expect(requests('we never mock the database')).toBe(1);
    expect((await carried())[b]).toBeUndefined();
    expect(await problems()).toHaveLength(1);
  });

  it('a turn end only the watcher saw that the full disk kept from being noted is said each time the disk fills again, not only the first (review s44 #4)', async () => {
    // No hooks: the watcher's report is all that owes a turn, noted in extraction's folder on a small disk.
    await updateAppSettings(fx.dataDir, { extraction: { quietSeconds: 1, idleCloseSeconds: 600 } });
    disk = mountSmallDisk(new ExtractionStore(fx.dataDir).dir, 256 * 1024);
    const app = await startApp();
    const unnoted = async () =>
      (await fs.readFile(path.join(fx.dataDir, HOOK_LOG_FILE), 'utf8').catch(() => '')).split('\n').filter((l) => l.includes('forgotten if it quits'));
    const requests = (text: string) => fake.messageRequests().filter((r) => JSON.stringify(r.body?.messages ?? '').includes(text)).length;
    const t = fx.builder();
    const turn = async (prompt: string) => {
      t.prompt(prompt).assistant('Noted.', { stopReason: 'end_turn' });
      await fs.appendFile(fx.transcript(), t.take());
    };
    disk.leaveFree(0);
    await turn('the staging database is shared');
    await waitFor(async () => (await unnoted()).length === 1, 15_000, 'the first full disk to be said in the hook-problems log');
    await app.auto.extraction.idle();
    // Room again: the next turn is noted and extracted.
    disk.free();
    await turn('the deploy goes through staging');
    await waitFor(() => requests('the deploy goes through staging') > 0, 15_000, 'the turn after the disk was freed to be extracted');
    await app.auto.extraction.idle();
    // Full again, days later: said again.
    disk.leaveFree(0);
    await turn('release notes go in the changelog');
    await waitFor(async () => (await unnoted()).length === 2, 15_000, 'the second full disk to be said in the hook-problems log');
  });

  it("a run that wrote its memory but could not save where extraction got to says both in the app's log, and the next start completes it", async () => {
    await updateAppSettings(fx.dataDir, { extraction: { mode: 'apply' } });
    disk = mountSmallDisk(path.join(fx.dataDir, 'cursors'), 64 * 1024);
    disk.leaveFree(0);
    await endTurn('we never mock the database');
    const first = await startApp();
    const failed = await waitFor(() => first.ctx.jobs.list().find((j) => j.kind === 'extract' && j.state === 'failed'));
    expect(failed.message).toMatch(
      /^Created feedback_real_db\.md, but Memdir could not save where extraction got to: the disk holding .* is full.*Nothing is lost: the next extraction completes it\.$/,
    );
    expect(failed.message).not.toMatch(/\.json\b/);
    await first.auto.extraction.idle();
    await quit(first);
    disk.free();
    const second = await startApp();
    await waitFor(async () => (await new ExtractionStore(second.ctx.dataDir).loadCarry())[fx.transcript()] === undefined);
    await second.auto.extraction.idle();
    expect(await turnsLogged()).toHaveLength(1);
    expect(extractionRequests()).toHaveLength(1);
  });
});
