/**
 * R-DREAM-PHASES, Gather: search the transcripts written since the last dream for new signal —
 * corrections, decisions, preferences, references, dates — with `grepTranscript`: patterns over
 * the raw line stream, constant memory, never a full load. Only the lines that match are parsed,
 * to keep what a person said (the message text) apart from tool output and JSON keys.
 *
 * The same pass answers Consolidate's other question: when was a sentence with a relative date
 * ("the freeze starts next Friday") said? Each such sentence becomes a pattern; the line that
 * says it gives its timestamp, the anchor for turning the date absolute.
 */
import path from 'node:path';
import { grepTranscript, listTranscriptsIn } from '../../transcripts/index.js';

/** Kinds of signal Gather looks for. */
export const SIGNAL_CATEGORIES = ['correction', 'decision', 'preference', 'reference', 'date'] as const;
export type SignalCategory = (typeof SIGNAL_CATEGORIES)[number];

/**
 * English and Chinese patterns per kind. They run on each line's raw JSON text (fast) and again
 * on the decoded message text of the lines that matched (exact).
 */
export const SIGNAL_PATTERNS: Record<SignalCategory, RegExp[]> = {
  correction: [
    /\b(?:that's wrong|that is wrong|that's not right|not what I (?:asked|meant|want)|don't do that|stop (?:doing|using)|instead of|we don't|we do not|no,? (?:use|do|we)|actually,? (?:we|it|use))\b/i,
    /不对|错了|不是这样|不要再|别再|不应该|改成|而不是|搞错/,
  ],
  decision: [
    /\b(?:we decided|decided to|let's go with|we(?:'ll| will) use|going forward|from now on|we agreed|the plan is)\b/i,
    /决定|定下来|就用|以后都|统一用|约定|说好了/,
  ],
  preference: [
    /\b(?:I prefer|I'd prefer|I like|I want you to|please always|always use|never use|remember (?:that|this|to)|remember:|keep in mind)\b/i,
    /我喜欢|我希望|我更喜欢|偏好|记住|以后|每次都|一律/,
  ],
  reference: [
    /https?:\/\/[^\s"\\]+|\b(?:dashboard|runbook|wiki|ticket|jira|confluence|grafana|notion|figma|pagerduty|sentry)\b/i,
    /文档在|看板|工单|链接|地址是|设计稿/,
  ],
  date: [
    /\b(?:yesterday|tomorrow|today|tonight|next (?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|last (?:week|month)|deadline|due (?:on|by)|\d{4}-\d{2}-\d{2})\b/i,
    /昨天|明天|今天|下周|上周|下个月|上个月|截止|\d{4}年\d{1,2}月/,
  ],
};

const FLAT_PATTERNS = SIGNAL_CATEGORIES.flatMap((category) => SIGNAL_PATTERNS[category].map((pattern) => ({ category, pattern })));

/** A line of a transcript that carries signal. */
export interface GatheredSignal {
  transcript: string;
  sessionId: string;
  /** The line's timestamp (ISO), when it has one. */
  time: string | null;
  role: 'user' | 'assistant';
  categories: SignalCategory[];
  /** The message text around the match, at most ~400 characters. */
  text: string;
}

/** "When was this said?": a sentence of a memory holding a relative date. */
export interface AnchorQuery {
  /** The caller's key for the answer. */
  key: string;
  /** The relative date as written ("next Friday", "下周五"). */
  phrase: string;
  /** Other words of the sentence; a line must hold some of them to count as saying it. */
  words: string[];
  /** The memory file's mtime: the sentence was said before it was saved. */
  notAfterMs: number;
  /** The memory's `originSessionId`: its transcript is searched even when older than the last dream. */
  sessionId: string | null;
}

/** Where a sentence was said. */
export interface AnchorHit {
  timeMs: number;
  sessionId: string;
  transcript: string;
}

/** What Gather found. */
export interface GatherResult {
  signals: GatheredSignal[];
  anchors: Map<string, AnchorHit>;
  /** Transcripts searched for signal (newer than the last dream). */
  transcripts: { path: string; sessionId: string; mtimeMs: number }[];
  /** Lines that matched a pattern (before the exact check). */
  matchedLines: number;
  /** Transcripts that could not be read to the end (vanished, unreadable), in words. */
  problems: string[];
}

/** Options of {@link gatherSignals}. */
export interface GatherOptions {
  /** `lastConsolidatedAt` (ms): transcripts not written since are skipped; null = all. */
  sinceMs: number | null;
  anchors?: AnchorQuery[];
  signal?: AbortSignal;
  onTranscript?: (done: number, total: number, file: string) => void;
  /** At most this many signals are kept (the newest win); default 200. */
  maxSignals?: number;
  /** At most this many per transcript; default 40. */
  maxPerTranscript?: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A phrase as a pattern over raw JSON text: spaces may be any run of spaces; English ignores case. */
function phrasePattern(phrase: string): RegExp {
  const body = escapeRegExp(phrase.trim()).replace(/\s+/g, '\\s+');
  return /[a-z]/i.test(phrase) ? new RegExp(body, 'i') : new RegExp(body);
}

interface DecodedLine {
  role: 'user' | 'assistant';
  text: string;
  sessionId: string | null;
}

/** The message text of a transcript line; null for lines that carry no words a person wrote or read. */
function decodeLine(line: string): DecodedLine | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const record = value as { type?: unknown; isSidechain?: unknown; isMeta?: unknown; sessionId?: unknown; message?: { content?: unknown } };
  if ((record.type !== 'user' && record.type !== 'assistant') || record.isSidechain === true || record.isMeta === true) return null;
  const content = record.message?.content;
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    text = content
      .filter(
        (b): b is { type: 'text'; text: string } =>
          typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string',
      )
      .map((b) => b.text)
      .join('\n');
  }
  // Slash-command wrappers and hook output are Claude Code's, not the user's words.
  if (text.trim() === '' || /^\s*<(?:command-|local-command-|system-reminder|user-prompt-submit-hook)/.test(text)) return null;
  return { role: record.type, text, sessionId: typeof record.sessionId === 'string' ? record.sessionId : null };
}

function excerpt(text: string, at: number): string {
  const flat = text.replace(/\s+/g, ' ');
  if (flat.length <= 400) return flat.trim();
  const start = Math.max(0, Math.min(at - 150, flat.length - 400));
  return `${start > 0 ? '…' : ''}${flat.slice(start, start + 400).trim()}…`;
}

/**
 * Gather: one grep pass over each transcript of the project's transcript folders (its launch
 * directories', R-LAYOUT) written since `sinceMs` (and over the transcripts anchors name), for
 * signal and for the anchors' sentences.
 */
export async function gatherSignals(transcriptDirs: string | readonly string[], opts: GatherOptions): Promise<GatherResult> {
  const maxSignals = opts.maxSignals ?? 200;
  const maxPer = opts.maxPerTranscript ?? 40;
  const anchors = opts.anchors ?? [];
  const all = await listTranscriptsIn(typeof transcriptDirs === 'string' ? [transcriptDirs] : transcriptDirs);
  const since = opts.sinceMs;
  const fresh = all.filter((t) => since === null || t.mtimeMs > since);
  const wantedSessions = new Set(anchors.map((a) => a.sessionId).filter((s): s is string => s !== null));
  const extra = all.filter((t) => !fresh.includes(t) && wantedSessions.has(t.sessionId));
  const anchorPatterns = anchors.map((a) => phrasePattern(a.phrase));
  const patterns = [...FLAT_PATTERNS.map((p) => p.pattern), ...anchorPatterns];
  const signals: GatheredSignal[] = [];
  const candidates = new Map<string, AnchorHit>();
  const seen = new Set<string>();
  const problems: string[] = [];
  let matchedLines = 0;
  const files = [...fresh.map((t) => ({ t, forSignal: true })), ...extra.map((t) => ({ t, forSignal: false }))];

  for (const [i, { t, forSignal }] of files.entries()) {
    opts.signal?.throwIfAborted();
    const name = path.basename(t.path);
    let kept = 0;
    try {
      for await (const match of grepTranscript(t.path, forSignal ? patterns : anchorPatterns, { signal: opts.signal, final: true })) {
        matchedLines++;
        const decoded = decodeLine(match.line);
        if (!decoded) continue;
        const sessionId = decoded.sessionId ?? t.sessionId;
        const offset = forSignal ? FLAT_PATTERNS.length : 0;
        // Anchors: the line must say the phrase and enough of the sentence's other words.
        for (const index of match.patterns) {
          if (index < offset || match.time === null) continue;
          const a = anchors[index - offset]!;
          if (!phrasePattern(a.phrase).test(decoded.text)) continue;
          const lower = decoded.text.toLowerCase();
          const needed = Math.min(2, a.words.length);
          if (a.words.filter((w) => lower.includes(w.toLowerCase())).length < needed) continue;
          if (match.time > a.notAfterMs + 10 * 60_000) continue;
          const best = candidates.get(a.key);
          if (!best || match.time > best.timeMs) candidates.set(a.key, { timeMs: match.time, sessionId, transcript: name });
        }
        if (!forSignal || kept >= maxPer) continue;
        const categories = SIGNAL_CATEGORIES.filter((c) => SIGNAL_PATTERNS[c].some((p) => p.test(decoded.text)));
        if (categories.length === 0) continue;
        const first = Math.min(...SIGNAL_CATEGORIES.flatMap((c) => SIGNAL_PATTERNS[c].map((p) => decoded.text.search(p)).filter((n) => n >= 0)));
        const text = excerpt(decoded.text, first);
        if (seen.has(text)) continue;
        seen.add(text);
        kept++;
        signals.push({ transcript: name, sessionId, time: match.timestamp, role: decoded.role, categories, text });
      }
    } catch (error) {
      if (opts.signal?.aborted) throw error;
      // A transcript that vanished or broke mid-scan is skipped, and said so.
      problems.push(`${name} could not be searched to the end: ${error instanceof Error ? error.message : String(error)}`);
    }
    opts.onTranscript?.(i + 1, files.length, name);
  }
  signals.sort((a, b) => (b.time ?? '').localeCompare(a.time ?? ''));
  return {
    signals: signals.slice(0, maxSignals),
    anchors: candidates,
    transcripts: fresh.map((t) => ({ path: t.path, sessionId: t.sessionId, mtimeMs: t.mtimeMs })),
    matchedLines,
    problems,
  };
}
