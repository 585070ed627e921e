import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ExtractFixture, createExtractFixture } from './test-support/extract-fixture.js';
import { ExtractionStore } from './extraction-store.js';

let fx: ExtractFixture;
beforeEach(async () => (fx = await createExtractFixture('memdir-extract-store-')));
afterEach(() => fx.cleanup());

describe('ExtractionStore: when the watcher last had everything reported (watched.json)', () => {
  // Review s45-3 #9: it names the user's homes, and took the default mode (0o644) where carry.json is private.
  it('is private to the user, as the carry is, and never moved back', async () => {
    const store = new ExtractionStore(fx.dataDir);
    await store.saveWatched(fx.home, 2_000);
    await store.saveWatched(fx.home, 1_000);
    expect(await store.loadWatched(fx.home)).toBe(2_000);
    const file = path.join(fx.dataDir, 'extract', 'watched.json');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  });
});
