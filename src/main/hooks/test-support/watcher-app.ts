/**
 * Child process for the watcher-crash test (auto-memory-crash.test.ts): the app's AutoMemory on
 * a home without Memdir's hooks, its model the fake server at `url`. Prints "ready" once its
 * watcher's first scan is done; then runs until it is SIGKILLed.
 */
import { AppContext } from '../../app/app-context.js';
import { fakeProvider } from '../../extract/test-support/extract-fixture.js';
import type { FakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { AutoMemory } from '../auto-memory.js';

const [home = '', dataDir = '', url = ''] = process.argv.slice(2);

const ctx = await AppContext.create({ homeFlag: home, dataDir, env: {} });
const provider = await fakeProvider({ url } as FakeAnthropic, dataDir);
const auto = new AutoMemory(ctx, { provider: async () => provider });
await auto.start();
// Ready once the watcher has seen the transcripts as they were: what they held is from before.
await auto.watching();
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
