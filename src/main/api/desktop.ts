/** The desktop app's own abilities (src/shared/contract/desktop.ts); `unavailable` in the headless host. */
import fs from 'node:fs/promises';
import { RpcError } from '../../shared/contract/define.js';
import type { DesktopStatus } from '../../shared/contract/desktop.js';
import { type AppContext } from '../app/index.js';
import { backgroundWork, commandInstallStatus, type DesktopShell, installMemdirCommand } from '../desktop/index.js';
import { installedMemdirCommand } from '../hooks/index.js';
import { checkFileName, inScope } from '../memdir/index.js';
import { resolveInside } from '../core/index.js';
import type { Handlers } from './dispatch.js';

function shellOf(ctx: AppContext): DesktopShell {
  if (!ctx.desktop) throw new RpcError({ code: 'unavailable', message: 'Only the desktop app can do this; the browser version cannot reach other programs.' });
  return ctx.desktop;
}

const commandOptions = (ctx: AppContext) => ({ script: installedMemdirCommand(), env: ctx.env });

async function status(ctx: AppContext): Promise<DesktopStatus> {
  return {
    available: ctx.desktop !== null,
    background: await backgroundWork(ctx),
    openAtLogin: (await ctx.desktop?.openAtLogin()) ?? null,
    command: await commandInstallStatus(commandOptions(ctx)),
  };
}

/** The memory file a call names, as an absolute path confined to its memory dir; it must be a file. */
async function memoryPath(ctx: AppContext, dir: string, scope: 'private' | 'team', file: string): Promise<string> {
  const name = checkFileName(file);
  const { project } = await ctx.where(dir, scope);
  const abs = await resolveInside(project.memoryDir, inScope(scope, name));
  const stat = await fs.lstat(abs).catch(() => null);
  if (!stat?.isFile()) throw new RpcError({ code: 'not-found', message: `${name} no longer exists; it may have been deleted or renamed outside Memdir.` });
  return abs;
}

export const desktopHandlers: Pick<
  Handlers,
  'desktop.status' | 'desktop.setOpenAtLogin' | 'desktop.installCommand' | 'desktop.revealMemory' | 'desktop.openMemory'
> = {
  async 'desktop.status'(_input, ctx) {
    return status(ctx);
  },
  async 'desktop.setOpenAtLogin'({ on }, ctx) {
    await shellOf(ctx).setOpenAtLogin(on);
    return status(ctx);
  },
  async 'desktop.installCommand'(_input, ctx) {
    shellOf(ctx);
    await installMemdirCommand(commandOptions(ctx));
    return status(ctx);
  },
  async 'desktop.revealMemory'({ dir, scope, file }, ctx) {
    const shell = shellOf(ctx);
    const abs = await memoryPath(ctx, dir, scope, file);
    shell.revealFile(abs);
    return { path: abs };
  },
  async 'desktop.openMemory'({ dir, scope, file }, ctx) {
    const shell = shellOf(ctx);
    const abs = await memoryPath(ctx, dir, scope, file);
    const problem = await shell.openFile(abs);
    if (problem) throw new RpcError({ code: 'unavailable', message: `${file} could not be opened: ${problem}` });
    return { path: abs };
  },
};
