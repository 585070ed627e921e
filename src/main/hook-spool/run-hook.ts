/**
 * `memdir hook <event>`: the Node side of Memdir's Claude Code hooks (SPEC §11). It must
 * return fast and never break Claude Code: read the JSON on stdin (bounded in size and time),
 * and — whatever happens — report instead of throwing (the command exits 0; trouble goes to
 * `<dataDir>/hook-errors.log`).
 *
 *   Stop, PreCompact, SessionEnd → write the event to the spool (hook-spool.ts), nothing else.
 *     On Linux and macOS Claude Code runs the shell command that spools instead (it beats the
 *     SIGTERM of an exiting `claude -p`, which Node cannot); this is the Windows path, and what
 *     older installs' commands still run.
 *   SessionStart (sources `compact`, `resume`) → print the session's Session Memory note as
 *     `additionalContext`, the form Claude Code puts into the conversation (R-SESSION).
 *
 * Sessions Memdir started itself (its Claude Code CLI model calls run with `MEMDIR_INTERNAL=1`
 * in `<dataDir>/claude-cli`) are ignored, so Memdir never extracts from its own prompts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
// eslint-disable-next-line memdir/front-doors -- the hook process loads hook-spool alone (issue 16): session's entry would bundle all of session, extract and llm into every hook (+1.3 MB)
import { SessionStore } from '../session/session-state.js';
// eslint-disable-next-line memdir/front-doors -- the same: the note's hand-back alone (session-note.ts imports only types and shared limits)
import { handBackNote } from '../session/session-note.js';
import { parseHookPayload, parseSessionStartPayload } from './hook-payload.js';
import { MAX_SPOOLED_BYTES, spoolHookPayload } from './hook-spool.js';

/** The hook error log in the data dir, and when it is rotated. */
export const HOOK_LOG_FILE = 'hook-errors.log';
const HOOK_LOG_MAX_BYTES = 256 * 1024;

/** Where Memdir's own Claude Code CLI sessions run (see claude-cli-provider.ts). */
export function internalProjectDir(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'claude-cli');
}

/** Whether a session is one Memdir started itself. */
export function isInternalSession(env: NodeJS.ProcessEnv, cwd: string | null, dataDir: string): boolean {
  if (env.MEMDIR_INTERNAL === '1') return true;
  if (!cwd) return false;
  const rel = path.relative(internalProjectDir(dataDir), path.resolve(cwd));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export interface RunHookOptions {
  /** The event named on the command line. */
  event: string;
  stdin?: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** How long to wait for stdin to end (default 2 s). */
  stdinTimeoutMs?: number;
}

/** What the hook did. */
export interface HookRunResult {
  outcome: 'spooled' | 'answered' | 'ignored' | 'failed';
  message: string;
  /** What Claude Code must read on stdout (SessionStart's JSON), when there is something. */
  stdout?: string;
}

/** Read stdin up to a size and a time limit; what arrived by then is the input. */
export function readBoundedStdin(
  stdin: NodeJS.ReadableStream | undefined,
  timeoutMs: number,
  maxBytes = MAX_SPOOLED_BYTES,
): Promise<{ text: string; problem: string | null }> {
  if (!stdin || (stdin as NodeJS.ReadStream).isTTY) return Promise.resolve({ text: '', problem: null });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (problem: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      stdin.removeListener('error', onError);
      // Leave stdin alone afterwards: the process exits without waiting for it.
      (stdin as NodeJS.ReadStream).pause?.();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), problem });
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > maxBytes) return finish(`the hook input is larger than ${maxBytes} bytes`);
      chunks.push(buffer);
    };
    const onEnd = () => finish(null);
    const onError = (error: Error) => finish(`stdin could not be read (${error.message})`);
    const timer = setTimeout(() => finish(chunks.length === 0 ? 'no hook input arrived on stdin in time' : null), timeoutMs);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
  });
}

/** Append a line to the hook error log (rotated past 256 KB). Never throws. */
export async function logHookProblem(dataDir: string, event: string, message: string): Promise<void> {
  try {
    const file = path.join(dataDir, HOOK_LOG_FILE);
    await fs.mkdir(dataDir, { recursive: true });
    const size = (await fs.stat(file).catch(() => null))?.size ?? 0;
    if (size > HOOK_LOG_MAX_BYTES) await fs.rename(file, `${file}.1`).catch(() => undefined);
    await fs.appendFile(file, `${new Date().toISOString()} ${event}: ${message.replace(/\s+/g, ' ')}\n`, { mode: 0o600 });
  } catch {
    // Nowhere left to report to: the hook still must not fail Claude Code.
  }
}

/**
 * SessionStart: the session's note as Claude Code's `additionalContext`, or nothing. Memdir's
 * own sessions never get a note (Session Memory skips them), so none is handed back to them.
 */
async function answerSessionStart(dataDir: string, stdin: string): Promise<HookRunResult> {
  const parsed = parseSessionStartPayload(stdin);
  if (!parsed.ok) return { outcome: 'failed', message: parsed.problem };
  if (parsed.source !== 'compact' && parsed.source !== 'resume')
    return { outcome: 'ignored', message: `a session start of source ${parsed.source ?? 'unknown'}: a new session gets no note` };
  const store = new SessionStore(dataDir);
  let note: string | null;
  try {
    note = await store.readNote(parsed.sessionId);
  } catch {
    return { outcome: 'failed', message: `"${parsed.sessionId}" is not a session id` };
  }
  if (!note?.trim()) return { outcome: 'ignored', message: `no Session Memory note for session ${parsed.sessionId}` };
  const handed = handBackNote(note, store.noteFile(parsed.sessionId));
  const cut = handed.cut
    ? `, cut to ${handed.text.length.toLocaleString('en-US')} of its ${handed.wholeChars.toLocaleString('en-US')} characters (intro included) to fit Claude Code's limit`
    : '';
  return {
    outcome: 'answered',
    message: `handed back the note of session ${parsed.sessionId} (${parsed.source})${cut}`,
    stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: handed.text } })}\n`,
  };
}

/** Run the hook. Never throws, never waits long. */
export async function runHook(options: RunHookOptions): Promise<HookRunResult> {
  const { event, env, dataDir } = options;
  const result = async (outcome: HookRunResult['outcome'], message: string): Promise<HookRunResult> => {
    if (outcome === 'failed') await logHookProblem(dataDir, event, message);
    return { outcome, message };
  };
  try {
    if (env.MEMDIR_INTERNAL === '1') return result('ignored', 'a session Memdir started itself (MEMDIR_INTERNAL=1)');
    const input = await readBoundedStdin(options.stdin, options.stdinTimeoutMs ?? 2000);
    if (input.problem && input.text === '') return result('failed', input.problem);
    if (event === 'SessionStart') {
      const answer = await answerSessionStart(dataDir, input.text);
      if (answer.outcome === 'failed') await logHookProblem(dataDir, event, answer.message);
      return answer;
    }
    const parsed = parseHookPayload(event, input.text);
    if (!parsed.ok) return result('failed', parsed.problem);
    if (isInternalSession(env, parsed.event.cwd, dataDir)) return result('ignored', 'a session in the folder Memdir uses for its own model calls');
    const spooled = await spoolHookPayload(dataDir, parsed.event.event, input.text);
    if ('dropped' in spooled) return result('failed', `not spooled: ${spooled.dropped}`);
    return result('spooled', `spooled for the app (${path.basename(spooled.file)})`);
  } catch (error) {
    return result('failed', error instanceof Error ? error.message : String(error));
  }
}
