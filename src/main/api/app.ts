/** The app itself: where it looks, the demo workspace. */
import path from 'node:path';
import { VERSION } from '../core/index.js';
import { type AppContext, createDemoHome } from '../app/index.js';
import type { AppInfo } from '../../shared/contract/app.js';
import type { Handlers } from './dispatch.js';

function info(ctx: AppContext): AppInfo {
  return {
    version: VERSION,
    home: ctx.home,
    homeExists: ctx.homeExists(),
    homeSource: ctx.homeSource,
    dataDir: ctx.dataDir,
    demoHome: ctx.demoHome,
    platform: `${process.platform}-${process.arch}`,
  };
}

export const appHandlers: Pick<Handlers, 'app.info' | 'app.openDemo' | 'app.setHome'> = {
  async 'app.info'(_input, ctx) {
    return info(ctx);
  },
  async 'app.openDemo'(_input, ctx) {
    const home = await createDemoHome(path.join(ctx.dataDir, 'demo'), ctx.dataDir);
    await ctx.setHome(home, home);
    return info(ctx);
  },
  async 'app.setHome'({ home }, ctx) {
    await ctx.setHome(home === null ? null : path.resolve(home));
    return info(ctx);
  },
};
