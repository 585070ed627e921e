/**
 * Relink and merge (issue 18, items 3 and 4), the service the CLI and the app both call:
 * - relink: an orphan's memories (private, team, the local agent memory of its old repository's
 *   root and launch directories, agent-places.ts) move into the memory directory Claude Code now uses for the project's new path
 *   (`locateProject`: R-KEY, R-SANITIZE and the settings that move memory);
 * - merge: one project's memory into another's with the same identity (two clones, a moved copy).
 * Both plan first (what is added, identical, in conflict, what the index can take), refuse
 * without `force` when the identities disagree or another orphan claims the same place, and
 * apply as one merge with one undo. Claude Code's other data (transcripts, settings) is never
 * written.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MergePlan, MergeRecord } from '../../shared/contract/identity.js';
import { compareIdentities, identitiesDisagree, type ProjectIdentity } from '../../shared/project-identity.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { readSnapshot, recordedMemoryDirs } from '../history/index.js';
import {
  identityOfPath,
  listSubfolders,
  type LaunchDirsOf,
  locateProject,
  MemoryError,
  type ProjectLocation,
  ProjectNotFoundError,
  readPathFacts,
  rememberProjectPath,
  scanHome,
  scanProject,
} from '../memdir/index.js';
import { type MergeArea, applyMerge, planAreas, planFiles, readArea } from './merge-apply.js';
import { agentAreaName, agentFolderOf, agentPlaces, linkedAgentFolder, placeName, placeUnder } from './agent-places.js';
import type { FileMap } from './merge-plan.js';
import { findOrphans, isOrphan } from './orphans.js';

/** Where the service works. */
export interface RelinkContext {
  home: string;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Workspace folders from Settings (for the claims of other orphans). */
  workspaces?: readonly string[];
}

/** The private and team areas of a memory directory into another. */
function memoryAreas(from: string, to: string, removeSource: boolean, skipped: string[]): MergeArea[] {
  const areas: MergeArea[] = [];
  for (const [area, prefix] of [
    ['private', ''],
    ['team', 'team/'],
  ] as const) {
    const src = readArea(path.join(from, prefix), { excludeTeam: area === 'private' });
    skipped.push(...src.skipped.map((s) => `${prefix}${s}`));
    if (src.files.size === 0) continue;
    const dst = readArea(path.join(to, prefix), { excludeTeam: area === 'private' });
    areas.push({ area, fromRoot: from, prefix, toRoot: to, source: src.files, target: dst.files, removeSource });
  }
  return areas;
}

/**
 * Agent memory kept in the project's directories (R-AGENT: `.claude/agent-memory/`,
 * `.claude/agent-memory-local/` of the root and of each directory its sessions start in), to the
 * same place under the new root: from the old places on disk — only the never-committed local
 * memory, since the project memory is shared through git — or, for a place that is gone, from
 * what Memdir's history last recorded of it.
 */
async function agentAreas(source: ProjectScan, newRoot: string, dataDir: string, warnings: string[]): Promise<MergeArea[]> {
  // A repository that is gone has no transcripts left to say where it was: the paths recorded of
  // it (its key, then its sessions' launch directories) do.
  const oldRoot = source.path ?? source.identity.paths[0] ?? null;
  if (!oldRoot || oldRoot === newRoot) return [];
  const project: LaunchDirsOf = { ...source, path: oldRoot, launchDirs: [...source.launchDirs, ...source.identity.paths.map((cwd) => ({ cwd }))] };
  const areas: MergeArea[] = [];
  const recorded = await recordedMemoryDirs(dataDir);
  const { inside, outside } = agentPlaces(oldRoot, project);
  for (const dir of outside)
    warnings.push(
      `The agent memory in ${path.join(dir, '.claude')} (sessions started there, outside ${oldRoot}) stays where it is: it has no place under ${newRoot}.`,
    );
  for (const { rel, dir } of inside) {
    const toDir = placeUnder(newRoot, rel);
    for (const scope of ['project', 'local'] as const) {
      const from = agentFolderOf(dir, scope);
      const to = agentFolderOf(toDir, scope);
      const onDisk = fs.existsSync(from);
      if (onDisk && scope === 'project') {
        if (listSubfolders(from).length > 0) warnings.push(`The project agent memory in ${from} is committed and shared through git; it is left to git.`);
        continue;
      }
      const sources: { type: string; fromRoot: string | null; files: FileMap }[] = [];
      if (onDisk) {
        for (const { name: type, link } of listSubfolders(from))
          if (link) warnings.push(linkedAgentFolder(from, type, 'stays where it is'));
          else sources.push({ type, fromRoot: path.join(from, type), files: readArea(path.join(from, type), { excludeTeam: false }).files });
      } else {
        for (const d of recorded.filter((r) => path.dirname(r) === from))
          sources.push({ type: path.basename(d), fromRoot: null, files: await readSnapshot(d, { dataDir }) });
      }
      const held = sources.filter((s) => s.files.size > 0);
      if (held.length === 0) continue;
      if (!fs.existsSync(toDir)) {
        warnings.push(`The ${scope} agent memory in ${from} (sessions started in ${placeName(rel)}) stays where it is: ${toDir} is not a folder.`);
        continue;
      }
      for (const { type, fromRoot, files } of held)
        areas.push({
          area: agentAreaName(scope, type, rel),
          fromRoot,
          prefix: '',
          toRoot: path.join(to, type),
          source: files,
          target: readArea(path.join(to, type), { excludeTeam: false }).files,
          removeSource: fromRoot !== null,
        });
    }
  }
  return areas;
}

