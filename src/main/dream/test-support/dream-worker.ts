/**
 * Child process for the kill -9 tests (run with `node --import tsx`): runs a real offline dream
 * of a crafted dir and pauses where told — at the start of a phase, or right after apply wrote
 * its first file — printing "paused <where>" and waiting to be killed. Otherwise prints
 * "done <status>" at the end.
 *   dream-worker.ts <memoryDir> <projectDir> <dataDir> <orient|gather|consolidate|prune|apply|apply-write|committed|none>
 */
import { defaultAppSettings } from '../../settings/app-settings.js';
import { runDream } from '../run-dream.js';

const [memoryDir = '', projectDir = '', dataDir = '', pauseAt = 'none'] = process.argv.slice(2);

const pause = async (where: string): Promise<void> => {
  if (where !== pauseAt) return;
  process.stdout.write(`paused ${where}\n`);
  // Wait like a long phase until killed.
  await new Promise(() => setInterval(() => undefined, 1000));
};

const { record, reason } = await runDream({
  memoryDir,
  projectDir,
  dataDir,
  trigger: 'cli',
  settings: { ...defaultAppSettings().dream, maxDeleteShare: 1 },
  provider: null,
  force: true,
  hooks: { atPhase: (phase) => pause(phase), afterFirstWrite: () => pause('apply-write'), afterCommit: () => pause('committed') },
});
process.stdout.write(`done ${record?.status ?? `not-started ${reason}`}\n`);
