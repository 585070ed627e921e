/**
 * Child process of the `kill` bench: one real offline dream of a crafted memory dir, forced past
 * the time and session gates, until it ends or is SIGKILLed. Prints "ready" once loaded and starts
 * on a line on stdin.
 *   dream-worker.ts <memoryDir> <projectDir> <dataDir>
 */
import { once } from 'node:events';
import { runDream } from '../../src/main/dream/run-dream.js';
import { defaultAppSettings } from '../../src/main/settings/app-settings.js';

const [memoryDir = '', projectDir = '', dataDir = ''] = process.argv.slice(2);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
const { record, reason } = await runDream({
  memoryDir,
  projectDir,
  dataDir,
  trigger: 'cli',
  settings: { ...defaultAppSettings().dream, maxDeleteShare: 1 },
  provider: null,
  force: true,
});
process.stdout.write(`done ${record?.status ?? `not-started ${reason}`}\n`);
