/**
 * What the page does when its event stream is live again after a drop (live-events.ts): it reads
 * again, and a home switched meanwhile takes it to the dashboard as the home-changed event would.
 * Driven through the transport's seam (setTransport); the e2e suite runs the same over real HTTP.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppEvent } from '../../shared/contract/events.js';
import type { StreamState, Transport, WireResult } from '../transport/transport.js';

/** A host whose home the test switches, whose stream it drops and brings back; it records the calls it is asked. */
async function pageOnAHost(home: { path: string }) {
  vi.resetModules();
  const asked: string[] = [];
  let state: ((state: StreamState) => void) | null = null;
  let emit: ((event: AppEvent) => void) | null = null;
  const transport: Transport = {
    kind: 'host',
    call(name): Promise<WireResult> {
      asked.push(name);
      if (name === 'app.openDemo') home.path = '/data/demo/claude-home';
      if (name === 'app.info' || name === 'app.openDemo')
        return Promise.resolve({ ok: true, result: { home: home.path, homeSource: 'flag', homeExists: true } });
      return Promise.resolve({ ok: false, error: { code: 'unavailable', message: 'Not in this test.' } });
    },
    subscribe(_name, _input, onEvent, onState) {
      state = onState ?? null;
      emit = onEvent as (event: AppEvent) => void;
      return () => undefined;
    },
  };
  const { setTransport } = await import('../transport/transport.js');
  setTransport(transport);
  const { openLiveStream } = await import('./live-stream.js');
  const { followLiveEvents } = await import('./live-events.js');
  const { useApp } = await import('./app.js');
  const { useNav } = await import('./nav.js');
  const ready = openLiveStream();
  state!('live');
  await ready;
  await useApp.getState().load();
  const stop = followLiveEvents();
  /** The stream drops and comes back; resolves once the page has read again what it shows. */
  async function reconnect(): Promise<void> {
    const before = asked.length;
    state!('down');
    state!('live');
    await vi.waitFor(() => expect(asked.slice(before)).toContain('app.info'));
    // Its answer, and what the page does with it, after the microtasks already queued.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return { useApp, useNav, reconnect, stop, asked, emit: (event: AppEvent) => emit!(event) };
}

describe('the page after its event stream comes back', () => {
  beforeEach(() => vi.resetModules());

  it('goes to the dashboard when the home was switched while the stream was down', async () => {
    const home = { path: '/homes/one' };
    const { useNav, reconnect, stop } = await pageOnAHost(home);
    useNav.getState().go({ view: 'project', dir: '-work-app', tab: 'memories' });
    home.path = '/homes/two';
    await reconnect();
    expect(useNav.getState().route).toEqual({ view: 'dashboard' });
    stop();
  });

  it('stays where it is when the home is the one it shows', async () => {
    const home = { path: '/homes/one' };
    const { useNav, reconnect, stop, asked } = await pageOnAHost(home);
    useNav.getState().go({ view: 'project', dir: '-work-app', tab: 'memories' });
    const before = asked.length;
    await reconnect();
    expect(useNav.getState().route).toEqual({ view: 'project', dir: '-work-app', tab: 'memories' });
    // The projects are read again once, not once for the home and once more for the list.
    expect(asked.slice(before).filter((name) => name === 'projects.list')).toHaveLength(1);
    stop();
  });

  it("stays in the project opened after this page switched the home itself, when that switch's event comes late", async () => {
    const home = { path: '/homes/one' };
    const { useApp, useNav, stop, emit } = await pageOnAHost(home);
    // The person opens the demo workspace here, then a project of it, before the event of the switch arrives (a loaded machine).
    await useApp.getState().openDemo();
    useNav.getState().go({ view: 'project', dir: '-demo-checkout-service', tab: 'dream' });
    emit({ type: 'home-changed', home: '/data/demo/claude-home' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(useNav.getState().route).toEqual({ view: 'project', dir: '-demo-checkout-service', tab: 'dream' });
    // Another window's switch still takes this one to the dashboard of the new home.
    home.path = '/homes/two';
    emit({ type: 'home-changed', home: '/homes/two' });
    await vi.waitFor(() => expect(useNav.getState().route).toEqual({ view: 'dashboard' }));
    stop();
  });
});
