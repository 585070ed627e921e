/** The review queue, the extraction log and "Extract now" (issue 5). */
import { acceptProposal, ExtractionStore, rejectProposal } from '../extract/index.js';
import type { Handlers } from './dispatch.js';

export const extractHandlers: Pick<Handlers, 'extract.queue' | 'extract.accept' | 'extract.reject' | 'extract.log' | 'extract.run'> = {
  async 'extract.queue'({ dir, status }, ctx) {
    const store = new ExtractionStore(ctx.dataDir);
    const proposals = await store.listProposals({ ...(dir ? { project: dir } : {}), status });
    const pending: Record<string, number> = {};
    for (const p of status === 'pending' && !dir ? proposals : await store.listProposals({ status: 'pending' }))
      pending[p.project] = (pending[p.project] ?? 0) + 1;
    return { proposals, pending };
  },
  async 'extract.accept'({ id, edit, baseText }, ctx) {
    const store = new ExtractionStore(ctx.dataDir);
    // Checked and written as extraction does in the project's memory-store mode, as its sessions see the setting now.
    const project = (await store.getProposal(id))?.project;
    const memoryStores = project ? (await ctx.project(project).catch(() => null))?.settings.memoryStores : null;
    const proposal = await acceptProposal(
      ctx.dataDir,
      id,
      edit,
      { ...(baseText !== undefined ? { baseText } : {}), memoryStores: memoryStores ?? null },
      store,
    );
    ctx.changed(proposal.project, proposal.memoryDir);
    return { proposal };
  },
  async 'extract.reject'({ id, reason }, ctx) {
    return { proposal: await rejectProposal(ctx.dataDir, id, reason) };
  },
  async 'extract.log'({ dir, limit }, ctx) {
    return { entries: await new ExtractionStore(ctx.dataDir).readLog({ ...(dir ? { project: dir } : {}), limit }) };
  },
  async 'extract.run'({ dir }, ctx) {
    await ctx.project(dir);
    return ctx.autoMemory.extraction.runProject(dir);
  },
};
