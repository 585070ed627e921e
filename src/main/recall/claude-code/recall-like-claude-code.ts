/**
 * Recall exactly as Claude Code recalls (R-RECALL-SELECT, Claude Code 2.1.332): its scan, its
 * 200-newest cap, its manifest (frozen at the session's first recall), its selector conversation,
 * its request, its reading of the answer, its "already surfaced" filter and its session budget.
 * What comes back is what Claude Code would load — including nothing, whenever Claude Code
 * would load nothing (a one-word prompt, a failed request, an unusable answer).
 *
 * A session here plays the part of one Claude Code session: the playground keeps one across
 * queries; a transcript can seed it with what that session already loaded.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ClaudeCodeRecallResult } from '../../../shared/recall-types.js';
import { LlmError, type ModelProvider } from '../../llm/index.js';
import type { ClaudeCodeRecallSwitch } from './recall-switch.js';
import type { MemoryStoresSetting } from '../../memdir/index.js';
import { CLAUDE_CODE_RECALL_CAP, type ClaudeCodeMemoryHeader, recallStoreRules, scanLikeClaudeCode } from './scan-memories.js';
import {
  buildSelectorRequest,
  CLAUDE_CODE_RECALL_VERSION,
  type DroppedName,
  manifestMessage,
  parseSelectorAnswer,
  type SelectorTurn,
} from './selector-request.js';
import { SESSION_RECALL_BUDGET_CHARS, type SurfacedMemories, surfacedChars } from './surfaced.js';
import { way } from '../../core/surface-words.js';

/** Claude Code loads at most this many memories per prompt. */
const MAX_LOADED = 5;
/** The model Claude Code 2.1.332 asks when ANTHROPIC_DEFAULT_SONNET_MODEL is not set. */
export const CLAUDE_CODE_SELECTOR_MODEL = 'claude-sonnet-5-5';

/** One Claude Code session's recall state. */
export interface ClaudeCodeSession {
  readonly id: string;
  readonly memoryDir: string;
  /** Built at the first recall that found memories, then kept (as Claude Code keeps it). */
  manifest: { text: string; memories: ClaudeCodeMemoryHeader[]; builtAt: string } | null;
  turns: SelectorTurn[];
  surfaced: SurfacedMemories;
  readonly transcript: string | null;
}

/** A fresh session, optionally seeded with what a transcript shows as already loaded. */
export function newClaudeCodeSession(memoryDir: string, seed?: { surfaced: SurfacedMemories; transcript: string }): ClaudeCodeSession {
  return { id: randomUUID(), memoryDir, manifest: null, turns: [], surfaced: seed ? new Map(seed.surfaced) : new Map(), transcript: seed?.transcript ?? null };
}

