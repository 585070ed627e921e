/**
 * Recall for a project, as the CLI and the app call it: locate the project's memory dir, scan
 * its frontmatter (and its team dir's), keep a local ranker per memory dir in step with the
 * files, pick the model provider from Memdir's settings, and run findRelevantMemories.
 *
 * The app keeps one RecallService for its lifetime: each call rescans through a ScanCache (one
 * stat per file when nothing changed) and `sync`s the ranker, which re-indexes only memories
 * that were added, changed or removed. A file watcher may call `refresh(memoryDir)` on change
 * to do that work before the next query.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { IndexSummary, MemoryDirScan } from '../../shared/scan-types.js';
import { resolveDataDir } from '../core/data-dir.js';
import { type ModelProvider, resolveProvider } from '../llm/index.js';
import {
  changeDataFile,
  locateProject,
  parseTopicFile,
  type ProjectLocation,
  readDataFileNow,
  readMemoryText,
  ScanCache,
  scanMemoryDir,
  teamDirOf,
} from '../memdir/index.js';
import { type AppSettings, type CredentialStore, FileCredentialStore, loadAppSettings } from '../settings/index.js';
import { type RecallCandidate, compareRecallMethods, findRelevantMemories } from './find-relevant-memories.js';
import { LocalRanker, type RankExplanation, type RankableMemory } from './local-ranker.js';
import { type ClaudeCodeSession, newClaudeCodeSession, recallLikeClaudeCode } from './claude-code/recall-like-claude-code.js';
import { readClaudeCodeRecallSwitch } from './claude-code/recall-switch.js';
import { findTranscript, surfacedInTranscript } from './claude-code/surfaced.js';

/** How a RecallService finds the home, the data dir, keys and the model. */
export interface RecallServiceOptions {
  /** The Claude Code home (R-HOME). */
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Memdir's data dir; default resolveDataDir(env). */
  dataDir?: string;
  /** Where a stored API key lives; default the file store in the data dir (the shell passes its encrypted one). */
  credentials?: CredentialStore;
  /** Use this provider instead of resolving one from settings (tests, a shared app provider). */
  provider?: ModelProvider;
}

/** One recall: which project, which query. */
export interface RecallRequest {
  /** A project directory (path) or a directory name under `projects/` (as `--project`). */
  project: string;
  query: string;
  /** Skip the model. */
  offline?: boolean;
  /** Files already recalled in this session (never chosen again). */
  exclude?: readonly string[];
  signal?: AbortSignal;
}

import type { ClaudeCodeRecallResult, ProjectRecallResult } from '../../shared/recall-types.js';
import { MemdirError } from '../../shared/errors.js';

export type { ClaudeCodeRecallResult, ProjectRecallResult };

/** A recall the way Claude Code does it, in a session of Claude Code's. */
export interface ClaudeCodeRecallRequest {
  /** A project directory (path) or a directory name under `projects/`. */
  project: string;
  query: string;
  /** Continue this playground session (its id from an earlier result); absent or unknown: a new one. */
  session?: string | null;
  /** Start the new session as this Claude Code session would be resumed: a session id or a transcript path. */
  transcript?: string;
  /** Build and show the request, but send nothing. */
  offline?: boolean;
  signal?: AbortSignal;
}

/** A transcript named for a Claude Code recall that cannot be found. */
export class TranscriptNotFoundError extends MemdirError<'transcript-not-found'> {
  override readonly name = 'TranscriptNotFoundError';
  constructor(readonly session: string) {
    super(
      'transcript-not-found',
      `No transcript of session ${session} was found under projects/: give a session id from this home or a path to a .jsonl file.`,
    );
  }
}

/** Playground sessions kept at once; the oldest is forgotten first. */
const MAX_SESSIONS = 20;

/** A memory dir's memories as the selector sees them: private ones, then `team/…`. */
export function recallCandidates(own: MemoryDirScan, team: MemoryDirScan | null): RecallCandidate[] {
  const out: RecallCandidate[] = own.memories.map((m) => ({
    file: m.file,
    name: m.name,
    description: m.description,
    type: m.type,
    scope: m.scope,
    mtimeMs: m.mtimeMs,
  }));
  if (team)
    for (const m of team.memories)
      out.push({ file: `team/${m.file}`, name: m.name, description: m.description, type: m.type, scope: m.scope, mtimeMs: m.mtimeMs });
  return out;
}

