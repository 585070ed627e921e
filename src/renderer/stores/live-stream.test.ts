/**
 * The page's event stream rule (live-stream.ts): the first reads wait for the stream, no event is
 * dropped before the UI follows it, and a stream back after a drop makes the stores read again.
 * Driven through the transport's own seam (setTransport): the e2e suite runs it over real HTTP.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppEvent } from '../../shared/contract/events.js';
import type { StreamState, Transport } from '../transport/transport.js';

/** A transport whose stream the test moves: what main would publish, when it is live or dropped. */
function streamTransport() {
  let emit: ((event: unknown) => void) | null = null;
  let state: ((state: StreamState) => void) | null = null;
  const transport: Transport = {
    kind: 'host',
    call: () => Promise.reject(new Error('no calls here')),
    subscribe(_name, _input, onEvent, onState) {
      emit = onEvent;
      state = onState ?? null;
      return () => undefined;
    },
  };
  return { transport, publish: (event: AppEvent) => emit!(event), set: (next: StreamState) => state!(next) };
}

const changed = (dir: string): AppEvent => ({ type: 'projects-changed', dirs: [dir], external: true });

async function freshStream() {
  vi.resetModules();
  const { setTransport } = await import('../transport/transport.js');
  const stream = await import('./live-stream.js');
  const wire = streamTransport();
  setTransport(wire.transport);
  return { ...stream, ...wire };
}

/** Whether `promise` has settled, after the microtasks already queued have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe('the page’s event stream', () => {
  beforeEach(() => vi.resetModules());

  it('lets the first reads go only once the stream is live, and hands the UI what arrived before it followed', async () => {
    const { openLiveStream, followLiveStream, publish, set } = await freshStream();
    const ready = openLiveStream();
    expect(openLiveStream()).toBe(ready);
    expect(await settled(ready)).toBe(false);
    set('live');
    expect(await settled(ready)).toBe(true);
    publish(changed('-a'));
    publish(changed('-b'));
    const seen: AppEvent[] = [];
    const resync = vi.fn();
    followLiveStream({ onEvent: (e) => seen.push(e), resync });
    publish(changed('-c'));
    expect(seen).toEqual([changed('-a'), changed('-b'), changed('-c')]);
    expect(resync).not.toHaveBeenCalled();
  });

  it('makes the UI read again each time the stream is live after a drop', async () => {
    const { openLiveStream, followLiveStream, set } = await freshStream();
    const ready = openLiveStream();
    set('live');
    await ready;
    const resync = vi.fn();
    const stop = followLiveStream({ onEvent: () => undefined, resync });
    set('down');
    expect(resync).toHaveBeenCalledTimes(0);
    set('live');
    expect(resync).toHaveBeenCalledTimes(1);
    set('down');
    set('down');
    set('live');
    expect(resync).toHaveBeenCalledTimes(2);
    stop();
    set('down');
    set('live');
    expect(resync).toHaveBeenCalledTimes(2);
  });

  it('lets the reads go when the stream cannot open (they say why), and reads again once it opens', async () => {
    const { openLiveStream, followLiveStream, set } = await freshStream();
    const ready = openLiveStream();
    set('down');
    expect(await settled(ready)).toBe(true);
    set('live');
    // The UI was not following yet: it reads again as it starts to.
    const resync = vi.fn();
    followLiveStream({ onEvent: () => undefined, resync });
    expect(resync).toHaveBeenCalledTimes(1);
  });

  it('reads again instead of replaying when more events came before the UI followed than are held for it', async () => {
    const { openLiveStream, followLiveStream, publish, set } = await freshStream();
    const ready = openLiveStream();
    set('live');
    await ready;
    const navigate: AppEvent = { type: 'navigate', hash: '#/p/-p7/memories', message: null };
    publish(navigate);
    for (let i = 0; i < 1000; i++) publish(changed(`-p${i}`));
    const seen: AppEvent[] = [];
    const resync = vi.fn();
    followLiveStream({ onEvent: (e) => seen.push(e), resync });
    // One read of everything, not 200 reads of one project each; where the shell sent the page still counts.
    expect(seen).toEqual([navigate]);
    expect(resync).toHaveBeenCalledTimes(1);
  });

  it('lets the first reads go when the stream says neither live nor down in time, and reads again once it is live', async () => {
    vi.useFakeTimers();
    try {
      const { openLiveStream, followLiveStream, set, FIRST_STATE_MAX_MS } = await freshStream();
      const ready = openLiveStream();
      let done = false;
      void ready.then(() => (done = true));
      await vi.advanceTimersByTimeAsync(FIRST_STATE_MAX_MS - 1);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(done).toBe(true);
      set('live');
      const resync = vi.fn();
      followLiveStream({ onEvent: () => undefined, resync });
      expect(resync).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
