/**
 * `npm run serve -- [--home H] [--port N]`: the app without Electron — the same API and the
 * built renderer on 127.0.0.1, for a browser. Prints the URL with its per-run token.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AppContext } from '../../app/app-context.js';
import { createAppDispatcher } from '../../api/index.js';
import { startHost } from './host-server.js';

/** The built renderer, beside this file in out/ (out/main/shell/host → out/renderer). */
export const RENDERER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../renderer');

export async function serve(
  argv: string[],
  log: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<{ close: () => Promise<void>; url: string }> {
  const { values } = parseArgs({ args: argv, options: { home: { type: 'string' }, port: { type: 'string' }, 'data-dir': { type: 'string' } }, strict: true });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (0-65535), not "${values.port}"`);
  const ctx = await AppContext.create({
    ...(values.home ? { homeFlag: values.home } : {}),
    ...(values['data-dir'] ? { dataDir: path.resolve(values['data-dir']) } : {}),
    watch: true,
  });
  const host = await startHost({ dispatcher: createAppDispatcher(ctx), staticDir: RENDERER_DIR, port });
  log(`Memdir is running at ${host.url}`);
  log(`Home: ${ctx.home}${ctx.homeExists() ? '' : ' (not found yet: open the demo workspace from the app)'}`);
  return {
    url: host.url,
    async close() {
      await host.close();
      await ctx.close();
    },
  };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  try {
    const running = await serve(process.argv.slice(2));
    const stop = () => void running.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (error) {
    process.stderr.write(`memdir serve: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
