/**
 * The app without Electron — the same API and the built renderer on 127.0.0.1, for a browser —
 * as `npm run serve` (serve.ts) and the launcher's fallback (launch.ts) start it. Prints the URL
 * with its per-run token.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { builtPath } from '../../core/app-root.js';
import { optimizeLessWhileStarting } from '../../core/start-tiering.js';
import type { AppContext } from '../../app/index.js';
import { startHost } from './host-server.js';

/** The built renderer (out/renderer). */
export const RENDERER_DIR = builtPath('renderer');

/** Starts the host with `npm run serve`'s arguments (`--home H`, `--port N`, `--data-dir D`). */
export async function serve(
  argv: string[],
  log: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<{ close: () => Promise<void>; url: string }> {
  const { values } = parseArgs({ args: argv, options: { home: { type: 'string' }, port: { type: 'string' }, 'data-dir': { type: 'string' } }, strict: true });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (0-65535), not "${values.port}"`);
  // The start's run-once code is not worth optimizing (start-tiering.ts); put back below, however the start ends.
  const started = optimizeLessWhileStarting();
  // Listening first, with nothing of the app loaded yet: the browser loads the page and its
  // scripts while the app's code loads and the app opens (reads the scan cache, starts its watcher
  // and first scan), and the API answers once it is open (issue 16, bench start). The app and the
  // API are read with import() for that reason: a static import would load them before the port opens.
  let open!: (ctx: Promise<AppContext>) => void;
  const opening = new Promise<AppContext>((resolve) => (open = resolve));
  const api = import('../../api/index.js');
  // A failure is heard through the dispatcher (an answer in words) and by whoever awaits `opening`.
  api.catch(() => undefined);
  const host = await startHost({ dispatcher: opening.then(async (ctx) => (await api).createAppDispatcher(ctx)), staticDir: RENDERER_DIR, port }).catch(
    (error: unknown) => {
      started();
      throw error;
    },
  );
  log(`Memdir is running at ${host.url}`);
  open(
    import('../../app/index.js').then(({ AppContext }) =>
      AppContext.open({
        ...(values.home ? { homeFlag: values.home } : {}),
        ...(values['data-dir'] ? { dataDir: path.resolve(values['data-dir']) } : {}),
        watch: true,
        // The page loads meanwhile: its first list is answered before the services take the CPU.
        servicesAfterFirstList: true,
      }),
    ),
  );
  let ctx: AppContext;
  try {
    ctx = await opening;
  } catch (error) {
    started();
    await host.close();
    throw error;
  }
  try {
    // The dashboard's first list is answered meanwhile (createAppDispatcher); a service that
    // cannot start still stops the host, as before.
    await ctx.servicesStarted;
  } catch (error) {
    await host.close();
    await ctx.close().catch(() => undefined);
    throw error;
  } finally {
    // The first list is answered and the services have started (or failed): V8's own budget from here on.
    started();
  }
  // A newcomer may start Memdir before Claude Code's first session: say that is fine (the watcher waits for the home).
  log(
    `Home: ${ctx.home}${ctx.homeExists() ? '' : " (not there yet: Claude Code makes it at its first session, and Memdir shows its memories as it writes them; meanwhile the app's demo workspace shows what Memdir does)"}`,
  );
  return {
    url: host.url,
    async close() {
      await host.close();
      await ctx.close();
    },
  };
}