/** A team folder that syncs: moving its files away would have the next pull bring them back into the old folder. */
async function teamSyncWarning(dataDir: string, from: string, to: string, fromDir: string, areas: readonly MergeArea[]): Promise<string | null> {
  if (!areas.some((a) => a.area === 'team')) return null;
  // Loaded here, not with relink: the app's start puts back a killed merge through relink's front door before its first list, and team sync's code waits until after it.
  const { ConnectionStore } = await import('../team/index.js');
  const connection = await new ConnectionStore(dataDir).forMemoryDir(from).catch(() => null);
  if (!connection) return null;
  const target = await new ConnectionStore(dataDir).forMemoryDir(to).catch(() => null);
  if (target && target.server === connection.server && target.team === connection.team) return null;
  return `The team memory of ${fromDir} syncs with ${connection.server} (team ${connection.team}): connect the new place to that team (its Team sync tab, or \`memdir team connect\`) and disconnect ${fromDir}, or the next pull brings the team files back into the old folder.`;
}

async function targetIdentity(loc: ProjectLocation): Promise<ProjectIdentity | null> {
  const read = await readPathFacts(loc.key).catch(() => null);
  return read ? identityOfPath(read.explanation, read.facts) : null;
}

/** A plan from its areas: files, index, the warnings every merge gives (cut, conflicts) and evidence. Relink, merge and import alike. */
export function planOf(
  kind: MergePlan['kind'],
  source: MergePlan['source'],
  target: MergePlan['target'],
  areas: MergeArea[],
  warnings: string[],
  blockers: string[],
): MergePlan {
  const plans = planAreas(areas);
  const evidence = source.identity && target.identity ? compareIdentities(source.identity, target.identity) : [];
  // Not a refusal (a project renamed before Memdir knew it shares nothing it can see), but said before anything moves.
  if (evidence.length === 0)
    warnings.push(
      `Nothing shows that ${target.path ?? `projects/${target.dir}`} is the project of ${source.dir ?? source.label}: they have no remote, first commit or folder name in common. Look at what would come over before you go on.`,
    );
  for (const p of plans)
    if (p.notInIndex.length > 0)
      warnings.push(
        `${p.notInIndex.length} index line(s) of the ${p.area} memory would fall past the cut of ${target.dir}'s MEMORY.md (200 lines or 25,000 characters, as Claude Code loads it) and are left out of the index: ${p.notInIndex.join(', ')}. The files come over all the same, and the moved MEMORY.md is kept as a conflict, so none of its lines is lost; make room in the index to list them.`,
      );
  const conflicts = plans.reduce((n, p) => n + p.conflict.length, 0);
  if (conflicts > 0)
    warnings.push(
      `${conflicts} file(s) exist on both sides with different contents: the version in ${target.dir} stays and the other is kept for you to resolve (\`memdir merge conflicts\`, or the app's merge editor).`,
    );
  return {
    kind,
    source,
    target,
    files: planFiles(plans),
    areas: areas.map((a, i) => ({ area: a.area, from: a.fromRoot, to: a.toRoot, indexAdded: plans[i]!.indexAdded, notInIndex: plans[i]!.notInIndex })),
    evidence,
    warnings,
    blockers,
  };
}

