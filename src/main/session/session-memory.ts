/**
 * Session Memory (R-SESSION), Memdir's own — Claude Code 2.1.332 has none (2.1.88 had one behind
 * a flag, with these rules): for each session, a structured note (current task, files changed,
 * errors met, where the workflow stands) kept in Memdir's data dir, written by a model, or
 * offline from the transcript's own tool calls and errors.
 *
 * When *(fact, Claude Code 2.1.88's thresholds)*: no note until the context reaches 10,000
 * tokens; then an update whenever the context grew by at least 5,000 tokens since the last one
 * AND either at least 3 tool calls happened since or the latest response made no tool call.
 * The context is counted as Claude Code counts it: input + cache creation + cache read + output
 * tokens of the latest response, plus characters / 4 of the messages after it. A PreCompact hook
 * forces an update (the note must survive the compaction); a `SessionStart` hook hands the
 * note back to Claude Code after the compaction or a `--resume` (run-hook.ts). SessionEnd marks
 * the session ended; its note stays for a resume until the idle sweep removes it. Notes are
 * per session id: never carried into another session.
 *
 * Counting is incremental: complete turns are read once (the position is kept in the session's
 * state) and the turn still in progress is counted provisionally on each look, so a long
 * agentic turn updates the note mid-way, as it should.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type ClaudeCodeSummary, SESSION_INIT_TOKENS, SESSION_MIN_TOKENS, SESSION_MIN_TOOL_CALLS, type SessionStatus } from '../../shared/contract/session.js';
import { LlmError, type ModelProvider } from '../llm/index.js';
import { type CursorLoad, CursorStore, FILE_WRITE_TOOLS, listHomeTranscripts, readNewTurns, type TranscriptCursor, type Turn } from '../transcripts/index.js';
import { isInternalProject, projectOfTranscript } from '../extract/index.js';
import { loadAppSettings } from '../settings/index.js';
import { SESSION_SYSTEM_PROMPT, buildSessionPrompt, handBackNote, NOTE_MAX_TOKENS, noteProblem, renderModelNote, renderOfflineNote } from './session-note.js';
import { SESSION_ID, type SessionFacts, type SessionState, SessionStore, newSessionState } from './session-state.js';

/** The cursor consumer name of Session Memory (kept in its own state file). */
export const SESSION_CONSUMER = 'session-memory';

/** A cursor store holding one cursor in memory: Session Memory saves it inside its state. */
class StateCursorStore extends CursorStore {
  constructor(
    dataDir: string,
    private cursor: TranscriptCursor | null,
  ) {
    super(dataDir);
  }
  override async load(): Promise<CursorLoad> {
    return this.cursor ? { status: 'found', cursor: this.cursor } : { status: 'absent' };
  }
  override async save(cursor: TranscriptCursor): Promise<void> {
    this.cursor = cursor;
  }
}

export interface SessionMemoryOptions {
  home: string;
  dataDir: string;
  /** The model for notes; absent or offline: offline notes. Called only when a note is due. */
  provider?: () => Promise<ModelProvider>;
  store?: SessionStore;
  now?: () => Date;
  timeoutMs?: number;
}

/** How to look at a session. */
export interface ObserveOptions {
  /** Update the note whatever the thresholds (PreCompact, "Update now"). */
  force?: boolean;
  /** Save counters and write the note when due (default). False: only report. */
  write?: boolean;
  signal?: AbortSignal;
}

