/** Memories, the index, health fixes and history: checks in, services do the work. */
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { RpcError } from '../../shared/contract/define.js';
import { createMemory, deleteMemory, renameMemory, saveIndexText, updateMemory, applyFixes, checkMemoryPath } from '../memdir/memory-service.js';
import { agentIndexView } from '../memdir/agent-index.js';
import { projectsRoot } from '../memdir/home.js';
import { readMemoryText } from '../memdir/read-file.js';
import { resolveInside } from '../memdir/safe-fs.js';
import { parseTopicFile } from '../memdir/topic-file.js';
import { deletedFiles, diffRevisions, listHistory, planRestore, readAtRevision, recordSnapshot, restoreFromHistory } from '../history/history.js';
import { restoreMemoryFile, undoChange } from '../memdir/undo-change.js';
import type { Handlers } from './dispatch.js';

const KNOWN_KEYS = new Set(['name', 'description', 'type', 'metadata']);

export const memoryHandlers: Pick<
  Handlers,
  | 'memories.read'
  | 'memories.create'
  | 'memories.update'
  | 'memories.rename'
  | 'memories.delete'
  | 'index.read'
  | 'index.loaded'
  | 'index.save'
  | 'health.fix'
  | 'history.list'
  | 'history.diff'
  | 'history.read'
  | 'history.restore'
  | 'history.plan'
  | 'history.undo'
  | 'history.deleted'
> = {
  async 'memories.read'({ dir, scope, file }, ctx) {
    const name = checkMemoryPath(file);
    const { project } = await ctx.where(dir, scope);
    const root = scope === 'team' ? path.join(project.memoryDir, TEAM_DIR) : project.memoryDir;
    // A subfolder memory: every folder on the way resolved and checked (a linked folder never leads a read outside).
    const abs = name.includes('/') ? path.join(await resolveInside(root, path.posix.dirname(name)), path.posix.basename(name)) : path.join(root, name);
    const isLink = fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    const outcome = readMemoryText(root, abs, isLink);
    if (!outcome.ok) {
      const missing = !fs.existsSync(abs);
      throw new RpcError({ code: missing ? 'not-found' : 'unsafe-path', message: missing ? `${name} no longer exists; it may have been deleted or renamed outside Memdir.` : `${name} cannot be opened: ${outcome.reason}.` });
    }
    const topic = parseTopicFile(outcome.text, name);
    const scan = scope === 'team' ? project.team : project;
    return {
      file: name,
      text: outcome.text,
      name: topic.meta.name,
      description: topic.meta.description,
      type: topic.meta.type,
      body: topic.body,
      layout: topic.meta.layout,
      otherKeys: Object.keys(topic.data ?? {}).filter((k) => !KNOWN_KEYS.has(k)),
      problems: (scan?.problems ?? []).filter((p) => p.file === name),
      mtimeMs: outcome.facts.mtimeMs,
    };
  },
  async 'memories.create'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    const { file, entry } = await createMemory(where, { fields: input.fields, body: input.body, ...(input.file ? { file: input.file } : {}), ...(input.hook !== undefined ? { hook: input.hook } : {}) });
    ctx.changed(input.dir, where.memoryDir);
    return { file, rev: entry?.rev ?? null };
  },
  async 'memories.update'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    const { file, entry } = await updateMemory(where, {
      file: input.file,
      fields: input.fields,
      body: input.body,
      ...(input.baseText !== undefined ? { baseText: input.baseText } : {}),
      ...(input.hook !== undefined ? { hook: input.hook } : {}),
    });
    ctx.changed(input.dir, where.memoryDir);
    return { file, rev: entry?.rev ?? null };
  },
  async 'memories.rename'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    const { file, entry } = await renameMemory(where, input.from, input.to);
    ctx.changed(input.dir, where.memoryDir);
    return { file, rev: entry?.rev ?? null };
  },
  async 'memories.delete'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    const { file, entry } = await deleteMemory(where, input.file);
    ctx.changed(input.dir, where.memoryDir);
    return { file, rev: entry?.rev ?? null };
  },
  async 'index.read'({ dir, scope }, ctx) {
    const { project } = await ctx.where(dir, scope);
    const root = scope === 'team' ? path.join(project.memoryDir, TEAM_DIR) : project.memoryDir;
    const abs = path.join(root, INDEX_FILE);
    if (!fs.existsSync(abs)) return { text: '', exists: false };
    const outcome = readMemoryText(root, abs, fs.lstatSync(abs).isSymbolicLink(), 20_000_000);
    if (!outcome.ok) throw new RpcError({ code: 'unsafe-path', message: `${INDEX_FILE} cannot be opened: ${outcome.reason}.` });
    return { text: outcome.text, exists: true };
  },
  async 'index.loaded'({ dir }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    const folders = project.launchDirs.length > 0 ? project.launchDirs.map((l) => l.folder) : [dir];
    return agentIndexView({ transcriptDirs: folders.map((f) => path.join(projectsRoot(ctx.home), f)), memoryDir: project.memoryDir });
  },
  async 'index.save'({ dir, scope, text, baseText }, ctx) {
    const where = await ctx.where(dir, scope);
    const { entry } = await saveIndexText(where, text, baseText);
    ctx.changed(dir, where.memoryDir);
    return { file: INDEX_FILE, rev: entry?.rev ?? null };
  },
  async 'health.fix'({ dir, scope, fixes }, ctx) {
    const where = await ctx.where(dir, scope);
    const { applied, entry } = await applyFixes(where, fixes.map((f) => ({ kind: f.kind, file: f.file, line: f.line ?? null })));
    ctx.changed(dir, where.memoryDir);
    return { applied: applied.length, rev: entry?.rev ?? null };
  },
  async 'history.list'({ dir, file, limit }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    if (project.exists) await recordSnapshot(project.memoryDir, { source: 'external', summary: 'Changes made outside Memdir', dataDir: ctx.dataDir });
    return { entries: await listHistory(project.memoryDir, { dataDir: ctx.dataDir, limit: limit ?? 200, ...(file ? { file } : {}) }) };
  },
  async 'history.diff'({ dir, from, to, file }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    return { diff: await diffRevisions(project.memoryDir, from, to, { dataDir: ctx.dataDir, ...(file ? { file } : {}) }) };
  },
  async 'history.read'({ dir, rev, file }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    return { text: await readAtRevision(project.memoryDir, rev, file, { dataDir: ctx.dataDir }) };
  },
  async 'history.restore'({ dir, rev, file }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    const done = file ? await restoreMemoryFile({ memoryDir: project.memoryDir, dataDir: ctx.dataDir, rev, file }) : { entry: await restoreFromHistory(project.memoryDir, rev, { dataDir: ctx.dataDir }), notes: [] };
    ctx.changed(dir, project.memoryDir);
    return done;
  },
  async 'history.plan'({ dir, rev, file }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    return { changes: await planRestore(project.memoryDir, rev, { dataDir: ctx.dataDir, ...(file ? { file } : {}) }) };
  },
  async 'history.undo'({ dir, rev, overwriteChanged }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    const done = await undoChange({ memoryDir: project.memoryDir, dataDir: ctx.dataDir, rev, ...(overwriteChanged ? { overwriteChanged } : {}) });
    ctx.changed(dir, project.memoryDir);
    return done;
  },
  async 'history.deleted'({ dir }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    return { files: await deletedFiles(project.memoryDir, { dataDir: ctx.dataDir }) };
  },
};