async function projectByDir(ctx: RelinkContext, dir: string, lists: 'orphans' | 'scan'): Promise<ProjectScan> {
  if (!/^[^/\\]+$/.test(dir) || dir === '.' || dir === '..') {
    const what = fs.existsSync(dir) ? `"${dir}" is a path, not` : `"${dir}" is not`;
    throw new MemoryError(
      'invalid-input',
      `${what} a project folder name under ${path.join(ctx.home, 'projects')}; \`memdir ${lists}\` lists the ${lists === 'orphans' ? 'orphans' : 'projects'} by name.`,
    );
  }
  const project = await scanProject(ctx.home, dir, { dataDir: ctx.dataDir, ...(ctx.env ? { env: ctx.env } : {}) });
  if (!project.exists && !fs.existsSync(path.join(ctx.home, 'projects', dir)))
    throw new MemoryError('not-found', `There is no project "${dir}" in ${ctx.home}.`);
  return project;
}

/** What relinking orphan `dir` to `newPath` would do (nothing is written). */
export async function planRelink(ctx: RelinkContext, dir: string, newPath: string): Promise<{ plan: MergePlan; areas: MergeArea[] }> {
  const env = ctx.env ?? process.env;
  const source = await projectByDir(ctx, dir, 'orphans');
  if (!isOrphan(source)) {
    const where = source.identity.paths.find((p) => fs.existsSync(p));
    throw new MemoryError(
      'invalid-input',
      `${dir} is not an orphan: ${where ? `its project is still at ${where}` : 'it holds no memories'}. To bring two copies of one project together, merge them (\`memdir merge ${dir} <into>\`).`,
    );
  }
  const target = await locateProject(ctx.home, newPath, env).catch((error: Error) => {
    // The new path is where the project is now: a place, never a project name.
    if (error instanceof ProjectNotFoundError && !fs.existsSync(newPath))
      throw new MemoryError('not-found', `There is no directory "${newPath}": give the directory where the project is now.`);
    throw new MemoryError('not-found', error.message);
  });
  if (target.dir === dir) throw new MemoryError('invalid-input', `${newPath} is keyed to ${dir} itself: Claude Code already reads this memory there.`);
  if (!fs.existsSync(target.key)) {
    throw new MemoryError(
      'invalid-input',
      `${target.dir} is itself an orphan: its project paths (${
        target.launchFolders
          .map((l) => l.cwd)
          .filter(Boolean)
          .join(', ') || target.key
      }) no longer exist. Relink it first, or give the folder where the project is now.`,
    );
  }
  const targetScan = (await scanHome(ctx.home, { dataDir: ctx.dataDir, env })).projects;
  const warnings: string[] = [];
  const blockers: string[] = [];
  const tid = await targetIdentity(target);
  if (tid && identitiesDisagree(source.identity, tid)) {
    blockers.push(`${target.key} does not look like the project of ${dir}: ${describeMismatch(source.identity, tid)}.`);
  }
  const report = await findOrphans(ctx.home, { dataDir: ctx.dataDir, env, scan: targetScan, workspaces: ctx.workspaces ?? [], lookIn: [target.key] });
  const others = report.orphans
    .filter(
      (o) =>
        o.dir !== dir && o.candidates.some((c) => c.path === target.key && (c.evidence.includes('same-remote') || c.evidence.includes('same-root-commit'))),
    )
    .map((o) => o.dir);
  if (others.length > 0)
    blockers.push(
      `Another orphan also claims ${target.key}: ${others.join(', ')}. Relinking both merges both into it; relink them one at a time, each with force.`,
    );
  const skipped: string[] = [];
  const areas = [...memoryAreas(source.memoryDir, target.memoryDir, true, skipped), ...(await agentAreas(source, target.key, ctx.dataDir, warnings))];
  if (skipped.length > 0) warnings.push(`Left where they are (not memories Memdir moves): ${skipped.join(', ')}.`);
  if (areas.length === 0) warnings.push(`${dir} holds nothing to move.`);
  const syncing = await teamSyncWarning(ctx.dataDir, source.memoryDir, target.memoryDir, dir, areas);
  if (syncing) warnings.push(syncing);
  const plan = planOf(
    'relink',
    { label: `projects/${dir}`, dir, memoryDir: source.memoryDir, identity: source.identity },
    { path: target.key, dir: target.dir, memoryDir: target.memoryDir, identity: tid },
    areas,
    warnings,
    blockers,
  );
  return { plan, areas };
}

