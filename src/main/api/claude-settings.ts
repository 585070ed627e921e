/** Claude Code settings Memdir writes for the user: the autoDreamEnabled switch (R-DREAM-GATE). */
import { readAutoDreamSetting, writeAutoDreamSetting } from '../settings/index.js';
import type { Handlers } from './dispatch.js';

export const claudeSettingsHandlers: Pick<Handlers, 'claudeSettings.autoDream' | 'claudeSettings.setAutoDream'> = {
  async 'claudeSettings.autoDream'(_input, ctx) {
    return readAutoDreamSetting(ctx.home, ctx.env);
  },
  async 'claudeSettings.setAutoDream'({ enabled }, ctx) {
    return writeAutoDreamSetting(ctx.home, enabled, ctx.env);
  },
};
