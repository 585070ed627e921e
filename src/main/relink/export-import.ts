/**
 * Export and import (issue 18, item 6). `memdir export <project> <file>` writes one tar a person
 * can open: `memdir-export/manifest.json` (what it is, the project and its identity, every file
 * with its SHA-256), `memory/` (the memory directory: index, topic files, `team/`),
 * `agents/<scope>/<type>/` (the agent memory at the repository root), `agents-in/<dir>/<scope>/<type>/`
 * (that of each directory under the root its sessions start in, agent-places.ts) and
 * `history/memory.bundle` (the shadow history as a git bundle) — refused, nothing written, while
 * anything it packs holds a secret (export-secrets.ts). `memdir import <file> <project>`
 * reads it strictly — a corrupt or foreign archive is refused in a sentence, nothing written —
 * and brings it in through the merge of a relink (identical once, conflicts kept, the index
 * under the cut), its history kept beside the target's.
 */
import { failureWords } from '../../shared/failure-words.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import type { MergePlan, MergeRecord } from '../../shared/contract/identity.js';
import { identitiesDisagree } from '../../shared/project-identity.js';
import { projectIdentitySchema } from '../../shared/project-identity-schema.js';
import { VERSION } from '../core/version.js';
import {
  bundleHistory,
  type HistoryEntry,
  isReadableBundle,
  keepBundledHistory,
  listImportedHistories,
  recordExternalChanges,
  retireImportedHistory,
} from '../history/index.js';
import { identityOfPath, listSubfolders, locateProject, MemoryError, readPathFacts, rememberProjectPath, scanProject } from '../memdir/index.js';
import { writeFileAtomic } from '../core/safe-fs.js';
import { linkOnTheWay } from '../core/confined-path.js';
import { isAgentTypeDirName } from '../../shared/agent-type-name.js';
import { AGENT_MEMORY_FOLDER } from '../../shared/limits.js';
import { agentAreaName, agentFolderOf, agentPlaces, linkedAgentFolder, placeUnder } from './agent-places.js';
import { type ExportFinding, findExportSecrets } from './export-secrets.js';
import { type MergeArea, applyMerge, readArea } from './merge-apply.js';
import { readMergeRecord } from './merge-records.js';
import type { FileMap } from './merge-plan.js';
import { type RelinkContext, planOf } from './relink-service.js';
import { TAR_LIMITS, TarError, type TarEntry, readTar, writeTar } from './tar.js';

const ROOT = 'memdir-export';
const FORMAT = 'memdir-export';

const manifestSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  exportedAt: z.string(),
  memdirVersion: z.string(),
  project: z.object({ dir: z.string(), path: z.string().nullable(), identity: projectIdentitySchema.nullable() }),
  files: z.array(z.object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int().min(0) })),
  history: z.object({ path: z.literal('history/memory.bundle'), sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int().min(0) }).nullable(),
});
type Manifest = z.infer<typeof manifestSchema>;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** What an export wrote. */
export interface ExportResult {
  exported: true;
  file: string;
  project: { dir: string; path: string | null };
  files: number;
  bytes: number;
  history: boolean;
  /** The folder made for the archive (it did not exist; its parent did), or null. */
  createdFolder: string | null;
  /** What was left out, one sentence each (agent memory of a launch directory outside the root). */
  warnings: string[];
}

/** An export refused: what it would have packed holds secrets, and nothing was written. */
export interface ExportRefused {
  exported: false;
  file: string;
  project: { dir: string; path: string | null };
  findings: ExportFinding[];
}

/** How an export may go on past a finding. */
export interface ExportOptions {
  /** Leave the history out: only the current files (still checked) are packed. */
  withoutHistory?: boolean;
  /** Fingerprints of findings to pack anyway (a finding that is not a secret, or that the user means to carry). */
  allow?: readonly string[];
}

/**
 * Export `target`'s memory (private, team, agent) with its history into a new file `file`.
 * Everything it would pack is checked for secrets first (export-secrets.ts): with any finding not
 * allowed, nothing is written and the findings are returned.
 */