interface DirState {
  ranker: LocalRanker;
  candidates: RecallCandidate[];
  index: IndexSummary;
  /** Bodies read so far, by file, kept while the file's mtime stays (the ranker indexes their lead). */
  bodies: Map<string, { mtimeMs: number; body: string | undefined }>;
}

/** Recall over the projects of one Claude Code home. */
export class RecallService {
  readonly home: string;
  readonly dataDir: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly credentials: CredentialStore;
  private readonly cache = new ScanCache();
  private readonly dirs = new Map<string, DirState>();
  private readonly sessions = new Map<string, ClaudeCodeSession>();

  constructor(private readonly options: RecallServiceOptions) {
    this.home = options.home;
    this.env = options.env ?? process.env;
    this.dataDir = options.dataDir ?? resolveDataDir(this.env);
    this.credentials = options.credentials ?? new FileCredentialStore(this.dataDir);
  }

  /** The provider recall would use now (the playground shows its status). */
  async provider(settings?: AppSettings, offline = false): Promise<ModelProvider> {
    if (this.options.provider && !offline) return this.options.provider;
    const s = settings ?? (await loadAppSettings(this.dataDir)).settings;
    return resolveProvider(s, this.env, { dataDir: this.dataDir, credentials: this.credentials, offline });
  }

  /**
   * Rescan one memory dir (and its team dir) and bring its ranker up to date; only changed
   * memories are re-indexed. Call on a watcher event, or let the next query do it.
   */
  async refresh(memoryDir: string, searchBodies = false): Promise<DirState> {
    const own = scanMemoryDir(memoryDir, { scope: 'private', cache: this.cache });
    const teamScan = scanMemoryDir(teamDirOf(memoryDir), { scope: 'team', cache: this.cache });
    const team = teamScan.exists ? teamScan : null;
    const candidates = recallCandidates(own, team);
    let state = this.dirs.get(memoryDir);
    if (!state || state.ranker.searchBodies !== searchBodies) {
      state = { ranker: new LocalRanker({ searchBodies }), candidates, index: own.index, bodies: new Map() };
      this.dirs.set(memoryDir, state);
    }
    // Bodies are read once per change of a file: a query on an unchanged directory reads none.
    const bodies = state.bodies;
    const rankable: RankableMemory[] = await Promise.all(
      candidates.map(async (c) => {
        const known = bodies.get(c.file);
        if (known && known.mtimeMs === c.mtimeMs) return { ...c, body: known.body };
        const body = (await withBody(memoryDir, c)).body;
        bodies.set(c.file, { mtimeMs: c.mtimeMs ?? 0, body });
        return { ...c, body };
      }),
    );
    if (bodies.size > candidates.length) {
      const present = new Set(candidates.map((c) => c.file));
      for (const file of bodies.keys()) if (!present.has(file)) bodies.delete(file);
    }
    state.ranker.sync(rankable);
    state.candidates = candidates;
    state.index = own.index;
    return state;
  }

  /** Forget a memory dir (the project view closed). */
  forget(memoryDir: string): void {
    this.dirs.delete(memoryDir);
    this.cache.forget(memoryDir);
  }

  private async prepare(request: RecallRequest): Promise<{ location: ProjectLocation; state: DirState; settings: AppSettings; provider: ModelProvider }> {
    const location = await locateProject(this.home, request.project, this.env);
    const { settings } = await loadAppSettings(this.dataDir);
    const state = await this.refresh(location.memoryDir, settings.recall.searchBodies);
    const provider = await this.provider(settings, request.offline ?? false);
    return { location, state, settings, provider };
  }