/** What one Claude Code recall needs. */
export interface RecallLikeClaudeCodeOptions {
  session: ClaudeCodeSession;
  query: string;
  /** null or a provider that cannot send the exact request: the request is shown, not sent. */
  provider: ModelProvider | null;
  model: string;
  autoMemoryEnabled: boolean;
  /** The project's `CLAUDE_MEMORY_STORES` (settings.ts memoryStores): in memory-store mode the client offers more files. */
  memoryStores: MemoryStoresSetting;
  recallSwitch: ClaudeCodeRecallSwitch;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Ways out of the 200-newest cap that Memdir offers today. */
export const CAP_REMEDIES = [
  'Merge or retire old memories: a dream consolidates overlapping ones (the Dream tab, or memdir dream), and a memory you delete stays recoverable in its history.',
  'Keep what still matters current: saving a memory (even unchanged in meaning) gives it a new modification time, which brings it back among the 200 newest.',
  'Move lasting rules into MEMORY.md or CLAUDE.md, which are loaded at every session start whatever the cap.',
];

const iso = (ms: number): string => new Date(ms).toISOString();

function neverRecalledOf(memories: readonly ClaudeCodeMemoryHeader[]): ClaudeCodeRecallResult['neverRecalled'] {
  const past = memories.slice(CLAUDE_CODE_RECALL_CAP);
  return {
    count: past.length,
    files: past.map((m) => ({ file: m.file, mtime: iso(m.mtimeMs) })),
    cutoff: past.length > 0 ? iso(memories[CLAUDE_CODE_RECALL_CAP - 1]!.mtimeMs) : null,
    remedies: past.length > 0 ? CAP_REMEDIES : [],
  };
}

async function contentChars(memoryDir: string, file: string): Promise<number> {
  return (await fs.readFile(path.join(memoryDir, file), 'utf8').catch(() => '')).length;
}

/** Recall for `query` in `session`, as Claude Code would. Updates the session like Claude Code does. */
export async function recallLikeClaudeCode(options: RecallLikeClaudeCodeOptions): Promise<Omit<ClaudeCodeRecallResult, 'project'>> {
  const started = performance.now();
  const { session, query } = options;
  const scan = await scanLikeClaudeCode(session.memoryDir, recallStoreRules(options.memoryStores));
  const notes: string[] = [];
  if (scan.error) notes.push(scan.error);
  const manifestView = () => ({
    candidates: scan.memories.length,
    offered: session.manifest?.memories.length ?? Math.min(scan.memories.length, CLAUDE_CODE_RECALL_CAP),
    chars: session.manifest?.text.length ?? 0,
    builtAt: session.manifest?.builtAt ?? null,
  });
  const sessionView = () => ({
    id: session.id,
    turns: session.turns.length,
    surfaced: [...session.surfaced.keys()],
    surfacedChars: surfacedChars(session.surfaced),
    transcript: session.transcript,
  });
  const result = (fields: Pick<ClaudeCodeRecallResult, 'outcome'> & Partial<ClaudeCodeRecallResult>): Omit<ClaudeCodeRecallResult, 'project'> => ({
    mode: 'claude-code',
    claudeCodeVersion: CLAUDE_CODE_RECALL_VERSION,
    selected: [],
    dropped: [],
    request: null,
    answer: null,
    neverRecalled: neverRecalledOf(scan.memories),
    claudeCodeSwitch: options.recallSwitch,
    notes,
    model: options.model,
    provider: options.provider?.kind ?? 'none',
    ...fields,
    manifest: manifestView(),
    session: sessionView(),
    latencyMs: performance.now() - started,
  });

  if (!options.autoMemoryEnabled) return result({ outcome: 'skipped', reason: 'Auto memory is off for this project: Claude Code recalls nothing.' });
  // Claude Code asks only about prompts of two words or more.
  if (!/\s/.test(query.trim())) {
    return result({
      outcome: 'skipped',
      reason:
        query.trim() === ''
          ? 'The prompt is empty: Claude Code recalls nothing for it.'
          : 'Claude Code recalls only for a prompt of two words or more, and counts words by spaces: this prompt has no space, so it is one word to Claude Code (as a sentence in Chinese or Japanese is) and loads no memory.',
    });
  }
  if (surfacedChars(session.surfaced) >= SESSION_RECALL_BUDGET_CHARS) {
    return result({
      outcome: 'skipped',
      reason: `This session already loaded ${surfacedChars(session.surfaced).toLocaleString('en')} characters of memories; Claude Code stops recalling at ${SESSION_RECALL_BUDGET_CHARS.toLocaleString('en')}.`,
    });
  }
  if (!session.manifest) {
    if (scan.memories.length === 0) return result({ outcome: 'nothing', reason: 'There is no topic file Claude Code would offer: only MEMORY.md is loaded.' });
    const offered = scan.memories.slice(0, CLAUDE_CODE_RECALL_CAP);
    session.manifest = { text: manifestMessage(offered), memories: offered, builtAt: new Date().toISOString() };
  } else {
    const offered = new Map(session.manifest.memories.map((m) => [m.file, m.mtimeMs]));
    const changed = scan.memories.slice(0, CLAUDE_CODE_RECALL_CAP).filter((m) => offered.get(m.file) !== m.mtimeMs).length;
    if (changed > 0)
      notes.push(
        `${changed === 1 ? 'One memory was' : `${changed} memories were`} written or changed after this session's first recall; Claude Code keeps offering the list it built then, so start a new session to see ${changed === 1 ? 'it' : 'them'}.`,
      );
  }
  const manifest = session.manifest;
  if (manifest.memories.every((m) => session.surfaced.has(m.file))) {
    return result({ outcome: 'nothing', reason: 'Every memory on offer was already loaded in this session: Claude Code asks no more.' });
  }

  // Only a prompt that is asked about names the model: a skipped one asks nobody.
  if (options.model !== CLAUDE_CODE_SELECTOR_MODEL) {
    notes.push(
      `Claude Code ${CLAUDE_CODE_RECALL_VERSION} asks ${CLAUDE_CODE_SELECTOR_MODEL} (or ANTHROPIC_DEFAULT_SONNET_MODEL); this recall asks ${options.model}, ${way('recallModel')}.`,
    );
  }
  const request = buildSelectorRequest({ model: options.model, manifest: manifest.text, turns: session.turns, query });
  const provider = options.provider;
  if (!provider || provider.kind !== 'anthropic') {
    const why =
      !provider || provider.kind === 'offline'
        ? ((await provider?.status())?.reason ?? 'No model is configured.')
        : `The Claude Code CLI provider cannot send this exact request; ${way('addApiKey')}`;
    return result({ outcome: 'not-sent', reason: `Not sent: ${why} This is the request Claude Code would send.`, request });
  }

  let answer;
  try {
    answer = await provider.complete({
      task: 'recall',
      system: request.system,
      messages: request.messages,
      maxTokens: request.max_tokens,
      outputConfig: request.output_config,
      ...(request.thinking ? { thinking: request.thinking } : {}),
      model: request.model,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  } catch (error) {
    const message = error instanceof LlmError ? error.message : provider.redact(error instanceof Error ? error.message : String(error));
    return result({ outcome: 'failed', reason: `${message} When its selector fails, Claude Code loads no memory.`, request });
  }
  const spent = { tokens: answer.usage, costUsd: answer.costUsd, costNote: answer.costNote, model: answer.model };
  const first = answer.content.find((b) => b.type === 'text');
  const text = first?.type === 'text' ? first.text : null;
  const known = new Set(manifest.memories.map((m) => m.file));
  const parsed = parseSelectorAnswer({ text, stopReason: answer.stopReason }, known);
  // Claude Code adds the exchange to the selector conversation once the answer parses as JSON.
  if (text !== null && parsed.jsonParsed) session.turns.push({ query, answer: text });
  if (parsed.failure) return result({ outcome: 'failed', reason: parsed.failure, request, answer: text, ...spent });

  const dropped: DroppedName[] = [...parsed.dropped];
  const loaded: string[] = [];
  for (const name of parsed.names) {
    if (session.surfaced.has(name)) dropped.push({ file: name, reason: 'already loaded earlier in this session' });
    else if (loaded.length >= MAX_LOADED) dropped.push({ file: name, reason: `over the limit of ${MAX_LOADED}` });
    else loaded.push(name);
  }
  for (const file of loaded) session.surfaced.set(file, (session.surfaced.get(file) ?? 0) + (await contentChars(session.memoryDir, file)));
  return result({
    outcome: loaded.length > 0 ? 'selected' : 'nothing',
    ...(loaded.length === 0 ? { reason: 'The model chose no memory Claude Code would load.' } : {}),
    selected: loaded.map((file) => ({ file })),
    dropped,
    request,
    answer: text,
    ...spent,
  });
}
