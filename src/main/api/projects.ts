/** Projects: the dashboard list and one project in full. Thin: the scan does the work. */
import { MEMORY_TYPES } from '../../shared/memory-types.js';
import type { MemoryDirScan, ProjectScan } from '../../shared/scan-types.js';
import type { ProjectSummary } from '../../shared/contract/projects.js';
import type { Handlers } from './dispatch.js';

function countByType(scan: MemoryDirScan): ProjectSummary['private'] {
  const byType = Object.fromEntries([...MEMORY_TYPES, 'untyped'].map((t) => [t, 0])) as ProjectSummary['private']['byType'];
  for (const m of scan.memories) byType[m.type ?? 'untyped']++;
  return { total: scan.memories.length, byType, cut: scan.index.cutMemories.length };
}

/** An index's load and cut without the names of the files it loads: the dashboard never shows them (they were most of the list's bytes). */
function withoutLoadedNames({ loaded: _loaded, ...load }: ProjectScan['index']): Omit<ProjectScan['index'], 'loaded'> {
  return load;
}

/**
 * A project's settings as the contract sends them (projectSettingsSchema): without the permission
 * rules the scan keeps for the dream gate (and `memdir scan` prints). The host sends its
 * list and get answers as produced (dispatch.ts, OUTPUTS_PROVEN_EXACT), so they must be the
 * contract's shape exactly.
 */
function contractSettings({ permissionRules: _rules, ...settings }: ProjectScan['settings'] & { permissionRules?: unknown }): ProjectScan['settings'] {
  return settings;
}

/** The dashboard row of a project. */
export function summarize(p: ProjectScan): ProjectSummary {
  const all = [...p.problems, ...(p.team?.problems ?? [])];
  const lastChange = Math.max(p.lastChangeMs ?? 0, p.team?.lastChangeMs ?? 0);
  return {
    dir: p.dir,
    path: p.path,
    memoryDir: p.memoryDir,
    exists: p.exists,
    private: countByType(p),
    team: p.team ? countByType(p.team) : null,
    index: withoutLoadedNames(p.index),
    problems: {
      error: all.filter((x) => x.severity === 'error').length,
      warning: all.filter((x) => x.severity === 'warning').length,
      hint: all.filter((x) => x.severity === 'hint').length,
    },
    lastChangeMs: lastChange > 0 ? lastChange : null,
    transcripts: p.transcripts,
    launchDirs: p.launchDirs,
    readInstead: p.readInstead,
    settings: contractSettings(p.settings),
    identity: p.identity,
  };
}

export const projectHandlers: Pick<Handlers, 'projects.list' | 'projects.get'> = {
  async 'projects.list'(_input, ctx) {
    const scan = await ctx.scanHome();
    return { home: scan.home, exists: scan.exists, projects: scan.projects.map(summarize) };
  },
  async 'projects.get'({ dir }, ctx) {
    const project = await ctx.project(dir);
    return { ...project, settings: contractSettings(project.settings) };
  },
};