function describeMismatch(a: ProjectIdentity, b: ProjectIdentity): string {
  const parts: string[] = [];
  parts.push(
    b.remotes.length === 0
      ? 'it has no remote'
      : `its remote${b.remotes.length > 1 ? 's' : ''} (${b.remotes.join(', ')}) ${a.remotes.length ? `differ from ${a.remotes.join(', ')}` : 'were never seen for it'}`,
  );
  if (a.rootCommits.length && b.rootCommits.length)
    parts.push(`its first commit ${b.rootCommits[0]!.slice(0, 12)} is not the recorded ${a.rootCommits[0]!.slice(0, 12)} (was its history rewritten?)`);
  return parts.join(', and ');
}

function refuseBlocked(plan: MergePlan, force: boolean): void {
  if (plan.blockers.length > 0 && !force)
    throw new MemoryError('conflict', `${plan.blockers.join(' ')} Nothing was written; if you are sure, do it again with force (--force).`);
}

/** Relink orphan `dir` to `newPath` (see the module comment). */
export async function relink(ctx: RelinkContext, dir: string, newPath: string, options: { force?: boolean } = {}): Promise<MergeRecord> {
  const { plan, areas } = await planRelink(ctx, dir, newPath);
  refuseBlocked(plan, options.force ?? false);
  // No session ran there yet: the folder's project is known from here on.
  if (plan.target.path) await rememberProjectPath(ctx.home, plan.target.dir, plan.target.path, ctx.dataDir);
  return applyMerge(areas, {
    dataDir: ctx.dataDir,
    kind: 'relink',
    plan,
    summaryTo: `Relinked from projects/${dir} (the project moved to ${plan.target.path})`,
    summaryFrom: `Moved to projects/${plan.target.dir} (the project is now at ${plan.target.path})`,
  });
}

/** What merging project `from` into project `into` would do. */
export async function planMerge(ctx: RelinkContext, from: string, into: string): Promise<{ plan: MergePlan; areas: MergeArea[] }> {
  if (from === into) throw new MemoryError('invalid-input', 'A project cannot be merged into itself.');
  const source = await projectByDir(ctx, from, 'scan');
  const target = await projectByDir(ctx, into, 'scan');
  const warnings: string[] = [];
  const blockers: string[] = [];
  if (identitiesDisagree(source.identity, target.identity))
    blockers.push(`${from} and ${into} do not look like one project: ${describeMismatch(source.identity, target.identity)}.`);
  const live = source.identity.paths.filter((p) => fs.existsSync(p));
  if (live.length > 0) warnings.push(`Sessions started in ${live.join(', ')} will find an empty memory after the merge: Claude Code reads memory by path.`);
  const skipped: string[] = [];
  const sourcePath = source.path ?? source.identity.paths[0] ?? null;
  const targetPath = target.path ?? target.identity.paths[0] ?? null;
  const areas = [
    ...memoryAreas(source.memoryDir, target.memoryDir, true, skipped),
    ...(sourcePath && targetPath && fs.existsSync(targetPath) ? await agentAreas(source, targetPath, ctx.dataDir, warnings) : []),
  ];
  if (skipped.length > 0) warnings.push(`Left where they are (not memories Memdir moves): ${skipped.join(', ')}.`);
  const syncing = await teamSyncWarning(ctx.dataDir, source.memoryDir, target.memoryDir, from, areas);
  if (syncing) warnings.push(syncing);
  const plan = planOf(
    'merge',
    { label: `projects/${from}`, dir: from, memoryDir: source.memoryDir, identity: source.identity },
    { path: targetPath, dir: into, memoryDir: target.memoryDir, identity: target.identity },
    areas,
    warnings,
    blockers,
  );
  return { plan, areas };
}

/** Merge project `from` into project `into`. */
export async function mergeProjects(ctx: RelinkContext, from: string, into: string, options: { force?: boolean } = {}): Promise<MergeRecord> {
  const { plan, areas } = await planMerge(ctx, from, into);
  refuseBlocked(plan, options.force ?? false);
  return applyMerge(areas, {
    dataDir: ctx.dataDir,
    kind: 'merge',
    plan,
    summaryTo: `Merged from projects/${from} (the same project${plan.evidence.length ? `: ${plan.evidence.join(', ')}` : ''})`,
    summaryFrom: `Merged into projects/${into}`,
  });
}
