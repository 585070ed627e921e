/** Drafts: unsaved edits kept per file in Memdir's data dir. Thin: draft-store does the work; every window hears of a change (drafts-changed). */
import { discardDraft, keepDraft, listDrafts } from '../app/index.js';
import type { Handlers } from './dispatch.js';

export const draftHandlers: Pick<Handlers, 'drafts.list' | 'drafts.keep' | 'drafts.discard'> = {
  async 'drafts.list'(_input, ctx) {
    return { drafts: await listDrafts(ctx.dataDir) };
  },
  async 'drafts.keep'(draft, ctx) {
    const kept = await keepDraft(ctx.dataDir, draft);
    ctx.events.publish({ type: 'drafts-changed', dir: kept.dir, scope: kept.scope, file: kept.file, window: kept.window ?? null, kept: true });
    return { draft: kept };
  },
  async 'drafts.discard'({ window, over, ...ref }, ctx) {
    const discarded = await discardDraft(ctx.dataDir, ref, { window, over });
    if (discarded) ctx.events.publish({ type: 'drafts-changed', ...ref, window: window ?? null, kept: false });
    return { discarded };
  },
};
