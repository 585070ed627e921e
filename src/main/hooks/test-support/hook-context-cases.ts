/**
 * Where Claude Code 2.1.332 stops taking a hook's `additionalContext` whole (R-SESSION: the
 * Session Memory note Memdir hands back must stay under it). Each case is a SessionStart hook
 * answering with `count` times `unit` then `ENDMARK` (and `suffix`): the live test
 * (hooks/claude-code-interop.test.ts) records whether the model's request had the text whole or
 * only a `<persisted-output>` preview; test/fidelity/session-handback.test.ts replays it.
 */
import path from 'node:path';

/** The recording. */
export const HOOK_CONTEXT_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-session/hook-context-2.1.332.json');

export interface HookContextSpec {
  name: string;
  unit: string;
  count: number;
  prefix?: string;
  suffix?: string;
}

/** A case as recorded: its sizes, and what the model got. */
export interface HookContextCase extends HookContextSpec {
  /** UTF-16 units (JavaScript `length`). */
  chars: number;
  codePoints: number;
  utf8Bytes: number;
  /** The request had the text whole. */
  whole: boolean;
  /** The request had Claude Code's "Output too large … Preview (first 2KB)" instead. */
  preview: boolean;
}

export const HOOK_CONTEXT_CASES: readonly HookContextSpec[] = [
  { name: 'ascii 10,000', unit: 'A', count: 9_993 },
  { name: 'ascii 10,001', unit: 'A', count: 9_994 },
  // Two UTF-16 units each: 10,000 units are 5,000 code points and 20,000 bytes of UTF-8.
  { name: 'emoji 10,000 units', unit: '😀', count: 4_996, prefix: 'A' },
  { name: 'emoji 10,001 units', unit: '😀', count: 4_997 },
  // Nothing is trimmed: a newline or leading spaces count.
  { name: 'newline at 10,000', unit: 'A', count: 9_992, suffix: '\n' },
  { name: 'spaces, 10,001', unit: 'A', count: 9_992, prefix: '  ' },
];

/** The additionalContext of a case. */
export function hookContextText(spec: HookContextSpec): string {
  return `${spec.prefix ?? ''}${spec.unit.repeat(spec.count)}ENDMARK${spec.suffix ?? ''}`;
}
