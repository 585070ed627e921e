import { describe, expect, it } from 'vitest';
import { EventBus } from '../core/event-bus.js';
import type { AppEvent } from '../../shared/contract/events.js';
import { JobBusyError, JobRunner } from './job-runner.js';

describe('JobRunner', () => {
  it('runs in the background, reports progress as events, and ends done', async () => {
    const bus = new EventBus();
    const events: AppEvent[] = [];
    bus.subscribe((e) => events.push(e));
    const jobs = new JobRunner(bus);
    const { job, result } = jobs.start({ kind: 'dream', title: 'Dream', dir: 'p' }, async (ctx) => {
      ctx.progress({ phase: 'orient', progress: 0.25 });
      ctx.progress({ phase: 'prune', progress: 0.9 });
      return 42;
    });
    expect(job.state).toBe('running');
    expect(await result).toBe(42);
    const states = events.flatMap((e) => (e.type === 'job' ? [[e.job.state, e.job.phase, e.job.progress]] : []));
    expect(states).toEqual([
      ['running', null, null],
      ['running', 'orient', 0.25],
      ['running', 'prune', 0.9],
      ['done', 'prune', 1],
    ]);
  });

  it('never runs two jobs with the same key at once', async () => {
    const jobs = new JobRunner(new EventBus());
    let release!: () => void;
    const first = jobs.start({ kind: 'dream', title: 'Dream p', key: 'dream:/p' }, () => new Promise<void>((r) => (release = r)));
    expect(() => jobs.start({ kind: 'dream', title: 'Dream p', key: 'dream:/p' }, async () => undefined)).toThrow(JobBusyError);
    jobs.start({ kind: 'dream', title: 'Dream q', key: 'dream:/q' }, async () => undefined);
    release();
    await first.result;
    await expect(jobs.start({ kind: 'dream', title: 'again', key: 'dream:/p' }, async () => 'ok').result).resolves.toBe('ok');
  });

  it('cancels through the AbortSignal and records failures with their message', async () => {
    const jobs = new JobRunner(new EventBus());
    const slow = jobs.start(
      { kind: 'x', title: 'slow' },
      (ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    );
    expect(jobs.cancel(slow.job.id)).toBe(true);
    await slow.result.catch(() => undefined);
    expect(jobs.get(slow.job.id)!.state).toBe('cancelled');
    const bad = jobs.start({ kind: 'x', title: 'bad' }, async () => {
      throw new Error('disk full');
    });
    await bad.result.catch(() => undefined);
    expect(jobs.get(bad.job.id)).toMatchObject({ state: 'failed', message: 'disk full' });
    expect(jobs.cancel(bad.job.id)).toBe(false);
  });
});
