/**
 * Child process for the concurrent settings test: prints "ready", waits for a line on stdin (so
 * both workers start together), then saves its writer's settings one call each, as a person
 * changing several settings would; exits non-zero when a save is refused.
 */
import { once } from 'node:events';
import { updateAppSettings } from '../app-settings.js';
import { SETTINGS_PATCHES } from './concurrent-writers.js';

const [dataDir = '', writer = 'app'] = process.argv.slice(2);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
for (const patch of SETTINGS_PATCHES[writer as 'app' | 'cli']) {
  const result = await updateAppSettings(dataDir, patch);
  if (!result.ok) throw new Error(result.problems.join(' '));
}
process.stdout.write('saved\n');
