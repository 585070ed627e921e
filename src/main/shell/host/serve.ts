/**
 * `npm run serve -- [--home H] [--port N] [--data-dir D]`: the headless host (serve-app.ts) as
 * a process of its own. An entry only: importing it starts a host.
 */
import { mapStackTracesLazily } from '../../core/lazy-source-maps.js';

// Before the app's code loads, so stack traces name the files under src/ (the build bundles it);
// each map is read when a stack first needs it, not as its module loads (issue 16, bench start).
mapStackTracesLazily();
const { serve } = await import('./serve-app.js');

try {
  const running = await serve(process.argv.slice(2));
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  process.stderr.write(`memdir serve: ${(error as Error).message}\n`);
  process.exit(2);
}