  private common(state: DirState, settings: AppSettings, provider: ModelProvider, request: RecallRequest) {
    return {
      query: request.query,
      memories: state.candidates,
      provider,
      ranker: state.ranker,
      index: state.index,
      timeoutMs: settings.recall.timeoutMs,
      ...(request.exclude ? { exclude: request.exclude } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    };
  }

  /** Select memories for a query in a project (R-RECALL-SELECT). Throws ProjectNotFoundError for an unknown project. */
  async recall(request: RecallRequest): Promise<ProjectRecallResult> {
    const { location, state, settings, provider } = await this.prepare(request);
    const result = await findRelevantMemories(this.common(state, settings, provider, request));
    return { ...result, project: { key: location.key, dir: location.dir, memoryDir: location.memoryDir } };
  }

  /** The playground: model and local side by side. */
  async compare(request: RecallRequest): Promise<{ model: ProjectRecallResult; local: ProjectRecallResult }> {
    const { location, state, settings, provider } = await this.prepare(request);
    const both = await compareRecallMethods(this.common(state, settings, provider, request));
    const project = { key: location.key, dir: location.dir, memoryDir: location.memoryDir };
    return { model: { ...both.model, project }, local: { ...both.local, project } };
  }

  /**
   * Recall exactly as Claude Code would (R-RECALL-SELECT, claude-code/): its scan and request,
   * in a session that remembers earlier queries and loaded files like a Claude Code session.
   */
  async claudeCode(request: ClaudeCodeRecallRequest): Promise<ClaudeCodeRecallResult> {
    const location = await locateProject(this.home, request.project, this.env);
    const { settings } = await loadAppSettings(this.dataDir);
    let session = request.session ? this.sessions.get(request.session) : undefined;
    if (session && session.memoryDir !== location.memoryDir) session = undefined;
    if (!session) {
      let seed;
      if (request.transcript) {
        const transcript = await findTranscript(this.home, request.transcript);
        if (!transcript) throw new TranscriptNotFoundError(request.transcript);
        seed = { transcript, surfaced: await surfacedInTranscript(transcript, location.memoryDir) };
      }
      session = newClaudeCodeSession(location.memoryDir, seed);
      this.sessions.set(session.id, session);
      for (const id of this.sessions.keys()) if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(id);
    }
    const provider = await this.provider(settings, request.offline ?? false);
    const autoMemoryEnabled = location.settings.autoMemoryEnabled;
    const result = await recallLikeClaudeCode({
      session,
      query: request.query,
      provider,
      model: provider.modelFor('recall'),
      autoMemoryEnabled,
      memoryStores: location.settings.memoryStores,
      recallSwitch: await readClaudeCodeRecallSwitch(this.home, this.env, location.settings),
      timeoutMs: settings.recall.timeoutMs,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return { ...result, project: { key: location.key, dir: location.dir, memoryDir: location.memoryDir } };
  }

  /** "Why not this one?" — how the local ranker scored `file` for `query`. */
  async explain(request: { project: string; query: string; file: string }): Promise<RankExplanation> {
    const location = await locateProject(this.home, request.project, this.env);
    const { settings } = await loadAppSettings(this.dataDir);
    const state = await this.refresh(location.memoryDir, settings.recall.searchBodies);
    return state.ranker.explain(request.query, request.file);
  }
}

async function withBody(memoryDir: string, memory: RecallCandidate): Promise<RankableMemory> {
  const abs = path.join(memoryDir, memory.file);
  const isSymlink = (await fs.lstat(abs).catch(() => null))?.isSymbolicLink() ?? false;
  const outcome = readMemoryText(path.dirname(abs), abs, isSymlink);
  return outcome.ok ? { ...memory, body: parseTopicFile(outcome.text, memory.file).body } : memory;
}

/** Recent playground queries, kept in `<dataDir>/recall-recent.json` (newest first, at most 20). */
export class RecentQueries {
  static readonly MAX = 20;
  readonly file: string;
  constructor(private readonly dataDir: string) {
    this.file = path.join(dataDir, 'recall-recent.json');
  }
  async list(): Promise<RecentQuery[]> {
    const read = await readDataFileNow(this.file, parseRecent).catch(() => null);
    return read && read.contents !== 'damaged' ? read.contents.filter(isRecentQuery) : [];
  }
  /** Put a query first, added to the file as it is now under the data dir's lock: a query another window or process added meanwhile stays. */
  async add(project: string, query: string): Promise<void> {
    const q = query.trim();
    if (!q) return;
    await changeDataFile(
      this.file,
      (current: unknown[] | null) =>
        [
          { project, query: q.slice(0, 2_000), at: new Date().toISOString() },
          ...(current ?? []).filter((e) => !(isRecentQuery(e) && e.project === project && e.query === q)),
        ].slice(0, RecentQueries.MAX),
      { dataDir: this.dataDir, parse: parseRecent, mode: 0o600 },
    );
  }
}

/** One recent playground query. */
type RecentQuery = { project: string; query: string; at: string };

function isRecentQuery(v: unknown): v is RecentQuery {
  return typeof v === 'object' && v !== null && typeof (v as RecentQuery).query === 'string' && typeof (v as RecentQuery).project === 'string';
}

/** recall-recent.json's entries, or null when it is damaged (not a JSON list). */
function parseRecent(text: string): unknown[] | null {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