export async function exportProject(ctx: RelinkContext, target: string, file: string, options: ExportOptions = {}): Promise<ExportResult | ExportRefused> {
  const loc = await locateProject(ctx.home, target, ctx.env ?? process.env).catch((error: Error) => {
    throw new MemoryError('not-found', error.message);
  });
  const out = path.resolve(file);
  const folder = path.dirname(out);
  // A file on the way, or a folder given as the archive: said as such (a stat through a file throws ENOTDIR).
  if (fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory() === false)
    throw new MemoryError('invalid-input', `${folder} is a file, not a folder, so the export cannot be written in it (nothing was written).`);
  if (fs.statSync(out, { throwIfNoEntry: false })?.isDirectory())
    throw new MemoryError(
      'invalid-input',
      `${out} is a folder; give the export a file name in it, e.g. ${path.join(out, `${loc.dir}.tar`)} (nothing was written).`,
    );
  if (fs.existsSync(out)) throw new MemoryError('exists', `${out} already exists; give the export a new file name (nothing was written).`);
  // A new folder for the archive (`backups/shop.tar`) is made, and said; a path missing two levels
  // is more likely a typo (`~/Bakups/2026/shop.tar`), and an archive written there would be lost to view.
  const folderMissing = !fs.existsSync(folder);
  if (folderMissing && !fs.existsSync(path.dirname(folder)))
    throw new MemoryError('not-found', `Neither ${folder} nor ${path.dirname(folder)} exists; check the path, or make the folder first (nothing was written).`);
  const scan = await scanProject(ctx.home, loc.dir, { dataDir: ctx.dataDir, ...(ctx.env ? { env: ctx.env } : {}) });
  const entries: TarEntry[] = [];
  for (const [rel, data] of readArea(loc.memoryDir, { excludeTeam: false }).files) entries.push({ name: `${ROOT}/memory/${rel}`, data });
  const warnings: string[] = [];
  if (loc.key && fs.existsSync(loc.key)) {
    // The root's and each launch directory's under it, at the same place relative to the root.
    const { inside, outside } = agentPlaces(loc.key, { ...scan, path: loc.key });
    for (const { rel, dir } of inside)
      for (const scope of ['project', 'local'] as const) {
        const folder = agentFolderOf(dir, scope);
        const unnamed = new Set<string>();
        for (const [name, data] of readArea(folder, { excludeTeam: false }).files) {
          const type = name.split('/')[0]!;
          if (isAgentTypeDirName(type)) entries.push({ name: `${ROOT}/${agentArchivePrefix(rel, scope)}${name}`, data });
          else unnamed.add(type);
        }
        for (const type of unnamed)
          warnings.push(
            `The folder ${path.join(folder, type)} is not in the archive: Claude Code names an agent's memory folder with letters, digits, - and _ only, so it never reads this one.`,
          );
        for (const { name, link } of listSubfolders(folder)) if (link) warnings.push(linkedAgentFolder(folder, name, 'is not in the archive'));
      }
    for (const dir of outside)
      warnings.push(
        `The agent memory in ${path.join(dir, '.claude')} (sessions started there, outside ${loc.key}) is not in the archive: it carries only what is under the project's root.`,
      );
  }
  if (entries.length === 0) throw new MemoryError('not-found', `${loc.dir} has no memories to export (looked in ${loc.memoryDir}).`);
  // The history is brought up to date first, so the bundle holds what is exported.
  await recordExternalChanges(loc.memoryDir, { dataDir: ctx.dataDir });
  const bundle = options.withoutHistory ? null : await bundleHistory(loc.memoryDir, { dataDir: ctx.dataDir });
  const project = { dir: loc.dir, path: scan.path };
  const manifest: Manifest = {
    format: FORMAT,
    version: 1,
    exportedAt: new Date().toISOString(),
    memdirVersion: VERSION,
    project: { ...project, identity: scan.identity },
    files: entries.map((e) => ({ path: e.name.slice(ROOT.length + 1), sha256: sha256(e.data), bytes: e.data.length })),
    history: bundle ? { path: 'history/memory.bundle', sha256: sha256(bundle), bytes: bundle.length } : null,
  };
  const all: TarEntry[] = [
    { name: `${ROOT}/manifest.json`, data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
    ...entries,
    ...(bundle ? [{ name: `${ROOT}/history/memory.bundle`, data: bundle }] : []),
  ];
  // Checked as packed (the manifest too: a remote URL may carry a password), before anything is written.
  const packed = all.filter((e) => e.data !== bundle).map((e) => ({ path: e.name.slice(ROOT.length + 1), data: e.data }));
  const findings = await findExportSecrets(packed, bundle, new Set(options.allow ?? []));
  if (findings.length > 0) return { exported: false, file: out, project, findings };
  const archive = writeTar(all);
  await writeFileAtomic(folder, path.basename(out), archive);
  return {
    exported: true,
    file: out,
    project,
    files: entries.length,
    bytes: archive.length,
    history: bundle !== null,
    createdFolder: folderMissing ? folder : null,
    warnings,
  };
}

/**
 * Where an agent memory folder goes in the archive: `agents/<scope>/` for the root's (the layout
 * of every archive), `agents-in/<dir>/<scope>/` for a launch directory under the root, `<dir>` its
 * path from the root in one segment (`packages%2Fweb`).
 */
function agentArchivePrefix(rel: string, scope: 'project' | 'local'): string {
  return rel ? `agents-in/${encodeURIComponent(rel)}/${scope}/` : `agents/${scope}/`;
}

/** The agent memory an archive path belongs to, or null when it is none (or would land outside the project). */
function agentOfArchivePath(p: string): { rel: string; scope: 'project' | 'local'; type: string } | null {
  const root = /^agents\/(project|local)\/([^/]+)\/./.exec(p);
  // The type's folder: a name Claude Code gives an agent type (`%2E%2E`, `..%2F..` are none).
  if (root) return isAgentTypeDirName(root[2]!) ? { rel: '', scope: root[1] as 'project' | 'local', type: root[2]! } : null;
  const under = /^agents-in\/([^/]+)\/(project|local)\/([^/]+)\/./.exec(p);
  if (!under || !isAgentTypeDirName(under[3]!)) return null;
  let rel: string;
  try {
    rel = decodeURIComponent(under[1]!);
  } catch {
    return null;
  }
  // A plain relative path: no `..`, `.` or empty segment, nothing absolute, no backslash or NUL, never into `.git`.
  if (rel.split('/').some((seg) => seg === '' || seg === '.' || seg === '..' || seg.toLowerCase() === '.git') || /[\\\0]/.test(rel) || path.isAbsolute(rel))
    return null;
  return { rel, scope: under[2] as 'project' | 'local', type: under[3]! };
}

/** An archive read and checked: its manifest, files by path (under `memdir-export/`), the history bundle. */
function readArchive(file: string): { manifest: Manifest; files: Map<string, Buffer>; bundle: Buffer | null } {
  const refuse = (why: string): never => {
    throw new MemoryError('invalid-input', `${file} cannot be imported: ${why}. Nothing was written.`);
  };
  let bytes: Buffer;
  let size: number;
  try {
    size = fs.statSync(file).size;
    // Bounded before it is read: an archive comes from outside.
    bytes = size > TAR_LIMITS.bytes ? Buffer.alloc(0) : fs.readFileSync(file);
  } catch (error) {
    return refuse(failureWords(error));
  }
  if (size > TAR_LIMITS.bytes) return refuse(`it is larger than ${TAR_LIMITS.bytes / 1024 / 1024} MB`);
  let entries: TarEntry[];
  try {
    entries = readTar(bytes);
  } catch (error) {
    return refuse(error instanceof TarError ? error.message : String(error));
  }
  const byName = new Map(entries.map((e) => [e.name, e.data]));
  const rawManifest = byName.get(`${ROOT}/manifest.json`);
  if (!rawManifest) return refuse(`it is not a Memdir export (it has no ${ROOT}/manifest.json)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawManifest.toString('utf8'));
  } catch {
    return refuse('its manifest is not JSON');
  }
  const checked = manifestSchema.safeParse(parsed);
  if (!checked.success)
    return refuse(
      `its manifest is not one Memdir writes (format ${JSON.stringify((parsed as { format?: unknown })?.format ?? null)}, version ${JSON.stringify((parsed as { version?: unknown })?.version ?? null)})`,
    );
  const manifest = checked.data;
  const files = new Map<string, Buffer>();
  for (const f of manifest.files) {
    if (!f.path.startsWith('memory/') && !agentOfArchivePath(f.path))
      refuse(`its manifest lists ${JSON.stringify(f.path)}, which is neither a memory nor an agent memory`);
    const data = byName.get(`${ROOT}/${f.path}`);
    if (!data) refuse(`${f.path} is listed in its manifest but missing`);
    if (sha256(data!) !== f.sha256) refuse(`${f.path} is damaged (its SHA-256 differs from the manifest's)`);
    files.set(f.path, data!);
  }
  const known = new Set([
    `${ROOT}/manifest.json`,
    ...manifest.files.map((f) => `${ROOT}/${f.path}`),
    ...(manifest.history ? [`${ROOT}/${manifest.history.path}`] : []),
  ]);
  const extra = entries.find((e) => !known.has(e.name));
  if (extra) refuse(`it holds ${extra.name}, which its manifest does not list`);
  const bundle = manifest.history ? (byName.get(`${ROOT}/${manifest.history.path}`) ?? refuse(`its history ${manifest.history.path} is missing`)) : null;
  if (bundle && sha256(bundle) !== manifest.history!.sha256)
    refuse(`its history ${manifest.history!.path} is damaged (its SHA-256 differs from the manifest's)`);
  return { manifest, files, bundle };
}

function subMap(files: Map<string, Buffer>, prefix: string, exclude?: string): FileMap {
  const out: FileMap = new Map();
  for (const [p, data] of files) if (p.startsWith(prefix) && !(exclude && p.startsWith(exclude))) out.set(p.slice(prefix.length), data);
  return out;
}

/** What importing `file` into `target` would do. */
export async function planImport(ctx: RelinkContext, file: string, target: string): Promise<{ plan: MergePlan; areas: MergeArea[]; bundle: Buffer | null }> {
  const { manifest, files, bundle } = readArchive(path.resolve(file));
  const loc = await locateProject(ctx.home, target, ctx.env ?? process.env).catch((error: Error) => {
    throw new MemoryError('not-found', error.message);
  });
  const warnings: string[] = [];
  const blockers: string[] = [];
  const areas: MergeArea[] = [];
  const add = (area: string, source: FileMap, toRoot: string, prefix: string, within?: string) => {
    if (source.size > 0)
      areas.push({
        area,
        fromRoot: null,
        prefix,
        toRoot,
        ...(within ? { within } : {}),
        source,
        target: readArea(path.join(toRoot, prefix), { excludeTeam: area === 'private' }).files,
        removeSource: false,
      });
  };
  add('private', subMap(files, 'memory/', 'memory/team/'), loc.memoryDir, '');
  add('team', subMap(files, 'memory/team/'), loc.memoryDir, 'team/');
  const agents = new Map<string, { rel: string; scope: 'project' | 'local'; type: string }>();
  for (const p of files.keys()) {
    const a = agentOfArchivePath(p);
    if (a) agents.set(`${agentArchivePrefix(a.rel, a.scope)}${a.type}/`, a);
  }
  for (const [prefix, { rel, scope, type }] of agents) {
    const dir = placeUnder(loc.key, rel);
    if (!fs.existsSync(dir)) {
      warnings.push(
        `The ${scope} agent memory of ${type}${rel ? ` (kept in ${rel}/ by the sessions started there)` : ''} is not imported: ${dir} is not a folder on this machine.`,
      );
      continue;
    }
    // Kept under the target's root: no symbolic link on the way there (checked again at each write, `within`).
    const through = await linkOnTheWay(loc.key, [rel, '.claude', AGENT_MEMORY_FOLDER[scope], type].filter(Boolean).join('/'));
    if (through) {
      warnings.push(
        `The ${scope} agent memory of ${type}${rel ? ` (kept in ${rel}/ by the sessions started there)` : ''} is not imported: ${path.join(loc.key, through)} is a symbolic link, and Memdir never writes through a link.`,
      );
      continue;
    }
    add(agentAreaName(scope, type, rel), subMap(files, prefix), path.join(agentFolderOf(dir, scope), type), '', loc.key);
  }
  const read = fs.existsSync(loc.key) ? await readPathFacts(loc.key).catch(() => null) : null;
  const tid = read ? identityOfPath(read.explanation, read.facts) : null;
  const sid = manifest.project.identity;
  if (sid && tid && identitiesDisagree(sid, tid))
    blockers.push(
      `The archive was exported from ${manifest.project.path ?? manifest.project.dir}, which does not look like ${loc.key} (no remote or root commit in common).`,
    );
  const source = {
    label: `${path.basename(file)} (exported ${manifest.exportedAt} from ${manifest.project.path ?? manifest.project.dir})`,
    dir: null,
    memoryDir: null,
    identity: sid,
  };
  const plan = planOf('import', source, { path: loc.key, dir: loc.dir, memoryDir: loc.memoryDir, identity: tid }, areas, warnings, blockers);
  return { plan, areas, bundle };
}

/** Import `file` into `target` (see the module comment). */
export async function importArchive(ctx: RelinkContext, file: string, target: string, options: { force?: boolean } = {}): Promise<MergeRecord> {
  const { plan, areas, bundle } = await planImport(ctx, file, target);
  if (plan.blockers.length > 0 && !options.force)
    throw new MemoryError('conflict', `${plan.blockers.join(' ')} Nothing was written; if you are sure, import again with --force.`);
  // Checked before anything is written: an archive whose history cannot be read is refused whole.
  if (bundle && !(await isReadableBundle(bundle)))
    throw new MemoryError('invalid-input', `${file} cannot be imported: its history is not a readable git bundle. Nothing was written.`);
  if (plan.target.path && fs.existsSync(plan.target.path)) await rememberProjectPath(ctx.home, plan.target.dir, plan.target.path, ctx.dataDir);
  const record = await applyMerge(areas, { dataDir: ctx.dataDir, kind: 'import', plan, summaryTo: `Imported from ${path.basename(file)}`, summaryFrom: '' });
  if (bundle) await keepBundledHistory(plan.target.memoryDir, bundle, record.id, { dataDir: ctx.dataDir });
  return record;
}

/** A history an import brought into a memory dir, with where it came from: listed beside the dir's own history. */
export interface ImportedHistoryListing {
  /** The import (its merge record, `memdir merge list`). */
  id: string;
  /** The newest entry of the imported history. */
  rev: string;
  /** What was imported ("p.tar (exported … from …)"), null when its merge record is gone. */
  source: string | null;
  /** When it was imported, null when its merge record is gone. */
  importedAt: string | null;
  /** Its entries, newest first: each can be diffed, read and restored from as the dir's own (unless `undone`). */
  entries: HistoryEntry[];
  /** The import was undone (`memdir merge undo`): its entries are listed to read, and a restore from them is refused. */
  undone: boolean;
}

/** The histories imported into `memoryDir`, newest first (`memdir history`, the History page). */
export async function importedHistories(memoryDir: string, opts: { dataDir: string; file?: string; limit?: number }): Promise<ImportedHistoryListing[]> {
  const listed = await Promise.all(
    (await listImportedHistories(memoryDir, opts)).map(async ({ id, rev, entries, undone }): Promise<ImportedHistoryListing> => {
      const record = await readMergeRecord(opts.dataDir, id);
      // Undone by a Memdir that left its history as it was: marked now, so nothing restores from it.
      if (!undone && record?.undone) await retireImportedHistory(memoryDir, id, { dataDir: opts.dataDir });
      return { id, rev, source: record?.plan.source.label ?? null, importedAt: record?.createdAt ?? null, undone: undone || !!record?.undone, entries };
    }),
  );
  // Newest import first; one whose record is gone, last — among those, the order listImportedHistories gives (a stable sort).
  return listed.sort((a, b) => (b.importedAt ?? '').localeCompare(a.importedAt ?? ''));
}
