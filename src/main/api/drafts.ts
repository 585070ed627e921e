/** Drafts: unsaved edits kept per file in Memdir's data dir. Thin: draft-store does the work */
import { discardDraft, keepDraft, listDrafts } from '../app/index.js';
import type { Handlers } from './dispatch.js';

export const draftHandlers: Pick<Handlers, 'drafts.list' | 'drafts.keep' | 'drafts.discard'> = {
  async 'drafts.list'(_input, ctx) {
    return { drafts: await listDrafts(ctx.dataDir) };
  },
  async 'drafts.keep'(draft, ctx) {
    return { draft: await keepDraft(ctx.dataDir, draft) };
  },
  async 'drafts.discard'({ window, over, ...ref }, ctx) {
    return { discarded: await discardDraft(ctx.dataDir, ref, { window, over }) };
  },
};
