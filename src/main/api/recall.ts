/** Recall, the model connection and Memdir's own settings. */
import { CREDENTIAL_NAMES, loadAppSettings, updateAppSettings } from '../settings/index.js';
import { RecentQueries } from '../recall/index.js';
import { RpcError } from '../../shared/contract/define.js';
import type { SettingsView } from '../../shared/contract/recall.js';
import { type AppContext } from '../app/index.js';
import type { Handlers } from './dispatch.js';

async function settingsView(ctx: AppContext): Promise<SettingsView> {
  const { settings, problems } = await loadAppSettings(ctx.dataDir);
  const stored = (await ctx.credentials.get(CREDENTIAL_NAMES.anthropicApiKey)) !== null;
  return { settings, problems, apiKey: { stored, encrypted: ctx.credentials.encrypted, fromEnv: Boolean(ctx.env.ANTHROPIC_API_KEY?.trim()) } };
}

/** The project's directory name, checked to exist in the current home. */
async function projectDir(ctx: AppContext, dir: string): Promise<string> {
  return (await ctx.project(dir)).dir;
}

export const recallHandlers: Pick<
  Handlers,
  | 'recall.run'
  | 'recall.compare'
  | 'recall.claudeCode'
  | 'recall.explain'
  | 'recall.recent'
  | 'model.status'
  | 'settings.get'
  | 'settings.update'
  | 'settings.setApiKey'
> = {
  async 'recall.run'({ dir, query, offline }, ctx) {
    const project = await projectDir(ctx, dir);
    const result = await ctx.recall.recall({ project, query, ...(offline ? { offline } : {}) });
    await new RecentQueries(ctx.dataDir).add(project, query);
    return result;
  },
  async 'recall.compare'({ dir, query, exclude }, ctx) {
    const project = await projectDir(ctx, dir);
    const result = await ctx.recall.compare({ project, query, ...(exclude ? { exclude } : {}) });
    await new RecentQueries(ctx.dataDir).add(project, query);
    return result;
  },
  async 'recall.claudeCode'({ dir, query, session, offline }, ctx) {
    const project = await projectDir(ctx, dir);
    const result = await ctx.recall.claudeCode({ project, query, session: session ?? null, ...(offline ? { offline } : {}) });
    await new RecentQueries(ctx.dataDir).add(project, query);
    return result;
  },
  async 'recall.explain'({ dir, query, file }, ctx) {
    return ctx.recall.explain({ project: await projectDir(ctx, dir), query, file });
  },
  async 'recall.recent'(_input, ctx) {
    return { queries: await new RecentQueries(ctx.dataDir).list() };
  },
  async 'model.status'(_input, ctx) {
    return (await ctx.recall.provider()).status();
  },
  async 'settings.get'(_input, ctx) {
    return settingsView(ctx);
  },
  async 'settings.update'({ patch }, ctx) {
    const result = await updateAppSettings(ctx.dataDir, patch);
    if (!result.ok) throw new RpcError({ code: 'invalid-input', message: 'Those settings were not saved.', issues: result.problems });
    // The desktop app's native parts (menus, dialogs, the page's color scheme) follow the theme.
    ctx.desktop?.applyTheme(result.settings.theme);
    return settingsView(ctx);
  },
  async 'settings.setApiKey'({ key }, ctx) {
    if (key === null) await ctx.credentials.delete(CREDENTIAL_NAMES.anthropicApiKey);
    else await ctx.credentials.set(CREDENTIAL_NAMES.anthropicApiKey, key);
    return settingsView(ctx);
  },
};
