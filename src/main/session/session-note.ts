/**
 * The Session Memory note (R-SESSION): structured markdown with four sections — current task,
 * files changed, errors met, where the workflow stands. Written by a model from the previous
 * note and what happened since, or offline straight from the transcript's own tool calls and
 * errors (clearly labelled as such).
 */
import { SESSION_HANDBACK_MAX_CHARS } from '../../shared/limits.js';
import type { SessionFacts, SessionState } from './session-state.js';

/** The sections every note has, in order. */
export const NOTE_SECTIONS = ['Current task', 'Files changed', 'Errors met', 'Where the workflow stands'] as const;

function cap(text: string, max: number): string {
  const flat = text.trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A path relative to the project when it is inside it. */
function shortPath(file: string, projectPath: string | null): string {
  if (projectPath && file.startsWith(`${projectPath}/`)) return file.slice(projectPath.length + 1);
  return file;
}

function header(state: SessionState, at: string, how: string): string {
  return `# Session memory\n\n_Session ${state.sessionId}${state.projectPath ? ` · ${state.projectPath}` : ''} · updated ${at} · ${how}_\n`;
}

/** The note written without a model, from the facts gathered from the transcript. */
export function renderOfflineNote(state: SessionState, facts: SessionFacts, at: string, reason: string | null): string {
  const files = facts.filesChanged.slice(-30).map((f) => `- ${shortPath(f, state.projectPath)}`);
  const errors = facts.errors.slice(-10).map((e) => `- ${e.tool}: ${cap(e.text, 200)}`);
  const recentTools = facts.recent
    .filter((r) => r.startsWith('tool '))
    .slice(-5)
    .map((r) => `- ${r.slice(5)}`);
  const stands = [
    facts.lastAnswer ? cap(facts.lastAnswer, 800) : 'No answer yet.',
    ...(recentTools.length > 0 ? ['', 'Latest tool calls:', ...recentTools] : []),
  ];
  return [
    header(state, at, `offline (from the transcript's own tool calls and errors${reason ? `; ${reason}` : ''})`),
    '## Current task',
    facts.task ? cap(facts.task, 800) : 'Not stated yet.',
    '',
    '## Files changed',
    ...(files.length > 0 ? files : ['None yet.']),
    '',
    '## Errors met',
    ...(errors.length > 0 ? errors : ['None.']),
    '',
    '## Where the workflow stands',
    ...stands,
    '',
  ].join('\n');
}

/** What the model is asked to do. */
export const SESSION_SYSTEM_PROMPT = `You keep the Session Memory note of one Claude Code session: a short structured markdown note that lets the agent pick the work up again after its context is compacted. Rewrite the whole note from the previous note and what happened since. Keep it under 400 words. Use exactly these four sections, in this order, as level-2 headings:
## Current task
## Files changed
## Errors met
## Where the workflow stands
Facts only, from the material given; no speculation, no secrets. Answer with the note's markdown only.`;

/** The request for an updated note. */
export function buildSessionPrompt(previousNote: string | null, state: SessionState, facts: SessionFacts): string {
  return [
    `<previous_note>\n${previousNote?.trim() || '(none yet)'}\n</previous_note>`,
    `<latest_prompt>\n${facts.task ? cap(facts.task, 4000) : '(none)'}\n</latest_prompt>`,
    `<files_changed>\n${
      facts.filesChanged
        .slice(-50)
        .map((f) => shortPath(f, state.projectPath))
        .join('\n') || '(none)'
    }\n</files_changed>`,
    `<errors>\n${
      facts.errors
        .slice(-15)
        .map((e) => `${e.tool}: ${cap(e.text, 300)}`)
        .join('\n') || '(none)'
    }\n</errors>`,
    `<since_last_update>\n${facts.recent.slice(-40).join('\n') || '(nothing)'}\n</since_last_update>`,
    `<latest_answer>\n${facts.lastAnswer ? cap(facts.lastAnswer, 3000) : '(none)'}\n</latest_answer>`,
  ].join('\n\n');
}

/** The longest note the model is asked for, in tokens. */
export const NOTE_MAX_TOKENS = 1200;
/** The most characters those tokens can hold: several per token, generously. */
const NOTE_MAX_CHARS = NOTE_MAX_TOKENS * 16;

/** Why a model's note cannot be used, or null when it has the four sections. */
export function noteProblem(text: string): string | null {
  const body = text.trim();
  if (!body) return 'The model returned an empty note.';
  // More than the tokens asked for can hold: not a note (an endpoint that misbehaves), and kept, it would go back with every update.
  if (body.length > NOTE_MAX_CHARS)
    return `The model's note is ${body.length.toLocaleString('en-US')} characters long, more than the ${NOTE_MAX_TOKENS.toLocaleString('en-US')} tokens asked for can hold.`;
  const missing = NOTE_SECTIONS.filter((section) => !new RegExp(`^##\\s+${section}\\s*$`, 'im').test(body));
  return missing.length > 0 ? `The model's note lacks ${missing.map((m) => `"${m}"`).join(', ')}.` : null;
}

/** The model's note under Memdir's header line. */
export function renderModelNote(state: SessionState, text: string, at: string, model: string): string {
  const body = text
    .trim()
    .replace(/^```(?:markdown|md)?\s*\n([\s\S]*?)\n```$/, '$1')
    .replace(/^#\s+Session memory\s*\n/i, '')
    .trim();
  return `${header(state, at, `by ${model}`)}\n${body}\n`;
}

/** What precedes the note in Claude Code's context, so the agent knows what it is reading. */
const HANDBACK_INTRO =
  "Session Memory — Memdir's running note of this session (current task, files changed, errors met, where the workflow stands), kept outside the context so it survives compaction:";

/** The note as the SessionStart hook hands it back to Claude Code. */
export interface HandedBackNote {
  /** The `additionalContext`: the intro, then the note (cut when it had to be). */
  text: string;
  /**
   * The UTF-16 units the intro and the whole note come to: what would be handed back uncut (more
   * than `SESSION_HANDBACK_MAX_CHARS` exactly when the note is cut).
   */
  wholeChars: number;
  cut: boolean;
}

/** `index`, moved by one when it falls between the two halves of a surrogate pair (a cut there would split a character). */
function offPair(text: string, index: number, step: 1 | -1): number {
  const code = text.charCodeAt(index);
  return index > 0 && index < text.length && code >= 0xdc00 && code <= 0xdfff ? index + step : index;
}

/**
 * The note as `additionalContext`, within what Claude Code 2.1.332 takes whole from a hook
 * (`SESSION_HANDBACK_MAX_CHARS`, the intro included: past it the model gets a 2 KB preview of
 * the note's first lines and never its end). A note too long keeps its beginning (the header and
 * the current task) and, with twice the room, its latest lines (where the workflow stands, the
 * latest steps); what is left out of the middle (mostly the lists of files and errors) is said in
 * one line naming the file that holds the whole note.
 */
export function handBackNote(note: string, noteFile: string): HandedBackNote {
  const body = note.trim();
  const whole = `${HANDBACK_INTRO}\n\n${body}\n`;
  if (whole.length <= SESSION_HANDBACK_MAX_CHARS) return { text: whole, wholeChars: whole.length, cut: false };
  const gap = (left: number) =>
    `\n[… ${left.toLocaleString('en-US')} characters of the note's middle are left out here, to stay within the ${SESSION_HANDBACK_MAX_CHARS.toLocaleString('en-US')} characters Claude Code takes from a hook; the whole note is in ${noteFile} …]\n\n`;
  // The gap line at its longest (every character left out), so the text fits whatever is kept.
  const room = SESSION_HANDBACK_MAX_CHARS - `${HANDBACK_INTRO}\n\n`.length - gap(body.length).length - 1;
  // The beginning: whole lines within a third of the room (a first line longer than that: its start).
  const headRoom = Math.floor(room / 3);
  const headEnd = body.lastIndexOf('\n', headRoom - 1) + 1 || offPair(body, headRoom, -1);
  // The end: whole lines within the rest of the room (a last line longer than that: its end).
  const tailMin = body.length - (room - headEnd);
  const tailStart = Math.max(headEnd, body.indexOf('\n', tailMin - 1) + 1 || offPair(body, tailMin, 1));
  const text = `${HANDBACK_INTRO}\n\n${body.slice(0, headEnd)}${gap(tailStart - headEnd)}${body.slice(tailStart)}\n`;
  return { text, wholeChars: whole.length, cut: true };
}
