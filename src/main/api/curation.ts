/** Health's fixes with their effect shown first, Make room, duplicates and the editor's repeat check. */
import path from 'node:path';
import { TEAM_DIR } from '../../shared/limits.js';
import type { IndexImpact } from '../../shared/index-impact.js';
import type { IndexImpactShape } from '../../shared/contract/curation.js';
import { findDuplicatePairs, findSimilar, makeRoom, mergeMemories, projectTimeline, readDuplicateMemories } from '../curation/index.js';
import { recordSnapshot } from '../history/index.js';
import { applyFixes, previewFixes } from '../memdir/index.js';
import type { Handlers } from './dispatch.js';

/** The impact without the text after (the renderer has what it needs to show it). */
function impactView({ text: _text, ...impact }: IndexImpact): IndexImpactShape {
  return impact;
}

export const curationHandlers: Pick<
  Handlers,
  'health.preview' | 'health.fix' | 'index.makeRoom' | 'duplicates.list' | 'duplicates.merge' | 'projects.timeline' | 'memories.similar'
> = {
  async 'health.preview'({ dir, scope, fixes, first }, ctx) {
    const where = await ctx.where(dir, scope);
    const { plan, each } = await previewFixes(where, fixes, first ? { first } : {});
    return { applied: plan.applied, heldBack: plan.heldBack, stale: plan.stale, impact: impactView(plan.impact), each };
  },
  async 'health.fix'({ dir, scope, fixes, pastCut }, ctx) {
    const where = await ctx.where(dir, scope);
    const { applied, heldBack, impact, entry } = await applyFixes(
      where,
      fixes.map((f) => ({ kind: f.kind, file: f.file, line: f.line ?? null })),
      { pastCut: pastCut ?? false },
    );
    ctx.changed(dir, where.memoryDir);
    return { applied: applied.length, heldBack, impact: impactView(impact), rev: entry?.rev ?? null };
  },
  async 'index.makeRoom'({ dir, scope, baseText, actions }, ctx) {
    const where = await ctx.where(dir, scope);
    const { impact, entry, notes, retired } = await makeRoom(where, { baseText, actions });
    ctx.changed(dir, where.memoryDir);
    return { rev: entry?.rev ?? null, impact: impactView(impact), notes, retired };
  },
  async 'duplicates.list'({ dir }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    const memories = readDuplicateMemories(project.memoryDir, project.memories);
    const byFile = new Map(memories.map((m) => [m.file, m]));
    return {
      pairs: findDuplicatePairs(memories).map((p) => {
        const view = (file: string) => {
          const { file: f, name, description, type, body, text, mtimeMs } = byFile.get(file)!;
          return { file: f, name, description, type, body, text, mtimeMs };
        };
        return { kind: p.kind, score: p.score, a: view(p.files[0]), b: view(p.files[1]) };
      }),
    };
  },
  async 'duplicates.merge'({ dir, keeper, others, expect }, ctx) {
    const where = await ctx.where(dir, 'private');
    const result = await mergeMemories(where, { keeper, others, ...(expect ? { expect } : {}) });
    ctx.changed(dir, where.memoryDir);
    return { rev: result.entry?.rev ?? null, keeper: result.keeper, merged: result.merged, impact: impactView(result.impact) };
  },
  async 'projects.timeline'({ dir, limit }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    if (project.exists) await recordSnapshot(project.memoryDir, { source: 'external', summary: 'Changes made outside Memdir', dataDir: ctx.dataDir });
    const points = await projectTimeline(
      project.memoryDir,
      { memories: project.memories.length, teamMemories: project.team?.memories.length ?? 0 },
      { dataDir: ctx.dataDir, ...(limit ? { limit } : {}) },
    );
    return { points };
  },
  async 'memories.similar'({ dir, scope, file, name, description, body }, ctx) {
    const { project } = await ctx.where(dir, scope);
    const scan = scope === 'team' ? project.team : project;
    if (!scan) return { matches: [] };
    const root = scope === 'team' ? path.join(project.memoryDir, TEAM_DIR) : project.memoryDir;
    const memories = readDuplicateMemories(root, scan.memories);
    return { matches: findSimilar({ name, description, body, type: null }, memories, file) };
  },
};