function cap(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function pushCapped<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

/** Fold one turn into the facts (and, for a complete turn, the counters). */
function absorb(state: SessionState, facts: SessionFacts, turn: Turn): void {
  state.projectPath ??= turn.cwd;
  if (turn.endedAt) state.lastActivityAt = turn.endedAt;
  if (turn.start === 'prompt' && turn.userText.trim()) {
    facts.task = turn.userText.trim().slice(0, 4000);
    pushCapped(facts.recent, `prompt: ${cap(turn.userText, 300)}`, 60);
  }
  for (const call of turn.toolCalls) {
    const what =
      call.filePath ?? (typeof call.input.command === 'string' ? call.input.command : typeof call.input.pattern === 'string' ? call.input.pattern : '');
    pushCapped(facts.recent, `tool ${call.name}${what ? ` ${cap(String(what), 150)}` : ''}`, 60);
    if (FILE_WRITE_TOOLS.includes(call.name) && call.filePath && call.result?.isError !== true) {
      const file = path.resolve(call.cwd ?? turn.cwd ?? '/', call.filePath);
      const at = facts.filesChanged.indexOf(file);
      if (at >= 0) facts.filesChanged.splice(at, 1);
      pushCapped(facts.filesChanged, file, 100);
    }
    if (call.result?.isError)
      pushCapped(
        facts.errors,
        { tool: call.name, text: cap(call.result.text.split('\n').find((l) => l.trim()) ?? 'failed', 300), at: call.result.timestamp },
        30,
      );
  }
  const answer = turn.finalAssistantText || turn.assistantText;
  if (answer.trim()) {
    facts.lastAnswer = answer.trim().slice(0, 4000);
    pushCapped(facts.recent, `answer: ${cap(answer, 300)}`, 60);
  }
}

/** Fold a turn's token facts in: the latest usage, what came after it, the last response's tools. */
function countTokens(state: Pick<SessionState, 'contextTokens' | 'charsAfterUsage' | 'lastResponseToolCalls'>, turn: Turn): void {
  if (turn.usage) {
    state.contextTokens = turn.usage.contextTokens + turn.usage.outputTokens;
    state.charsAfterUsage = turn.charsAfterUsage;
  } else state.charsAfterUsage += turn.charsAfterUsage;
  if (turn.assistantMessages > 0) state.lastResponseToolCalls = turn.lastResponseToolCalls;
}

/** R-SESSION: the context as Claude Code counts it (see the module comment). */
function contextOf(state: Pick<SessionState, 'contextTokens' | 'charsAfterUsage'>): number {
  return state.contextTokens + Math.round(state.charsAfterUsage / 4);
}

/** Largest `summary.md` shown whole. */
const MAX_SUMMARY_BYTES = 256 * 1024;

/** The `summary.md` an older Claude Code wrote for this session, when there is one. */
async function readClaudeCodeSummary(transcriptPath: string, sessionId: string): Promise<ClaudeCodeSummary | null> {
  const file = path.join(path.dirname(transcriptPath), sessionId, 'session-memory', 'summary.md');
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return null;
    const handle = await fs.open(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(stat.size, MAX_SUMMARY_BYTES));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return { file, text: buffer.subarray(0, bytesRead).toString('utf8'), modifiedAt: stat.mtime.toISOString(), truncated: stat.size > bytesRead };
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/** Session Memory over one home (see the module comment). */
export class SessionMemory {
  readonly store: SessionStore;
  private readonly chains = new Map<string, Promise<unknown>>();
  /**
   * What a look that writes nothing read (a listing's), kept in this process only: the next one
   * reads what was appended since, not the whole transcript again (a session it does not follow),
   * nor all since its saved counters (one it followed before Session Memory was turned off) — the
   * app's Live sessions asks every few seconds. Used while the saved state is still the one it
   * started from; kept for the transcripts the last listing showed.
   */
  private readonly looked = new Map<string, { from: string; state: SessionState }>();
  /** Aborts the looks under way when the app closes (a note's model call among them). */
  private readonly stopping = new AbortController();

  constructor(private readonly options: SessionMemoryOptions) {
    this.store = options.store ?? new SessionStore(options.dataDir);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** Runs `fn` after any earlier look at the same session (in this process). */
  private serial<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(sessionId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    this.chains.set(sessionId, settled);
    void settled.then(() => {
      if (this.chains.get(sessionId) === settled) this.chains.delete(sessionId);
    });
    return next;
  }

  /**
   * Look at a session transcript: count, and (unless `write: false`) save the counters and
   * update the note when due or forced. Null for a transcript that is not a live session's
   * (a sub-agent's, Memdir's own, outside the home, gone).
   */
  observe(transcriptPath: string, options: ObserveOptions = {}): Promise<SessionStatus | null> {
    const file = path.resolve(transcriptPath);
    const sessionId = path.basename(file, '.jsonl');
    let project: string;
    try {
      project = projectOfTranscript(this.options.home, file);
    } catch {
      return Promise.resolve(null);
    }
    if (this.stopping.signal.aborted || !SESSION_ID.test(sessionId) || isInternalProject(project, this.options.dataDir)) return Promise.resolve(null);
    const signal = options.signal ? AbortSignal.any([options.signal, this.stopping.signal]) : this.stopping.signal;
    return this.serial(sessionId, () => this.look(file, sessionId, project, { ...options, signal }));
  }

  /**
   * The app closes: looks under way stop (a note's model call is aborted, nothing more is
   * written) and this waits for them, so nothing of Session Memory writes after it; no new look starts.
   */
  async close(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.chains.values());
  }

  private async look(file: string, sessionId: string, project: string, options: ObserveOptions): Promise<SessionStatus | null> {
    const write = options.write !== false;
    const stored = await this.store.load(sessionId);
    const own = stored && stored.transcriptPath === file ? stored : null;
    // The saved state a look started from (what a look reads, and what `end` writes): a kept look is good while it is still that one.
    const from = own ? `${own.cursor?.offset ?? 0}:${own.updates}:${own.lastUpdate?.at ?? ''}:${own.endedAt ?? ''}` : '';
    const kept = write ? undefined : this.looked.get(file);
    const peeked = kept?.from === from ? kept.state : undefined;
    let state = peeked ?? own ?? newSessionState(sessionId, file, project);
    const cursors = new StateCursorStore(this.options.dataDir, state.cursor);
    let open: Turn | null = null;
    let seen = stored !== null || peeked !== undefined;
    for (let round = 0; round < 10_000; round++) {
      const read = await readNewTurns(file, {
        cursorStore: cursors,
        consumer: SESSION_CONSUMER,
        maxTurns: 200,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (read.outcome === 'missing' || read.outcome === 'not-a-file') {
        if (!seen) return null;
        break;
      }
      seen = true;
      if (read.reset) {
        // The transcript was rewritten: count it again from the start, keep the note.
        state = { ...newSessionState(sessionId, file, project), lastUpdate: state.lastUpdate, updates: state.updates };
      }
      for (const turn of read.turns) {
        state.toolCalls += turn.toolCalls.length;
        countTokens(state, turn);
        absorb(state, state.facts, turn);
      }
      if (read.cursor) {
        state.cursor = read.cursor;
        await cursors.save(read.cursor);
      }
      open = read.openTurn;
      if (!read.more) break;
    }

    // The turn in progress counts now, but is read again (complete) next time.
    const facts: SessionFacts = structuredClone(state.facts);
    const provisional = structuredClone(state);
    if (open) {
      absorb(provisional, facts, open);
      countTokens(provisional, open);
    }
    const contextTokens = contextOf(provisional);
    const toolCalls = state.toolCalls + (open?.toolCalls.length ?? 0);
    if (state.lastUpdate && contextTokens < state.lastUpdate.contextTokens) {
      // A compaction shrank the context: growth is measured from the new, smaller size.
      state.lastUpdate = { ...state.lastUpdate, contextTokens };
    }
    state.projectPath = provisional.projectPath;
    state.lastActivityAt = provisional.lastActivityAt;
    // Written to after Claude Code said it ended: the session was resumed (`claude --resume`).
    if (state.endedAt && state.lastActivityAt && Date.parse(state.lastActivityAt) > Date.parse(state.endedAt)) state.endedAt = null;
    if (contextTokens >= SESSION_INIT_TOKENS) state.started = true;

    const lastResponseToolCalls = provisional.lastResponseToolCalls;
    let counters = this.counters(state, contextTokens, toolCalls, lastResponseToolCalls);
    if (write && (counters.due || options.force)) {
      const at = this.now().toISOString();
      const { text, method, fallbackReason } = await this.writeNoteText(state, facts, at, options.signal);
      await this.store.writeNote(sessionId, text);
      state.lastUpdate = { at, contextTokens, toolCalls, method, fallbackReason };
      state.updates++;
      state.facts.recent = [];
      counters = this.counters(state, contextTokens, toolCalls, lastResponseToolCalls);
    }
    if (write) {
      await this.store.save(state);
      this.looked.delete(file);
    } else this.looked.set(file, { from, state });
    return this.status(state, contextTokens, counters);
  }

  /** R-SESSION's thresholds (see the module comment) and how far each is. */
  private counters(state: SessionState, contextTokens: number, toolCalls: number, lastResponseToolCalls: number) {
    const base = state.lastUpdate ?? { contextTokens: 0, toolCalls: 0 };
    const started = state.started || state.lastUpdate !== null;
    const tokensSinceUpdate = Math.max(0, contextTokens - base.contextTokens);
    const toolCallsSinceUpdate = Math.max(0, toolCalls - base.toolCalls);
    const toolsMet = toolCallsSinceUpdate >= SESSION_MIN_TOOL_CALLS || lastResponseToolCalls === 0;
    return {
      started,
      tokensSinceUpdate,
      toolCallsSinceUpdate,
      lastResponseUsedTools: lastResponseToolCalls > 0,
      due: started && tokensSinceUpdate >= SESSION_MIN_TOKENS && toolsMet,
      tokensToNext: Math.max(0, SESSION_MIN_TOKENS - tokensSinceUpdate, started ? 0 : SESSION_INIT_TOKENS - contextTokens),
      toolCallsToNext: toolsMet ? 0 : SESSION_MIN_TOOL_CALLS - toolCallsSinceUpdate,
    };
  }

  private async status(state: SessionState, contextTokens: number, counters: ReturnType<SessionMemory['counters']>): Promise<SessionStatus> {
    const note = await this.store.readNote(state.sessionId);
    const handed = note?.trim() ? handBackNote(note, this.store.noteFile(state.sessionId)) : null;
    return {
      sessionId: state.sessionId,
      project: state.project,
      projectPath: state.projectPath,
      transcriptPath: state.transcriptPath,
      contextTokens,
      ...counters,
      lastActivityAt: state.lastActivityAt,
      endedAt: state.endedAt,
      lastUpdateAt: state.lastUpdate?.at ?? null,
      updates: state.updates,
      method: state.lastUpdate?.method ?? null,
      fallbackReason: state.lastUpdate?.fallbackReason ?? null,
      note,
      noteFile: note === null ? null : this.store.noteFile(state.sessionId),
      handBack: handed && { chars: handed.text.length, wholeChars: handed.wholeChars, cut: handed.cut },
      claudeCodeSummary: await readClaudeCodeSummary(state.transcriptPath, state.sessionId),
    };
  }

  private async writeNoteText(
    state: SessionState,
    facts: SessionFacts,
    at: string,
    signal?: AbortSignal,
  ): Promise<{ text: string; method: 'model' | 'offline'; fallbackReason: string | null }> {
    const provider = this.options.provider ? await this.options.provider() : null;
    if (!provider || provider.kind === 'offline') return { text: renderOfflineNote(state, facts, at, null), method: 'offline', fallbackReason: null };
    let reason: string;
    try {
      const previous = await this.store.readNote(state.sessionId);
      const answer = await provider.complete({
        task: 'session',
        system: SESSION_SYSTEM_PROMPT,
        messages: [{ role: 'user', content: buildSessionPrompt(previous, state, facts) }],
        maxTokens: NOTE_MAX_TOKENS,
        temperature: 0,
        ...(signal ? { signal } : {}),
        ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      });
      const problem = noteProblem(answer.text);
      if (!problem) return { text: renderModelNote(state, answer.text, at, answer.model), method: 'model', fallbackReason: null };
      reason = problem;
    } catch (error) {
      if (error instanceof LlmError && error.kind === 'aborted') throw error;
      reason = error instanceof LlmError ? error.message : `The model call failed: ${provider.redact(error instanceof Error ? error.message : String(error))}`;
    }
    return { text: renderOfflineNote(state, facts, at, reason), method: 'offline', fallbackReason: reason };
  }

  /**
   * Claude Code says the session ended (SessionEnd): it is marked so, and its note kept for a
   * `claude --resume` (which goes on in the same session) until the idle sweep removes it.
   */
  async end(sessionId: string): Promise<void> {
    if (!SESSION_ID.test(sessionId)) return;
    await this.serial(sessionId, async () => {
      const state = await this.store.load(sessionId);
      if (state && !state.endedAt) await this.store.save({ ...state, endedAt: this.now().toISOString() });
    });
  }

  /** Forget a session now: its note and its state. */
  async remove(sessionId: string): Promise<void> {
    if (!SESSION_ID.test(sessionId)) return;
    await this.serial(sessionId, () => this.store.remove(sessionId));
  }

  /** Remove sessions quiet for longer than `idleMinutes` (or whose transcript is gone). */
  async sweepIdle(idleMinutes: number): Promise<string[]> {
    const removed: string[] = [];
    const limit = this.now().getTime() - idleMinutes * 60_000;
    for (const id of await this.store.list()) {
      const state = await this.store.load(id);
      const stat = state ? await fs.stat(state.transcriptPath).catch(() => null) : null;
      if (!state || !stat || stat.mtimeMs < limit) {
        await this.remove(id);
        removed.push(id);
      }
    }
    return removed;
  }

  /**
   * What the app's Live sessions and `memdir session status` both show: the sessions followed, and
   * transcripts changed within Settings → Session Memory's idle time — so a session Claude Code was
   * running when Memdir opened is live at once, not only once its transcript changes again.
   */
  async listLive(): Promise<SessionStatus[]> {
    const { settings } = await loadAppSettings(this.options.dataDir);
    return this.list({ recentMinutes: settings.session.idleMinutes });
  }

  /**
   * Live sessions with fresh counters (nothing is written): those with a note or counters, plus,
   * with `recentMinutes`, session transcripts changed that recently (the CLI's view, when the
   * app is not running to follow them).
   */
  async list(options: { recentMinutes?: number } = {}): Promise<SessionStatus[]> {
    const statuses: SessionStatus[] = [];
    const seen = new Set<string>();
    for (const id of await this.store.list()) {
      const state = await this.store.load(id);
      if (!state) continue;
      seen.add(state.transcriptPath);
      const status = await this.observe(state.transcriptPath, { write: false });
      if (status) statuses.push(status);
    }
    if (options.recentMinutes !== undefined) {
      const since = this.now().getTime() - options.recentMinutes * 60_000;
      for (const file of await listHomeTranscripts(this.options.home)) {
        if (file.kind !== 'session' || file.mtimeMs < since || seen.has(path.resolve(file.path))) continue;
        seen.add(path.resolve(file.path));
        const status = await this.observe(file.path, { write: false });
        if (status) statuses.push(status);
      }
    }
    for (const file of this.looked.keys()) if (!seen.has(file)) this.looked.delete(file);
    return statuses.sort((a, b) => (b.lastActivityAt ?? '').localeCompare(a.lastActivityAt ?? '') || a.sessionId.localeCompare(b.sessionId));
  }
}
