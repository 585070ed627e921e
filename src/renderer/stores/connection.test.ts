/** When the page says Memdir does not answer it (connection.ts): not on a blip, at once when refused, gone when live. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

describe('the connection the page shows', () => {
  beforeEach(() => {
    vi.resetModules();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('says the stream is down only once it has been down a while, however often it retried meanwhile', async () => {
    const { DOWN_QUIET_MS, noteStreamState, useConnection } = await import('./connection.js');
    noteStreamState('live');
    noteStreamState('down');
    await vi.advanceTimersByTimeAsync(DOWN_QUIET_MS / 2);
    noteStreamState('down');
    expect(useConnection.getState().status).toBe('live');
    await vi.advanceTimersByTimeAsync(DOWN_QUIET_MS / 2);
    expect(useConnection.getState().status).toBe('down');
    noteStreamState('down');
    expect(useConnection.getState().status).toBe('down');
    noteStreamState('live');
    expect(useConnection.getState().status).toBe('live');
  });

  it('says nothing of a blip: a stream back before the wait is over', async () => {
    const { DOWN_QUIET_MS, noteStreamState, useConnection } = await import('./connection.js');
    noteStreamState('down');
    noteStreamState('live');
    await vi.advanceTimersByTimeAsync(DOWN_QUIET_MS * 2);
    expect(useConnection.getState().status).toBe('live');
  });

  it('says at once, and for good, that the page was refused', async () => {
    const { DOWN_QUIET_MS, noteStreamState, useConnection } = await import('./connection.js');
    noteStreamState('down');
    noteStreamState('refused');
    expect(useConnection.getState().status).toBe('refused');
    await vi.advanceTimersByTimeAsync(DOWN_QUIET_MS * 2);
    expect(useConnection.getState().status).toBe('refused');
  });
});
