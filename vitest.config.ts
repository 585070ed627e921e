import { defineConfig } from 'vitest/config';

// Each test file's Memdir data dir is a temp dir, never the user's (test/setup-data-dir.ts).
const setupFiles = ['test/setup-data-dir.ts'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['src/main/shell/packaging.test.ts'],
          environment: 'node',
          setupFiles,
          testTimeout: 30_000,
          hookTimeout: 30_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          environment: 'node',
          setupFiles,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Every expect.poll here waits for the page to show what the real host answered, often
          // after background work (a scan, a sync, a dream): vitest's 1 s default is too short on a
          // loaded 2-core machine (CI), where the host, Chromium and the test share the two cores.
          expect: { poll: { timeout: 15_000, interval: 100 } },
          fileParallelism: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // A real electron-builder package: the heaviest test, run alone after the others so its
        // CPU use does not make timing-sensitive tests flaky.
        test: {
          name: 'packaging',
          include: ['src/main/shell/packaging.test.ts'],
          environment: 'node',
          setupFiles,
          testTimeout: 60_000,
          hookTimeout: 420_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
