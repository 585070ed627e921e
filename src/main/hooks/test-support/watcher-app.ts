/**
 * Child process for the watcher-crash test (auto-memory-crash.test.ts): the app's AutoMemory on
 * a home without Memdir's hooks, its model the fake server at `url` (a 4th argument: how often, in
 * ms, its watcher records how far it watched). Prints "ready" once its
 * watcher's first scan is done; then runs until it is SIGKILLed.
 */
import { AppContext } from '../../app/app-context.js';
import { fakeProvider } from '../../extract/test-support/extract-fixture.js';
import type { FakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { AutoMemory } from '../auto-memory.js';

const [home = '', dataDir = '', url = '', watchedEvery] = process.argv.slice(2);

const ctx = await AppContext.create({ homeFlag: home, dataDir, env: {} });
const provider = await fakeProvider({ url } as FakeAnthropic, dataDir);
const auto = new AutoMemory(ctx, { provider: async () => provider, ...(watchedEvery ? { watchedEveryMs: Number(watchedEvery) } : {}) });
await auto.start();
// Ready once the watcher has seen the transcripts as they were: what they held is from before.
await auto.watching();
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
