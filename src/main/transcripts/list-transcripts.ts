/**
 * Where transcripts are (R-LAYOUT, SPEC §8): `<home>/projects/<project>/<sessionId>.jsonl` for
 * sessions, `<project>/<sessionId>/subagents/agent-<id>.jsonl` for their sub-agents. Listing
 * costs a readdir and a stat per file, never a read — the dream gate counts sessions this way.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { listProjectDirs, projectsRoot } from '../memdir/index.js';

/** A transcript file found on disk. */
export interface TranscriptFile {
  path: string;
  kind: 'session' | 'subagent';
  /** The session the file belongs to (for a sub-agent, its parent session). */
  sessionId: string;
  /** For sub-agent transcripts: `<id>` of `agent-<id>.jsonl`. */
  agentId: string | null;
  mtimeMs: number;
  size: number;
}

/** A transcript file with the project it belongs to. */
export interface HomeTranscriptFile extends TranscriptFile {
  /** The project's directory name under `projects/`, and its path. */
  project: string;
  projectDir: string;
}

const newestFirst = (a: TranscriptFile, b: TranscriptFile): number => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path);

/**
 * Regular `*.jsonl` files of a directory with their mtime and size. Symlinks are not followed
 * (as in `listProjectDirs`: a link could lead out of the home); a file deleted between the
 * listing and its stat is left out. A missing directory gives [].
 */
async function jsonlFiles(dir: string): Promise<{ path: string; name: string; mtimeMs: number; size: number }[]> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files = await Promise.all(
    entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
      .map(async (entry) => {
        const file = path.join(dir, entry.name);
        const stat = await fs.stat(file).catch(() => null);
        return stat ? { path: file, name: entry.name, mtimeMs: stat.mtimeMs, size: stat.size } : null;
      }),
  );
  return files.filter((f) => f !== null);
}

/** Sub-agent transcripts of one session, newest first. */
export async function listSubagentTranscripts(projectDir: string, sessionId: string): Promise<TranscriptFile[]> {
  const files = await jsonlFiles(path.join(projectDir, sessionId, 'subagents'));
  return files
    .filter((f) => f.name.startsWith('agent-'))
    .map((f) => ({
      path: f.path,
      kind: 'subagent' as const,
      sessionId,
      agentId: f.name.slice('agent-'.length, -'.jsonl'.length),
      mtimeMs: f.mtimeMs,
      size: f.size,
    }))
    .sort(newestFirst);
}

/** What to list besides the session transcripts. */
export interface ListTranscriptsOptions {
  /** Also list each session's sub-agent transcripts. Default false. */
  includeSubagents?: boolean;
}

/** Transcripts of one project directory (`<home>/projects/<dir>`), newest first. */
export async function listProjectTranscripts(projectDir: string, options: ListTranscriptsOptions = {}): Promise<TranscriptFile[]> {
  const sessions: TranscriptFile[] = (await jsonlFiles(projectDir)).map((f) => ({
    path: f.path,
    kind: 'session',
    sessionId: f.name.slice(0, -'.jsonl'.length),
    agentId: null,
    mtimeMs: f.mtimeMs,
    size: f.size,
  }));
  if (!options.includeSubagents) return sessions.sort(newestFirst);
  // Sub-agent folders may outlive their session file, so every session folder is looked at.
  let folders: string[] = [];
  try {
    folders = (await fs.readdir(projectDir, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && e.name !== 'memory' && !e.name.startsWith('.'))
      .map((e) => e.name);
  } catch {
    // No project directory: no transcripts.
  }
  const subagents = (await Promise.all(folders.map((sessionId) => listSubagentTranscripts(projectDir, sessionId)))).flat();
  return [...sessions, ...subagents].sort(newestFirst);
}

/**
 * Transcripts of several folders — a project's launch folders (R-LAYOUT: sessions started in a
 * subdirectory or worktree live in the folder of that directory) —, newest first.
 */
export async function listTranscriptsIn(dirs: readonly string[], options: ListTranscriptsOptions = {}): Promise<TranscriptFile[]> {
  const all = (await Promise.all([...new Set(dirs)].map((dir) => listProjectTranscripts(dir, options)))).flat();
  return all.sort(newestFirst);
}

/** Transcripts of every project of a home, newest first. */
export async function listHomeTranscripts(home: string, options: ListTranscriptsOptions = {}): Promise<HomeTranscriptFile[]> {
  const all: HomeTranscriptFile[] = [];
  for (const project of await listProjectDirs(home)) {
    const projectDir = path.join(projectsRoot(home), project);
    for (const file of await listProjectTranscripts(projectDir, options)) all.push({ ...file, project, projectDir });
  }
  return all.sort(newestFirst);
}
