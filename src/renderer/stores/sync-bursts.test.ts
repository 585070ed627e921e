/**
 * Team and personal sync change events read the sync views once per burst (`coalescedReads`), as
 * memory changes do: a sync scheduler publishing 20 `team-changed` (or `personal-changed`) events
 * reads the open project's sync state, the dashboard's Team column and the account about once a
 * second — never two reads of one at a time — and the page ends on the last state. Driven through
 * the transport's seam (setTransport), its events delivered as main's stream delivers them.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppEvent } from '../../shared/contract/events.js';
import type { Transport, WireResult } from '../transport/transport.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A host whose sync state is a counter (`state.version`); its answers take 50 ms, each saying the version as the read began. */
async function pageOnASyncingHost() {
  vi.resetModules();
  const state = { version: 0 };
  const asked: Record<string, number> = {};
  const inFlight: Record<string, number> = {};
  let most = 0;
  let emit: ((event: AppEvent) => void) | null = null;
  const transport: Transport = {
    kind: 'host',
    async call(name): Promise<WireResult> {
      asked[name] = (asked[name] ?? 0) + 1;
      const seen = state.version;
      // Reads of one query never overlap (each call name here is one query).
      inFlight[name] = (inFlight[name] ?? 0) + 1;
      most = Math.max(most, inFlight[name]);
      await sleep(50);
      inFlight[name]--;
      if (name === 'team.status') return { ok: true, result: { dir: '-work-app', version: seen } };
      if (name === 'team.overview') return { ok: true, result: { projects: [{ dir: '-work-app', version: seen }] } };
      if (name === 'personal.project') return { ok: true, result: { dir: '-work-app', version: seen } };
      if (name === 'personal.status') return { ok: true, result: { version: seen } };
      return { ok: false, error: { code: 'unavailable', message: 'Not in this test.' } };
    },
    subscribe(_name, _input, onEvent, onState) {
      emit = onEvent as (event: AppEvent) => void;
      onState?.('live');
      return () => undefined;
    },
  };
  const { setTransport } = await import('../transport/transport.js');
  setTransport(transport);
  const { openLiveStream } = await import('./live-stream.js');
  const { followLiveEvents } = await import('./live-events.js');
  const { useTeam } = await import('./team.js');
  const { usePersonal } = await import('./personal.js');
  await openLiveStream();
  const stop = followLiveEvents();
  return {
    useTeam,
    usePersonal,
    state,
    asked,
    stop,
    emit: (event: AppEvent) => emit!(event),
    get most() {
      return most;
    },
    count: () => {
      for (const key of Object.keys(asked)) delete asked[key];
      most = 0;
    },
  };
}

/** What the store shows of the fake state: its version. */
const versionOf = (value: unknown) => (value as { version?: number } | null)?.version;

describe('a burst of sync changes', () => {
  beforeEach(() => vi.resetModules());

  it("reads the open project's team sync and the dashboard's Team column once per burst, and shows the last state", async () => {
    const page = await pageOnASyncingHost();
    await page.useTeam.getState().open('-work-app');
    await page.useTeam.getState().loadOverview(true);
    await sleep(1_100);
    page.count();
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      page.state.version++;
      page.emit({ type: 'team-changed', dir: '-work-app' });
      await sleep(100);
    }
    await sleep(1_500);
    const seconds = Math.ceil((Date.now() - started) / 1000);
    // Was one read of each per event (20); now one at once, then at most one a second.
    expect(page.asked['team.status'], `team.status was read ${page.asked['team.status']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    expect(page.asked['team.overview'], `team.overview was read ${page.asked['team.overview']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    expect(page.most).toBe(1);
    expect(versionOf(page.useTeam.getState().project)).toBe(20);
    expect(versionOf(page.useTeam.getState().overview['-work-app'])).toBe(20);
    page.stop();
  });

  it("reads the open project's personal sync and the account once per burst, and shows the last state", async () => {
    const page = await pageOnASyncingHost();
    await page.usePersonal.getState().open('-work-app');
    await page.usePersonal.getState().load();
    await sleep(1_100);
    page.count();
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      page.state.version++;
      page.emit({ type: 'personal-changed', dir: i % 2 ? '-work-app' : null });
      await sleep(100);
    }
    await sleep(1_500);
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(page.asked['personal.project'], `personal.project was read ${page.asked['personal.project']} times in ${seconds} s`).toBeLessThanOrEqual(
      seconds + 1,
    );
    expect(page.asked['personal.status'], `personal.status was read ${page.asked['personal.status']} times in ${seconds} s`).toBeLessThanOrEqual(seconds + 1);
    expect(page.most).toBe(1);
    expect(versionOf(page.usePersonal.getState().project)).toBe(20);
    expect(versionOf(page.usePersonal.getState().status)).toBe(20);
    page.stop();
  });

  it("reads the project's sync at once after the person's own action, even right after a change was read", async () => {
    const page = await pageOnASyncingHost();
    await page.useTeam.getState().open('-work-app');
    await sleep(1_100);
    page.state.version = 5;
    page.emit({ type: 'team-changed', dir: '-work-app' });
    await sleep(100);
    expect(versionOf(page.useTeam.getState().project)).toBe(5);
    page.state.version = 6;
    const asked = Date.now();
    await page.useTeam.getState().refresh();
    expect(Date.now() - asked).toBeLessThan(500);
    expect(versionOf(page.useTeam.getState().project)).toBe(6);
    page.stop();
  });
});
